/** dispatchDueClubs in memory: which clubs get a message, with which sources, and what it costs. */
import { describe, expect, it, vi } from 'vitest';
import { type ClubRecord, MemoryClubRegistry } from '../../../lambdas/clubs';
import type { PollMessage } from '../../../lambdas/common/deployment-contract';
import type { PollQueueEntry } from '../../../lambdas/common/poll-queue';
import { DispatchError, dispatchDueClubs } from '../../../lambdas/engine/dispatch/dispatch-due-clubs';
import { DEFAULT_SOURCES, SOURCE_ORDER } from '../../../lambdas/sources';
import { MemoryStateStore, newCursor, type StateStore } from '../../../lambdas/state';
import { captureLogs, logProblems } from '../../support/log-capture';
import { seedCursor, seedQuota } from '../../support/state-seeds';

const NOW = Date.parse('2026-06-10T12:00:00.000Z');

const club = (clubId: string, extra: Partial<ClubRecord> = {}): ClubRecord => ({
  clubId,
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Europe/London',
  plan: 'basic',
  enabled: true,
  secretName: `gym-bridge/clubs/${clubId}`,
  ...extra,
});

class RecordingQueue {
  readonly batches: PollMessage[][] = [];
  readonly entries: PollQueueEntry[] = [];
  async sendBatch(entries: readonly PollQueueEntry[]): Promise<void> {
    this.batches.push(entries.map((e) => e.message));
    this.entries.push(...entries);
  }
}

/** Stores a cursor polled `agoMs` ago (successfully, quiet). */
async function polled(
  store: StateStore,
  clubId: string,
  agoMs: number,
  extra: { pausedUntil?: string } = {},
) {
  for (const source of SOURCE_ORDER) {
    const at = new Date(NOW - agoMs).toISOString();
    await seedCursor(store, {
      ...newCursor(clubId, source),
      baselineDone: true,
      watermark: at,
      health: { consecutiveFailures: 0, lastPollAt: at, lastSuccessAt: at, ...extra },
      stats: { lastPages: 1, lastRecords: 0, lastEvents: 0 },
    });
  }
}

describe('dispatchDueClubs', () => {
  it('sends one message per club with any source due, with only the due sources', async () => {
    // Prepare: a new club (all due), a club polled 2 h ago (quiet: all due at their maximum
    // intervals, except none), a club polled a minute ago (nothing due), a disabled club.
    const store = new MemoryStateStore();
    const registry = new MemoryClubRegistry([
      club('new-club', { sources: ['visits', 'members'] }),
      club('stale-club'),
      club('fresh-club'),
      club('off-club', { enabled: false }),
    ]);
    await polled(store, 'stale-club', 2 * 60 * 60_000);
    await polled(store, 'fresh-club', 10_000); // polled moments ago: not due (every source runs every minute)
    const queue = new RecordingQueue();
    const seen: string[] = [];
    // Act
    const summary = await dispatchDueClubs({
      registry,
      store,
      queue,
      now: NOW,
      onClub: (c) => seen.push(c.record.clubId),
    });
    // Assess
    expect(queue.batches).toHaveLength(1);
    const messages = queue.batches[0]!;
    expect(messages.map((m) => m.clubId)).toEqual(['new-club', 'stale-club']);
    expect(messages[0]).toEqual({
      clubId: 'new-club',
      sources: ['members', 'visits'],
      dispatchedAt: '2026-06-10T12:00:00.000Z',
    });
    expect(messages[1]!.sources).toEqual(DEFAULT_SOURCES); // no `sources`: the experimental ones are not polled
    expect(summary).toEqual({
      clubs: 3,
      due: 2 + DEFAULT_SOURCES.length,
      probes: 0,
      messages: 2,
      tableReads: 1 + 1, // the registry listing, one BatchGetItem for the three clubs
      failed: 0,
      notReached: 0,
      // stale-club: no success for 2 hours on every source; new-club has nothing to measure from.
      sourcesOverdue: DEFAULT_SOURCES.length,
      oldestSuccessAgeSeconds: 2 * 60 * 60,
    });
    expect(seen.sort()).toEqual(['fresh-club', 'new-club', 'stale-club']);
  });

  it('does not dispatch a paused club, and sends nothing when nothing is due', async () => {
    // Prepare
    const store = new MemoryStateStore();
    await polled(store, 'paused-club', 2 * 60 * 60_000, {
      pausedUntil: new Date(NOW + 60_000).toISOString(),
    });
    const queue = new RecordingQueue();
    // Act
    const summary = await dispatchDueClubs({
      registry: new MemoryClubRegistry([club('paused-club')]),
      store,
      queue,
      now: () => NOW,
    });
    // Assess
    expect(summary.messages).toBe(0);
    expect(queue.batches).toEqual([]);
  });

  it('dispatches the other clubs when one read of club states fails, and fails when none can be read', async () => {
    // Prepare: a store whose batched reads fail when they include a bad club (or always).
    const base = new MemoryStateStore();
    const failing = (bad: (clubId: string) => boolean): StateStore =>
      new Proxy(base, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop === 'readClubStates') {
            return async (clubIds: readonly string[], month: string) => {
              if (clubIds.some(bad)) throw Object.assign(new Error('throttled'), { name: 'StoreError' });
              return target.readClubStates(clubIds, month);
            };
          }
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const registry = new MemoryClubRegistry([club('club-a'), club('club-b')]);
    const queue = new RecordingQueue();
    // Act: one club per read, so the failure is club-a's alone
    const partly = await dispatchDueClubs({
      registry,
      store: failing((id) => id === 'club-a'),
      queue,
      now: NOW,
      readChunk: 1,
    });
    const none = dispatchDueClubs({ registry, store: failing(() => true), queue, now: NOW });
    // Assess
    expect(partly).toMatchObject({ clubs: 2, messages: 1, failed: 1, tableReads: 1 + 2 });
    expect(queue.batches[0]!.map((m) => m.clubId)).toEqual(['club-b']);
    await expect(none).rejects.toBeInstanceOf(DispatchError);
  });

  it('sends as it goes: each hundred is queued while the next is read, and a deadline half-way keeps what was sent', async () => {
    // Prepare: 450 new clubs (all due); the deadline passes during the third read.
    const ids = Array.from({ length: 450 }, (_, i) => `club-${String(i).padStart(3, '0')}`);
    const registry = new MemoryClubRegistry(ids.map((id) => club(id)));
    const base = new MemoryStateStore();
    const order: string[] = [];
    const deadlineMs = Date.now() + 3_600_000;
    const clock = vi.spyOn(Date, 'now');
    const store = new Proxy(base, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === 'readClubStates') {
          return async (clubIds: readonly string[], month: string) => {
            order.push(`read ${clubIds.length}`);
            if (order.filter((o) => o.startsWith('read')).length === 3) clock.mockReturnValue(deadlineMs);
            await new Promise((r) => setTimeout(r, 5));
            return target.readClubStates(clubIds, month);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const queue = {
      batches: [] as PollMessage[][],
      async sendBatch(entries: readonly PollQueueEntry[]) {
        order.push(`send ${entries.length}`);
        await new Promise((r) => setTimeout(r, 1));
        this.batches.push(entries.map((e) => e.message));
      },
    };
    // Act
    let summary: Awaited<ReturnType<typeof dispatchDueClubs>>;
    try {
      summary = await dispatchDueClubs({ registry, store, queue, now: NOW, deadlineMs });
    } finally {
      clock.mockRestore();
    }
    // Assess: three reads of a hundred; the first hundred's messages went out before the last read
    expect(order.filter((o) => o === 'read 100')).toHaveLength(3);
    expect(order.filter((o) => o === 'send 100')).toHaveLength(3);
    expect(order.indexOf('send 100')).toBeLessThan(order.lastIndexOf('read 100'));
    expect(queue.batches.flat().map((m) => m.clubId)).toEqual(ids.slice(0, 300));
    expect(summary).toMatchObject({ clubs: 450, messages: 300, notReached: 150, tableReads: 1 + 3 });
  });

  it('holds a club back when what is left of its month budget is spent', async () => {
    // Prepare: budget spent (900,000 of a basic plan, 10% reserve).
    const store = new MemoryStateStore();
    await polled(store, 'spent-club', 2 * 60 * 60_000);
    await seedQuota(store, 'spent-club', '2026-06', 900_000);
    const queue = new RecordingQueue();
    // Act
    const spent = await dispatchDueClubs({
      registry: new MemoryClubRegistry([club('spent-club')]),
      store,
      queue,
      now: NOW,
    });
    const lowerReserve = await dispatchDueClubs({
      registry: new MemoryClubRegistry([club('spent-club')]),
      store,
      queue,
      now: NOW,
      reserve: 0.05,
    });
    // Assess
    expect(spent.messages).toBe(0);
    expect(lowerReserve.messages).toBe(1);
  });

  it('logs one line per overdue club/source with its reason, and counts none for a fresh or paused club', async () => {
    // Prepare: a club whose visits keep failing for 40 minutes, a fresh club, a paused club.
    const store = new MemoryStateStore();
    await polled(store, 'failing-club', 10_000);
    const failing = await store.view('failing-club').getCursor('visits');
    await seedCursor(store, {
      ...failing,
      health: {
        ...failing.health,
        lastSuccessAt: new Date(NOW - 40 * 60_000).toISOString(),
        consecutiveFailures: 9,
        lastError: {
          kind: 'unavailable',
          message: 'HTTP 503 from the API',
          at: new Date(NOW - 10_000).toISOString(),
        },
      },
    });
    await polled(store, 'fresh-club', 30_000);
    await polled(store, 'paused-club', 3 * 60 * 60_000, {
      pausedUntil: new Date(NOW + 60 * 60_000).toISOString(),
    });
    const logs = captureLogs();
    // Act
    let summary: Awaited<ReturnType<typeof dispatchDueClubs>>;
    try {
      summary = await dispatchDueClubs({
        registry: new MemoryClubRegistry([club('failing-club'), club('fresh-club'), club('paused-club')]),
        store,
        queue: new RecordingQueue(),
        now: NOW,
      });
    } finally {
      logs.stop();
    }
    // Assess
    expect(summary.sourcesOverdue).toBe(1);
    expect(summary.oldestSuccessAgeSeconds).toBe(40 * 60);
    const overdue = logs.lines.filter((l) => l.message === 'source overdue');
    expect(overdue).toHaveLength(1);
    expect(overdue[0]).toMatchObject({
      level: 'WARN',
      clubId: 'failing-club',
      source: 'visits',
      sinceSuccessSeconds: 2400,
      cadenceSeconds: 60,
      allowedSeconds: 15 * 60,
      consecutiveFailures: 9,
      lastErrorKind: 'unavailable',
      reason: 'HTTP 503 from the API',
    });
    expect(logProblems(logs.lines)).toEqual([]);
  });

  it('queues the fast-lane probes behind the minute poll of an active club, each at its moment', async () => {
    // Prepare: an active club (a visit 2 minutes ago, polled a minute ago), a quiet one, one with the lane off.
    const store = new MemoryStateStore();
    const registry = new MemoryClubRegistry([
      club('busy-club'),
      club('quiet-club'),
      club('off-club', { fastLane: { enabled: false } }),
    ]);
    for (const clubId of ['busy-club', 'quiet-club', 'off-club']) {
      await polled(store, clubId, 60_000);
      const visits = (await store.view(clubId).listCursors()).find((c) => c.source === 'visits')!;
      const lastVisit = clubId === 'quiet-club' ? NOW - 3 * 3_600_000 : NOW - 120_000;
      await seedCursor(store, { ...visits, watermark: new Date(lastVisit).toISOString() });
    }
    const queue = new RecordingQueue();
    // Act
    const summary = await dispatchDueClubs({ registry, store, queue, now: NOW });
    // Assess
    expect(summary.messages).toBe(3);
    expect(summary.probes).toBe(3);
    const byClub = (id: string) => queue.entries.filter((e) => e.message.clubId === id);
    const busy = byClub('busy-club');
    expect(busy.map((e) => [e.message.lane ?? 'minute', e.notBeforeMs ?? NOW])).toEqual([
      ['minute', NOW],
      ['fast', NOW + 15_000],
      ['fast', NOW + 30_000],
      ['fast', NOW + 45_000],
    ]);
    expect(busy[0]!.message.probes).toEqual({ count: 3, until: new Date(NOW + 60_000).toISOString() });
    expect(busy[1]!.message).toEqual({
      clubId: 'busy-club',
      sources: ['visits'],
      dispatchedAt: new Date(NOW).toISOString(),
      lane: 'fast',
    });
    for (const id of ['quiet-club', 'off-club']) {
      expect(byClub(id)).toHaveLength(1);
      expect(byClub(id)[0]!.message.probes).toBeUndefined();
    }
  });
});
