import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../../lambdas/engine/scan/fingerprint';
import { SeenWindow, seenTag } from '../../../../lambdas/engine/scan/seen-window';
import { MemoryStateStore } from '../../../../lambdas/state';
import { openSession } from '../../../support/state-seeds';

const NOW = Date.now();
const EXPIRES = Math.ceil(NOW / 1000) + 86_400;
const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

async function storeWith() {
  const store = new MemoryStateStore();
  await store.parts.seen.putSeenAt(
    'club-1',
    'paymentHistory',
    [
      { fingerprint: 'k-old', at: at(120) },
      { fingerprint: 'k-new', at: at(10), ...seenTag({ group: 'pay-1', value: 'Approved' }) },
    ],
    EXPIRES,
  );
  await store.parts.seen.putSeen('club-1', 'paymentHistory', ['k-untimed'], EXPIRES);
  return openSession(store, 'club-1');
}

describe('SeenWindow', () => {
  it('finds timed keys from the earliest record time it met, and untimed keys one by one', async () => {
    // Prepare
    const window = new SeenWindow(await storeWith(), 'paymentHistory', NOW);
    const times: Record<string, string | undefined> = {
      'k-new': at(10),
      'k-old': at(120),
      'k-untimed': undefined,
      'k-none': at(5),
    };
    // Act
    const recent = await window.seenAmong(['k-new', 'k-none'], (k) => times[k]);
    const all = await window.seenAmong(['k-old', 'k-untimed', 'k-none'], (k) => times[k]);
    // Assess
    expect([...recent]).toEqual(['k-new']);
    expect([...all].sort()).toEqual(['k-old', 'k-untimed']);
  });

  it("gives a tracked facet its group's earlier values, not its own", async () => {
    // Prepare
    const window = new SeenWindow(await storeWith(), 'paymentHistory', NOW);
    await window.seenAmong(['k-new'], () => at(10));
    // Act
    window.add('k-later', seenTag({ group: 'pay-1', value: 'Dishonoured' }));
    // Assess
    expect(window.earlierValues({ group: 'pay-1', value: 'Dishonoured' })).toEqual(['Approved']);
    expect(window.earlierValues({ group: 'pay-1', value: 'Approved' })).toEqual(['Dishonoured']);
    expect(window.earlierValues({ group: 'pay-2', value: 'Approved' })).toEqual([]);
  });

  it('stores groups hashed and values cut to 256 UTF-8 bytes', () => {
    // Act
    const tag = seenTag({ group: 'pay-1', value: 'é'.repeat(200) });
    // Assess
    expect(tag.group).toBe(fingerprint('G|pay-1').slice(0, 16));
    expect(Buffer.byteLength(tag.value, 'utf8')).toBeLessThanOrEqual(256);
  });
});
