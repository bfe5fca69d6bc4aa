import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../lambdas/state/memory-store';
import { describeStateStoreContract } from './state-store-contract';

describeStateStoreContract('MemoryStateStore', async () => {
  let now = 0;
  const store = new MemoryStateStore({ now: () => now });
  return {
    store,
    setNow: (ms) => {
      now = ms;
    },
  };
});

describe('MemoryStateStore time-ordered seen set at benchmark scale', () => {
  it('reads a narrow window of 200,000 entries without walking all of them', async () => {
    // Prepare: 200,000 entries a second apart (about 2.3 days), written in batches like polls do
    const store = new MemoryStateStore();
    const start = Date.UTC(2026, 10, 1);
    const at = (second: number) => new Date(start + second * 1_000).toISOString();
    for (let batch = 0; batch < 200; batch++) {
      const entries = Array.from({ length: 1_000 }, (_, i) => {
        const second = batch * 1_000 + i;
        return { fingerprint: `fp-${second}`, at: at(second) };
      });
      await store.parts.seen.putSeenAt('club-1', 'visits', entries, 2_000_000_000);
    }

    // Act: 1,000 windows of 60 entries each. Walking all 200,000 entries per read (about 10 ms
    // each here) would take over 10 s; two binary searches per read take a few ms in all.
    const started = performance.now();
    let found = 0;
    for (let i = 0; i < 1_000; i++) {
      const from = (i * 197) % 199_000;
      found += (await store.parts.seen.seenSince('club-1', 'visits', at(from), 1, { toAt: at(from + 60) })).size;
    }
    const elapsedMs = performance.now() - started;

    // Assess
    expect(found).toBe(60_000);
    expect(elapsedMs).toBeLessThan(2_000);
  });
});
