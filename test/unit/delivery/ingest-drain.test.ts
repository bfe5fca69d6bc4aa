/**
 * The fan-out draining the ingest queue (lambdas/delivery/ingest-drain.ts), on a fake clock and a
 * queue in memory: receives paced (at once after a full one), the drain ended by an empty receive,
 * by its budget or by a queue that cannot be read; a record deleted only once its deliveries were
 * all attempted or queued, ten a delete; one given back, or whose delete failed, comes back.
 */
import { describe, expect, it } from 'vitest';
import type { IncomingEvent } from '../../../lambdas/delivery/fan-out';
import {
  drainIngest,
  type IngestMessage,
  type IngestQueue,
  nextPace,
  PACE_MAX_MS,
  PACE_MIN_MS,
} from '../../../lambdas/delivery/ingest-drain';

/** A queue whose messages become visible at given times; receives and deletes recorded. */
class FakeIngest implements IngestQueue {
  readonly receivedAt: number[] = [];
  readonly deletes: string[][] = [];
  failDeletes = false;
  failReceives = false;
  constructor(
    private readonly clock: { now: number },
    private pending: { at: number; id: string }[],
  ) {}
  async receive(max: number): Promise<IngestMessage[]> {
    if (this.failReceives) throw new Error('AccessDenied');
    this.receivedAt.push(this.clock.now);
    const ready = this.pending.filter((m) => m.at <= this.clock.now).slice(0, max);
    this.pending = this.pending.filter((m) => !ready.includes(m));
    return ready.map((m) => ({ messageId: m.id, receiptHandle: `rh-${m.id}`, body: m.id }));
  }
  async delete(handles: readonly string[]): Promise<void> {
    if (this.failDeletes) throw new Error('throttled');
    this.deletes.push([...handles]);
  }
}

function rig(arrivals: { at: number; id: string }[]) {
  const clock = { now: 0 };
  const queue = new FakeIngest(clock, arrivals);
  const fannedOut: string[][] = [];
  const options = {
    untilMs: 10_000,
    paceMs: 250,
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.now += ms;
    },
  };
  const fanOut = async (events: readonly IncomingEvent[]) => {
    fannedOut.push(events.map((e) => e.recordId));
    return { failedRecordIds: events.filter((e) => e.body.startsWith('bad')).map((e) => e.recordId) };
  };
  return { clock, queue, fannedOut, options, fanOut };
}

const ids = (n: number, at = 0, prefix = 'm') =>
  Array.from({ length: n }, (_, i) => ({ at, id: `${prefix}${String(i).padStart(2, '0')}` }));

describe('draining the ingest queue', () => {
  it('receives at once after a full receive, paced otherwise; deletes ten at a time; an empty receive ends it', async () => {
    // Prepare: 23 waiting, 4 more at 200 ms, 2 more at 900 ms.
    const r = rig([...ids(23), ...ids(4, 200, 'n'), ...ids(2, 900, 'o')]);
    // Act
    const out = await drainIngest(r.queue, r.fanOut, r.options);
    // Assess: 10, 10, 3 at once; the next 250 ms after the one that was not full (the 4 of 200 ms);
    // 4 of a wanted 9: the pace lengthens to its 500 ms; at 750 ms nothing: the drain ends (the 2
    // of 900 ms are left to the event source).
    expect(r.fannedOut.map((b) => b.length)).toEqual([10, 10, 3, 4]);
    expect(r.queue.receivedAt).toEqual([0, 0, 0, 250, 750]);
    expect(out).toEqual({ receives: 5, messages: 27, comeBack: 0 });
    expect(r.queue.deletes.map((d) => d.length)).toEqual([10, 10, 7]);
  });

  it('keeps a record whose deliveries were not all queued, and one whose delete failed: they come back', async () => {
    const r = rig([...ids(3), { at: 0, id: 'bad-1' }]);
    const out = await drainIngest(r.queue, r.fanOut, r.options);
    expect(out.comeBack).toBe(1);
    expect(r.queue.deletes.flat()).toEqual(['rh-m00', 'rh-m01', 'rh-m02']);

    const failing = rig(ids(5));
    failing.queue.failDeletes = true;
    expect((await drainIngest(failing.queue, failing.fanOut, failing.options)).comeBack).toBe(5);
  });

  it('stops receiving at its budget however busy the queue, and when the queue cannot be read', async () => {
    // Prepare: a message every 100 ms for a minute; a budget of 2 s.
    const busy = rig(Array.from({ length: 600 }, (_, i) => ({ at: i * 100, id: `b${i}` })));
    const out = await drainIngest(busy.queue, busy.fanOut, { ...busy.options, untilMs: 2_000 });
    expect(Math.max(...busy.queue.receivedAt)).toBeLessThan(2_000);
    // At once, then 250 ms (2 of a wanted 9: the pace goes to its 500 ms), 750, 1,250, 1,750.
    expect(busy.queue.receivedAt).toEqual([0, 250, 750, 1_250, 1_750]);
    expect(out.messages).toBe(18); // those of 0 to 1,700 ms

    const unreadable = rig(ids(5));
    unreadable.queue.failReceives = true;
    expect(await drainIngest(unreadable.queue, unreadable.fanOut, unreadable.options)).toEqual({
      receives: 0,
      messages: 0,
      comeBack: 0,
    });
  });

  it('ends when a paced receive brings fewer than the minimum (events too sparse to pay), after fanning them out', async () => {
    // 10 and 2 at once (the 2 right after a full receive: not sparse), 2 more by 250 ms (sparse).
    const r = rig([...ids(10), ...ids(2, 0, 'x'), ...ids(2, 100, 'y'), ...ids(10, 300, 'z')]);
    const out = await drainIngest(r.queue, r.fanOut, { ...r.options, minMessages: 3 });
    expect(r.fannedOut.map((b) => b.length)).toEqual([10, 2, 2]);
    expect(r.queue.receivedAt).toEqual([0, 0, 250]);
    expect(out).toEqual({ receives: 3, messages: 14, comeBack: 0 });
  });

  it('waits the pace after a full receive that emptied the queue, rather than ending', async () => {
    const r = rig([...ids(10), ...ids(5, 200, 'y')]);
    const out = await drainIngest(r.queue, r.fanOut, { ...r.options, minMessages: 3 });
    // 5 at 250 ms of a wanted 9: the next 450 ms later, empty: the drain ends.
    expect(r.queue.receivedAt).toEqual([0, 0, 250, 700]);
    expect(out).toEqual({ receives: 4, messages: 15, comeBack: 0 });
  });

  it('receives no more while too many receives are still being delivered (back-pressure)', async () => {
    const r = rig(ids(40));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const slowFanOut = async (events: readonly IncomingEvent[]) => {
      started++;
      if (started <= 2) await gate;
      return r.fanOut(events);
    };
    const draining = drainIngest(r.queue, slowFanOut, { ...r.options, maxInFlight: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Two receives held: no third yet.
    expect(r.queue.receivedAt).toHaveLength(2);
    release();
    const out = await draining;
    expect(out.messages).toBe(40);
  });

  it('makes its first receive at once: empty, it ends the drain; with leftovers, the drain goes on at the pace', async () => {
    const quiet = rig([{ at: 300, id: 'late' }]);
    expect(await drainIngest(quiet.queue, quiet.fanOut, { ...quiet.options, minMessages: 3 })).toEqual({
      receives: 1,
      messages: 0,
      comeBack: 0,
    });
    // One leftover at once (not sparse: the first), 6 more by 250 ms, none 375 ms later.
    const r = rig([...ids(1), ...ids(6, 100, 'y')]);
    const out = await drainIngest(r.queue, r.fanOut, { ...r.options, minMessages: 3 });
    expect(r.queue.receivedAt).toEqual([0, 250, 625]);
    expect(out).toEqual({ receives: 3, messages: 7, comeBack: 0 });
  });

  it('paces its receives to the arrivals: about 9 a receive, within its bounds', async () => {
    // 40 events a second for 5 s: the pace settles near 9 / 40 s = 225 ms.
    const r = rig(Array.from({ length: 200 }, (_, i) => ({ at: i * 25, id: `s${i}` })));
    await drainIngest(r.queue, r.fanOut, { ...r.options, untilMs: 5_000 });
    const gaps = r.queue.receivedAt
      .slice(-8)
      .map((t, i, all) => (i === 0 ? 0 : t - all[i - 1]!))
      .slice(1);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(250);
    expect(nextPace(250, 1)).toBe(PACE_MAX_MS);
    expect(nextPace(110, 10)).toBe(PACE_MIN_MS);
    expect(nextPace(200, 9)).toBe(200);
  });
});
