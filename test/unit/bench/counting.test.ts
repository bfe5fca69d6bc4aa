import { describe, expect, it } from 'vitest';
import { CountingSink } from '../../../bench/counting-sink';
import { CountingStateStore } from '../../../bench/counting-store';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { createEvent } from '../../../lambdas/events/envelope';
import { MemoryStateStore } from '../../../lambdas/state';

describe('CountingStateStore', () => {
  it('passes calls through and counts the DynamoDB requests and units they would cost', async () => {
    // Prepare
    const store = new CountingStateStore(new MemoryStateStore());
    const keys = Array.from({ length: 230 }, (_, i) => `fp-${i}`);

    // Act
    await store.putSeen('club-1', 'visits', keys, 2_000_000_000);
    const seen = await store.filterSeen('club-1', 'visits', [...keys.slice(0, 10), 'unknown'], 1_000_000_000);
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
    const store = new CountingStateStore(new MemoryStateStore());
    await store.filterSeen('club-1', 'visits', ['a', 'b', 'c', 'd'], 1_000_000_000, {
      consistentRead: false,
    });
    expect(store.take().readUnits).toBe(2);
  });

  it('reports a versioned cursor write conflict as the wrapped store does', async () => {
    const store = new CountingStateStore(new MemoryStateStore());
    const cursor = await store.getCursor('club-1', 'members');
    await store.putCursor(cursor);
    await expect(store.putCursor(cursor)).rejects.toThrow(/no longer at version 0/);
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
