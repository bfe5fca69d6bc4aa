import { describe, expect, it } from 'vitest';
import type { ItemTable } from '../../../lambdas/state/item-table';
import { seenAtPk } from '../../../lambdas/state/keys';
import { MemoryItemTable } from '../../../lambdas/state/memory/memory-item-table';
import { MemoryStateStore } from '../../../lambdas/state/memory-store';
import { SeenItemStore } from '../../../lambdas/state/seen-items';
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

describe('the time-ordered seen set at benchmark scale (the DynamoDB layout, in memory)', () => {
  it('reads a narrow window of 200,000 entries from the few packs of its hours, not all of them', async () => {
    // Prepare: 200,000 entries a second apart (about 2.3 days), written in batches like polls do,
    // on a memory table that counts the items each Query returns
    const table = new MemoryItemTable();
    const read: number[] = [];
    const counted: ItemTable = {
      get: (...args) => table.get(...args),
      batchGet: (...args) => table.batchGet(...args),
      batchWrite: (...args) => table.batchWrite(...args),
      batchDelete: (...args) => table.batchDelete(...args),
      put: (...args) => table.put(...args),
      query: async (...args) => {
        const items = await table.query(...args);
        read.push(items.length);
        return items;
      },
    };
    const seen = new SeenItemStore(counted);
    const start = Date.UTC(2026, 10, 1);
    const at = (second: number) => new Date(start + second * 1_000).toISOString();
    for (let batch = 0; batch < 200; batch++) {
      const entries = Array.from({ length: 1_000 }, (_, i) => {
        const second = batch * 1_000 + i;
        return { fingerprint: `fp-${second}`, at: at(second) };
      });
      await seen.putSeenAt('club-1', 'visits', entries, 2_000_000_000);
    }
    const packs = (await table.query({ pk: seenAtPk('club-1', 'visits') }, { consistent: true })).length;

    // Act: 200 windows of 60 entries each
    let found = 0;
    for (let i = 0; i < 200; i++) {
      const from = (i * 997) % 199_000;
      found += (await seen.seenSince('club-1', 'visits', at(from), 1, { toAt: at(from + 60) })).size;
    }

    // Assess: every entry found, each read from the packs of at most two hours (a batch of 1,000
    // entries, about 17 minutes, writes a pack per hour it touches: five an hour at most), never
    // the whole partition's
    expect(found).toBe(12_000);
    expect(packs).toBeGreaterThan(200);
    expect(Math.max(...read)).toBeLessThanOrEqual(10);
  });
});
