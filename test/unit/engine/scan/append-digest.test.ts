import { describe, expect, it } from 'vitest';
import { AppendDetection, DIGEST_BUFFER_ROWS } from '../../../../lambdas/engine/scan/append-detection';
import { publishPageEvents } from '../../../../lambdas/engine/scan/publish-commit';
import { MemorySink } from '../../../../lambdas/events/publisher';
import { SOURCES } from '../../../../lambdas/sources';
import type { AppendSource } from '../../../../lambdas/sources/source';
import { MemoryStateStore } from '../../../../lambdas/state';
import { decorateStore } from '../../../../lambdas/state/state-store';
import type { SeenSinceOptions } from '../../../../lambdas/state/store';
import { openSession } from '../../../support/state-seeds';
import { disbursement, sydneyUtc } from '../../sources/fixtures';

const disbursements = SOURCES.disbursements as AppendSource;
const NOW = sydneyUtc.observedAtMs;
const local = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** A disbursement of member `m`, `hoursAgo` before the scan (UTC: the club reads unstated times so). */
const row = (m: string, hoursAgo: number) => {
  const item = disbursement({ MemberNumber: m, TransactionDate: local(NOW - hoursAgo * 3_600_000) });
  return { id: disbursements.identity(item as never)!, item };
};

/** Thirty disbursements over the 32-hour tail: a window that mostly does not change. */
const window = Array.from({ length: 30 }, (_, i) => row(`M${i}`, i + 0.5));

/** The memory store with the ranges of seen entries read (the port's seenEntriesSince) counted. */
function countingStore() {
  const store = Object.assign(
    decorateStore(new MemoryStateStore(), (method, args, call) => {
      if (method === 'seenEntriesSince') {
        const [, , fromAt, , options] = args as [string, string, string, number, SeenSinceOptions?];
        store.ranges.push({ fromAt, ...(options?.toAt ? { toAt: options.toAt } : {}) });
      }
      return call();
    }),
    { ranges: [] as { fromAt: string; toAt?: string }[] },
  );
  return store;
}

async function setup() {
  const store = countingStore();
  const session = await openSession(store, sydneyUtc.clubId);
  const sink = new MemorySink();
  /** One tail scan over `records` (split in pages of 7), flushed and finished as SourceScan does. */
  const tail = async (records: typeof window, mode: 'tail' | 'sweep' = 'tail') => {
    store.ranges = [];
    const before = sink.events.length;
    const detection = new AppendDetection(session, sydneyUtc, disbursements, NOW, async (page, q) => {
      await publishPageEvents(sink, page, q);
    });
    for (let i = 0; i < records.length; i += 7) await detection.detect(records.slice(i, i + 7), { mode }, []);
    expect(sink.events.length).toBe(before);
    await detection.flush();
    await detection.finish();
    return sink.events.slice(before).map((e) => (e.detail as { data: { MemberNumber: string } }).data);
  };
  return { store, sink, tail };
}

describe('AppendDetection with a seen digest', () => {
  it('reads no seen entry for a window the digest vouches for, and still finds a late row', async () => {
    // Prepare
    const { store, tail } = await setup();
    const first = await tail(window);
    // Act
    const again = await tail(window);
    const readAgain = store.ranges.length;
    const late = await tail([...window, row('LATE', 20.25)]);
    const lateRanges = store.ranges;
    // Assess
    expect(first).toHaveLength(30);
    expect(again).toEqual([]);
    expect(readAgain).toBe(0);
    expect(late.map((d) => d.MemberNumber)).toEqual(['LATE']);
    // Only the late row's hour is read.
    expect(lateRanges).toEqual([
      {
        fromAt: new Date(Math.floor((NOW - 20.25 * 3_600_000) / 3_600_000) * 3_600_000).toISOString(),
        toAt: new Date((Math.floor((NOW - 20.25 * 3_600_000) / 3_600_000) + 1) * 3_600_000).toISOString(),
      },
    ]);
  });

  it('a row replaced by another in the same hour (same count) is published', async () => {
    // Prepare
    const { tail } = await setup();
    await tail(window);
    const replaced = window.map((r, i) => (i === 5 ? row('NEW', 5.75) : r));
    // Act
    const found = await tail(replaced);
    // Assess
    expect(found.map((d) => d.MemberNumber)).toEqual(['NEW']);
  });

  it('without a stored digest (or an unreadable one) the seen set decides, and the digest is written', async () => {
    // Prepare
    const { store, tail } = await setup();
    await tail(window);
    await store.parts.seen.putSeenDigest(
      sydneyUtc.clubId,
      'disbursements',
      Uint8Array.from([7, 7, 7]),
      NOW / 1000 + 3600,
    );
    // Act
    const unreadable = await tail(window);
    const readUnreadable = store.ranges.length;
    const after = await tail(window);
    // Assess
    expect(unreadable).toEqual([]);
    expect(readUnreadable).toBeGreaterThan(0);
    expect(after).toEqual([]);
    expect(store.ranges).toEqual([]);
  });

  it('holds at most DIGEST_BUFFER_ROWS rows before it detects them', async () => {
    // Prepare
    const { sink } = await setup();
    const session = await openSession(new MemoryStateStore(), sydneyUtc.clubId);
    const detection = new AppendDetection(session, sydneyUtc, disbursements, NOW, async (page, q) => {
      await publishPageEvents(sink, page, q);
    });
    const many = Array.from({ length: DIGEST_BUFFER_ROWS }, (_, i) => row(`B${i}`, 1 + (i % 30)));
    // Act
    await detection.detect(many.slice(0, -1), { mode: 'tail' }, []);
    const held = sink.events.length;
    await detection.detect(many.slice(-1), { mode: 'tail' }, []);
    // Assess
    expect(held).toBe(0);
    expect(sink.events).toHaveLength(DIGEST_BUFFER_ROWS);
  });
});
