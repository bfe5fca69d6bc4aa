/**
 * dispatchDueClubs as N shards side by side, and with the period spread: every club dispatched by
 * exactly one shard, which reads only its clubs' state; each club's message visible at its own
 * second of the period, the same every period, so its polls stay a period apart.
 */
import { describe, expect, it } from 'vitest';
import { type ClubRecord, MemoryClubRegistry } from '../../../lambdas/clubs';
import { clubPhaseSeconds, clubShardIndex } from '../../../lambdas/common/club-shard';
import type { PollQueueEntry } from '../../../lambdas/common/poll-queue';
import { dispatchDueClubs } from '../../../lambdas/engine/dispatch/dispatch-due-clubs';
import { SOURCE_ORDER } from '../../../lambdas/sources';
import { MemoryStateStore, newCursor, type StateStore } from '../../../lambdas/state';
import { seedCursor } from '../../support/state-seeds';

const NOW = Date.parse('2026-06-10T12:00:00.000Z');
const MINUTE = 60_000;

const club = (clubId: string): ClubRecord => ({
  clubId,
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Europe/London',
  plan: 'basic',
  enabled: true,
  secretName: `gym-bridge/clubs/${clubId}`,
});
const ids = (n: number) => Array.from({ length: n }, (_, i) => `club-${String(i).padStart(4, '0')}`);

class RecordingQueue {
  readonly entries: PollQueueEntry[] = [];
  async sendBatch(entries: readonly PollQueueEntry[]): Promise<void> {
    this.entries.push(...entries);
  }
}

/** A store that records which clubs' state each shard read. */
function recordingStore(inner: StateStore, read: string[]): StateStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'readClubStates') {
        return (clubIds: readonly string[], month: string) => {
          read.push(...clubIds);
          return target.readClubStates(clubIds, month);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Records a successful poll of every source of the club that started at `atMs` and took 2 s. */
async function polledAt(store: StateStore, clubId: string, atMs: number) {
  const at = new Date(atMs + 2000).toISOString();
  for (const source of SOURCE_ORDER) {
    const cursor = (await store.view(clubId).listCursors()).find((c) => c.source === source);
    await seedCursor(store, {
      ...(cursor ?? newCursor(clubId, source)),
      baselineDone: true,
      watermark: at,
      health: { consecutiveFailures: 0, lastPollAt: at, lastSuccessAt: at },
      stats: { lastPages: 1, lastRecords: 0, lastEvents: 0 },
    });
  }
}

describe('dispatchDueClubs in shards', () => {
  it('dispatches every club by exactly one of N shards, each reading only its own clubs', async () => {
    // Prepare: 300 clubs, all due (never polled).
    const all = ids(300);
    const registry = new MemoryClubRegistry(all.map(club));
    const store = new MemoryStateStore();
    const shards = 5;
    // Act: the five shards side by side.
    const runs = await Promise.all(
      Array.from({ length: shards }, async (_, index) => {
        const queue = new RecordingQueue();
        const read: string[] = [];
        const summary = await dispatchDueClubs({
          registry,
          store: recordingStore(store, read),
          queue,
          now: NOW,
          shard: { index, count: shards },
        });
        return { index, summary, read, sent: queue.entries.map((e) => e.message.clubId) };
      }),
    );
    // Assess
    const sent = runs.flatMap((r) => r.sent);
    expect([...sent].sort()).toEqual(all);
    for (const run of runs) {
      expect(run.sent.length).toBeGreaterThan(0);
      for (const id of [...run.sent, ...run.read]) expect(clubShardIndex(id, shards)).toBe(run.index);
      expect([...run.read].sort()).toEqual([...run.sent].sort());
      expect(run.summary.clubs).toBe(run.sent.length);
    }
  });
});

describe('dispatchDueClubs with the period spread', () => {
  it('queues each club to become visible at its second of the period, the same every period, early ones first', async () => {
    // Prepare: 600 clubs, never polled.
    const all = ids(600);
    const registry = new MemoryClubRegistry(all.map(club));
    const store = new MemoryStateStore();
    const offsets: Map<string, number>[] = [];
    // Act: two periods (nothing is written between them: every club is due in both).
    for (const periodStartMs of [NOW, NOW + MINUTE]) {
      const queue = new RecordingQueue();
      await dispatchDueClubs({
        registry,
        store,
        queue,
        now: periodStartMs,
        periodStartMs,
        spreadSeconds: 60,
      });
      const moments = queue.entries.map((e) => e.notBeforeMs ?? Number.NaN);
      // Sent in the order of their moments.
      expect(moments).toEqual([...moments].sort((a, b) => a - b));
      offsets.push(
        new Map(queue.entries.map((e) => [e.message.clubId, (e.notBeforeMs ?? 0) - periodStartMs])),
      );
    }
    // Assess: inside the period, the club's phase, stable from one period to the next, flat per second.
    const [first, second] = offsets;
    expect(first!.size).toBe(600);
    const perSecond = new Array(60).fill(0);
    for (const id of all) {
      const offset = first!.get(id)!;
      expect(offset).toBe(clubPhaseSeconds(id, 60) * 1000);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(MINUTE);
      expect(second!.get(id)).toBe(offset);
      perSecond[offset / 1000]++;
    }
    // 10 a second on average: no second of the minute gets a burst (all 600 at once before).
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(25);
    expect(perSecond.filter((n) => n > 0).length).toBeGreaterThanOrEqual(55);
  });

  it("keeps each club's polls one period apart, from a run that starts late too", async () => {
    // Prepare: 120 clubs polled at their moment of the previous minute.
    const all = ids(120);
    const registry = new MemoryClubRegistry(all.map(club));
    const store = new MemoryStateStore();
    for (const id of all) await polledAt(store, id, NOW - MINUTE + clubPhaseSeconds(id, 60) * 1000);
    const polls = new Map<string, number[]>();
    // Act: five minutes; each run starts 1.5 s into its minute (a cold start); each message is
    // polled when it becomes visible (its moment, or at once when that has passed).
    for (let m = 0; m < 5; m++) {
      const periodStartMs = NOW + m * MINUTE;
      const runMs = periodStartMs + 1500;
      const queue = new RecordingQueue();
      await dispatchDueClubs({ registry, store, queue, now: runMs, periodStartMs, spreadSeconds: 60 });
      // The minute's polls (a club active a moment ago also gets its fast-lane probes behind them).
      for (const { message, notBeforeMs } of queue.entries.filter((e) => e.message.lane === undefined)) {
        const startedMs = Math.max(runMs, notBeforeMs ?? runMs);
        polls.set(message.clubId, [...(polls.get(message.clubId) ?? []), startedMs]);
        await polledAt(store, message.clubId, startedMs);
      }
    }
    // Assess: every club polled every minute, its polls exactly a minute apart.
    for (const id of all) {
      const times = polls.get(id) ?? [];
      expect(times, id).toHaveLength(5);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, id).toBe(MINUTE);
    }
  });

  it('without a spread, decides every club as of the run and queues it for at once', async () => {
    const queue = new RecordingQueue();
    await dispatchDueClubs({
      registry: new MemoryClubRegistry(ids(20).map(club)),
      store: new MemoryStateStore(),
      queue,
      now: NOW,
    });
    expect(queue.entries).toHaveLength(20);
    expect(queue.entries.every((e) => e.notBeforeMs === undefined)).toBe(true);
  });
});
