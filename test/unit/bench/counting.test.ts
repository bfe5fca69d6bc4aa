import { describe, expect, it } from 'vitest';
import { CountingSink } from '../../../bench/counting-sink';
import { countingStore, queryCost } from '../../../bench/counting-store';
import { itemBytes } from '../../../bench/dynamo-units';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { createEvent } from '../../../lambdas/events/envelope';
import { MemoryStateStore } from '../../../lambdas/state';
import { packSeenAt } from '../../../lambdas/state/seen-packs';
import { seedCursor } from '../../support/state-seeds';

describe('CountingStateStore', () => {
  it('passes calls through and counts the DynamoDB requests and units they would cost', async () => {
    // Prepare
    const store = countingStore(new MemoryStateStore());
    const keys = Array.from({ length: 230 }, (_, i) => `fp-${i}`);

    // Act
    await store.parts.seen.putSeen('club-1', 'visits', keys, 2_000_000_000);
    const seen = await store.parts.seen.filterSeen(
      'club-1',
      'visits',
      [...keys.slice(0, 10), 'unknown'],
      1_000_000_000,
    );
    const counts = store.take();

    // Assess
    expect(seen.size).toBe(10);
    expect(counts.calls).toEqual({ putSeen: 1, filterSeen: 1 });
    expect(counts.apiRequests).toBe(Math.ceil(230 / 25) + 1);
    expect(counts.writeUnits).toBe(230);
    expect(counts.readUnits).toBe(11); // a missing key costs a read too
    expect(counts.byMethod.filterSeen).toEqual({ items: 11, readUnits: 11, writeUnits: 0 });
    expect(store.take().apiRequests).toBe(0);
  });

  it('counts half a read unit per key for an eventually consistent seen check', async () => {
    const store = countingStore(new MemoryStateStore());
    await store.parts.seen.filterSeen('club-1', 'visits', ['a', 'b', 'c', 'd'], 1_000_000_000, {
      consistentRead: false,
    });
    expect(store.take().readUnits).toBe(2);
  });

  it('counts a strongly consistent snapshot or seen digest read at a whole unit, an eventual one at half', async () => {
    // Prepare
    const store = countingStore(new MemoryStateStore());
    await store.parts.snapshots.putSnapshots('club-1', 'MEMBER', [
      { id: 'M1', hash: 'h', fields: { status: 'Active' }, updatedAt: '2026-03-10T12:00:00.000Z' },
    ]);
    await store.parts.seen.putSeenDigest('club-1', 'visits', new Uint8Array(12), 2_000_000_000);
    store.take();

    // Act
    const units = async (read: () => Promise<unknown>) => {
      await read();
      return store.take().readUnits;
    };
    const snapshots = (consistentRead: boolean) =>
      units(() => store.parts.snapshots.getSnapshots('club-1', 'MEMBER', ['M1', 'M2'], { consistentRead }));
    const digest = (consistentRead: boolean) =>
      units(() => store.parts.seen.getSeenDigest('club-1', 'visits', 1_000_000_000, { consistentRead }));

    // Assess: a found and a missing snapshot; the digest, found
    expect([await snapshots(false), await snapshots(true)]).toEqual([1, 2]);
    expect([await digest(false), await digest(true)]).toEqual([0.5, 1]);
  });

  it('counts time-ordered seen writes as the packs the adapter writes: one item and unit per hour here', async () => {
    // Prepare: 60 entries 3 minutes apart, 20 in each of three hours, 5 of them given twice
    const store = countingStore(new MemoryStateStore());
    const at = (i: number) => new Date(Date.UTC(2026, 10, 22) + i * 180_000).toISOString();
    const entries = Array.from({ length: 60 }, (_, i) => ({ fingerprint: `fp-${i}`, at: at(i) }));

    // Act: a range of the first hour's second half, ending where the second hour starts
    await store.parts.seen.putSeenAt('club-1', 'visits', [...entries, ...entries.slice(0, 5)], 2_000_000_000);
    const seen = await store.parts.seen.seenSince('club-1', 'visits', at(10), 1_000_000_000, {
      toAt: at(20),
    });
    const counts = store.take();

    // Assess: three packs under 1 KB; the Query reads the first hour's pack only
    expect(seen.size).toBe(10);
    expect(counts.calls).toEqual({ putSeenAt: 1, seenSince: 1 });
    expect(counts.byMethod.putSeenAt).toEqual({ items: 3, readUnits: 0, writeUnits: 3 });
    expect(counts.byMethod.seenSince).toEqual({ items: 1, readUnits: 0.5, writeUnits: 0 });
    expect(counts.apiRequests).toBe(1 + 1);
  });

  it('counts a seen range as one Query per 1 MB page of packs, 4 KB per read unit, halved when eventually consistent', async () => {
    // Prepare: 40,000 entries with 27-character fingerprints (as the engine makes them), a
    // millisecond apart: one hour, 1.5 MB of packs of at most 32 KB
    const store = countingStore(new MemoryStateStore());
    const pk = 'CLUB#club-1#SEENT#visits';
    const at = (i: number) => new Date(Date.UTC(2026, 10, 22) + i).toISOString();
    const fp = (i: number) => `fp${String(i).padStart(25, '0')}`;
    const entries = Array.from({ length: 40_000 }, (_, i) => ({ fingerprint: fp(i), at: at(i) }));
    await store.parts.seen.putSeenAt('club-1', 'visits', entries, 2_000_000_000);
    const sizes = packSeenAt(pk, entries).map(({ sk, p }) =>
      itemBytes({ pk, sk, expiresAt: 2_000_000_000, w: 1e12, p }),
    );
    let first = 0;
    let inFirst = 0;
    while (first < 1024 * 1024) first += sizes[inFirst++] as number;
    const second = sizes.slice(inFirst).reduce((a, b) => a + b, 0);
    expect(second).toBeGreaterThan(0);
    const units = Math.ceil(first / 4096) + Math.ceil(second / 4096);
    store.take();

    // Act
    const eventual = await store.parts.seen.seenSince('club-1', 'visits', at(0), 1_000_000_000);
    const eventualCounts = store.take();
    await store.parts.seen.seenSince('club-1', 'visits', at(0), 1_000_000_000, { consistentRead: true });
    const strongCounts = store.take();
    await store.parts.seen.seenSince('club-1', 'visits', at(5), 1_000_000_000, { toAt: at(5) });
    const emptyRangeCounts = store.take();

    // Assess
    expect(eventual.size).toBe(40_000);
    expect(eventualCounts).toMatchObject({ apiRequests: 2, itemsRead: sizes.length, readUnits: units / 2 });
    expect(strongCounts).toMatchObject({ apiRequests: 2, itemsRead: sizes.length, readUnits: units });
    expect(emptyRangeCounts).toMatchObject({ calls: { seenSince: 1 }, apiRequests: 0, readUnits: 0 });
  });

  it('prices a Query that ends on a full page with one more, empty, page', () => {
    expect(queryCost([], false)).toEqual({ requests: 1, units: 0.5 });
    expect(queryCost([512 * 1024, 512 * 1024], true)).toEqual({ requests: 2, units: 256 + 1 });
    expect(queryCost([512 * 1024, 512 * 1024 - 20, 10], true)).toEqual({ requests: 1, units: 256 });
    expect(queryCost([1024 * 1024 - 1, 10, 10], true)).toEqual({ requests: 2, units: 257 + 1 });
  });

  it('reports a versioned cursor write conflict as the wrapped store does', async () => {
    const store = countingStore(new MemoryStateStore());
    const cursor = await store.view('club-1').getCursor('members');
    await seedCursor(store, cursor);
    await expect(seedCursor(store, cursor)).rejects.toThrow(/no longer at version 0/);
  });
});

describe('CountingSink', () => {
  it('validates, batches by 10 and counts billed 64 KB chunks like EventBridgeSink would send them', async () => {
    // Prepare
    const seen: number[] = [];
    const sink = new CountingSink((events) => seen.push(events.length));
    const events = Array.from({ length: 23 }, (_, i) =>
      createEvent(
        DETAIL_TYPES.ClubDataStale,
        { clubId: 'club-1', identity: [String(i)], occurredAt: new Date(0), subject: {} },
        { staleSource: 'visits', ageSeconds: i },
      ),
    );

    // Act
    await sink.publish(events);
    const counts = sink.take();

    // Assess
    expect(counts.events).toBe(23);
    expect(counts.putEventsRequests).toBe(3);
    expect(counts.billedEvents).toBe(23);
    expect(counts.byDetailType).toEqual({ 'Club Data Stale': 23 });
    expect(seen).toEqual([23]);
  });

  it('refuses an invalid event, as the real sink does', async () => {
    const sink = new CountingSink();
    await expect(sink.publish([{ detailType: 'Nope', detail: {} } as never])).rejects.toThrow();
    expect(sink.counts.events).toBe(0);
  });
});
