import { describe, expect, it } from 'vitest';
import {
  batchEntries,
  entrySize,
  MAX_ENTRIES_PER_REQUEST,
  MAX_REQUEST_BYTES,
  toEntry,
} from '../../../lambdas/events/put-events-batches';
import { visitEvents } from './fixtures';

describe('entrySize (as AWS documents it)', () => {
  it('counts 14 bytes for Time and the UTF-8 bytes of Source, DetailType, Detail and Resources', () => {
    const entry = {
      Source: 'gym-bridge',
      DetailType: 'Member Joined',
      Detail: '{"name":"Zoë"}',
      Resources: ['arn:a', 'arn:bc'],
      EventBusName: 'not-counted',
    };
    expect(entrySize(entry)).toBe(10 + 13 + 15 + 5 + 6);
    expect(entrySize({ ...entry, Time: new Date() })).toBe(10 + 13 + 15 + 5 + 6 + 14);
  });

  it('is what toEntry records for an event', () => {
    const [event] = visitEvents(1);
    const prepared = toEntry(event!, 'gym-bridge', 'bus');
    expect(prepared.size).toBe(
      14 +
        'gym-bridge'.length +
        'Member Visit Recorded'.length +
        Buffer.byteLength(JSON.stringify(event!.detail)),
    );
    expect(prepared.eventId).toBe(event!.detail.eventId);
  });
});

describe('batchEntries', () => {
  const sized = (sizes: number[]) => sizes.map((size, i) => ({ id: i, size }));

  it('starts a new request after 10 entries', () => {
    const batches = batchEntries(sized(Array.from({ length: 23 }, () => 100)));
    expect(batches.map((b) => b.length)).toEqual([10, 10, 3]);
    expect(MAX_ENTRIES_PER_REQUEST).toBe(10);
  });

  it('starts a new request before the total would reach 256 KB, keeping order', () => {
    const big = 100 * 1024;
    const batches = batchEntries(sized([big, big, big, 10, big]));
    expect(batches.map((b) => b.map((e) => e.id))).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
    for (const batch of batches) {
      expect(batch.reduce((s, e) => s + e.size, 0)).toBeLessThan(256 * 1024);
    }
  });

  it('fits an entry of exactly the largest allowed size alone, and refuses a larger one', () => {
    expect(batchEntries(sized([MAX_REQUEST_BYTES, 1])).map((b) => b.length)).toEqual([1, 1]);
    expect(() => batchEntries(sized([MAX_REQUEST_BYTES + 1]))).toThrow(RangeError);
  });

  it('returns no batches for no entries', () => {
    expect(batchEntries([])).toEqual([]);
  });
});
