/**
 * Operational events owed until delivered (club-poll/announcer.ts) and when a pause starts an
 * episode (operational-events.ts), on the in-memory store and sink: no sockets.
 */
import { describe, expect, it } from 'vitest';
import {
  Announcer,
  MAX_OWED_EVENTS,
  withOwed,
  withoutOwed,
} from '../../../../lambdas/engine/club-poll/announcer';
import { cursorAfterFailure } from '../../../../lambdas/engine/cursor/cursor-life';
import type { BridgeEvent } from '../../../../lambdas/events/catalog';
import { MemorySink } from '../../../../lambdas/events/publisher';
import {
  quotaEvent,
  startsPauseEpisode,
  unavailableEvent,
} from '../../../../lambdas/sources/operational-events';
import { MemoryStateStore } from '../../../../lambdas/state';
import {
  type Cursor,
  type CursorStore,
  newCursor,
  type OwedEvent,
  type SourceName,
  StoreError,
} from '../../../../lambdas/state/store';
import { captureLogs } from '../../../support/log-capture';
import { openSession, seedCursor } from '../../../support/state-seeds';

const MINUTE = 60_000;
const NOW = Date.parse('2026-06-10T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const club = { clubId: 'club-1', plan: 'basic' as const, piiPolicy: 'minimal' as const };

const thresholdAt = (ms: number) => quotaEvent(club, 'rate-limited', 10, ms);
const cursorOf = (source: SourceName, health: Partial<Cursor['health']> = {}): Cursor => ({
  ...newCursor('club-1', source),
  health: { consecutiveFailures: 0, ...health },
});

describe('withOwed / withoutOwed', () => {
  it('owes each eventId once, drops the oldest past the cap, and forgets what was delivered', () => {
    // Prepare
    const events = Array.from({ length: MAX_OWED_EVENTS + 2 }, (_, i) => thresholdAt(NOW + i * MINUTE));
    // Act
    let cursor = cursorOf('members');
    for (const e of events) cursor = withOwed(cursor, e);
    const again = withOwed(cursor, events.at(-1)!);
    const ids = (c: Cursor | undefined) => c?.health.owedEvents?.map((e) => e.detail.eventId);
    const kept = ids(cursor)!;
    const less = withoutOwed(cursor, new Set(kept.slice(0, 3)));
    const none = withoutOwed(cursor, new Set(['not-owed']));
    const empty = withoutOwed(cursor, new Set(kept));
    // Assess
    expect(kept).toEqual(events.slice(2).map((e) => e.detail.eventId));
    expect(again).toBe(cursor);
    expect(ids(less)).toEqual(kept.slice(3));
    expect(none).toBeUndefined();
    expect(empty?.health).not.toHaveProperty('owedEvents');
  });
});

describe('startsPauseEpisode', () => {
  const refusedAt = (source: SourceName, kind: 'auth' | 'quota', atMs: number, failures = 1) =>
    cursorOf(source, {
      consecutiveFailures: failures,
      lastError: { kind, message: 'refused', at: iso(atMs) },
      pausedUntil: iso(atMs + 5 * MINUTE),
    });
  const succeededAt = (source: SourceName, atMs: number) => cursorOf(source, { lastSuccessAt: iso(atMs) });

  it.each([
    ['nothing refused before', [succeededAt('members', NOW - MINUTE)], true],
    [
      'the refused source in a run since the last success',
      [refusedAt('members', 'auth', NOW - 10 * MINUTE)],
      false,
    ],
    [
      'another source in a run since the last success',
      [succeededAt('members', NOW - 30 * MINUTE), refusedAt('visits', 'auth', NOW - 10 * MINUTE, 2)],
      false,
    ],
    ['a run of the other kind', [refusedAt('visits', 'quota', NOW - 10 * MINUTE)], true],
    [
      'a run before a later success of another source',
      [refusedAt('visits', 'auth', NOW - 10 * MINUTE), succeededAt('members', NOW - 5 * MINUTE)],
      true,
    ],
    ['a run reset by clubs resume', [refusedAt('visits', 'auth', NOW - 10 * MINUTE, 0)], true],
    [
      'a refusal at the same instant as the success (a clock that stood still)',
      [refusedAt('visits', 'auth', NOW), succeededAt('members', NOW)],
      false,
    ],
  ] as const)('%s: %s', (_label, cursors, expected) => {
    expect(startsPauseEpisode('auth', cursors)).toBe(expected);
  });
});

describe('Announcer', () => {
  const setup = async (cursors: Cursor[]) => {
    const store = new MemoryStateStore();
    for (const c of cursors) await seedCursor(store, c);
    const session = await openSession(store, 'club-1');
    const sink = new MemorySink();
    const announcer = new Announcer({ store: session, sink, club, now: () => NOW });
    return { store, session, sink, announcer };
  };
  const owing = (source: SourceName, ...events: BridgeEvent[]) =>
    events.reduce((c, e) => withOwed(c, e), cursorOf(source));
  /** What the cursor owes, as the poll's session holds it or (after its close) as stored. */
  const owedIds = async (cursors: Pick<CursorStore, 'getCursor'>, source: SourceName) =>
    (await cursors.getCursor(source)).health.owedEvents?.map((e) => e.detail.eventId) ?? [];

  it('delivers what a cursor owes first; a failed publish keeps it owed for the next poll', async () => {
    // Prepare
    const mark = {
      kind: 'not-found',
      reason: 'HTTP 404',
      status: 404,
      since: iso(NOW - MINUTE),
      checkedAt: iso(NOW - MINUTE),
      retryAt: iso(NOW + 6 * 60 * MINUTE),
    };
    const owed = unavailableEvent(club, 'classAttendance', mark, true, NOW - MINUTE);
    const { store, session, sink, announcer } = await setup([owing('classAttendance', owed)]);
    sink.failNext();
    // Act: a poll whose publish fails, then the next one
    await announcer.catchUp(await session.listCursors(), 30 * MINUTE);
    await session.close();
    const stillOwed = await owedIds(store.view('club-1'), 'classAttendance');
    const nextSession = await openSession(store, 'club-1');
    const next = new Announcer({ store: nextSession, sink, club, now: () => NOW + MINUTE });
    const after = await next.catchUp(await nextSession.listCursors(), 30 * MINUTE);
    await nextSession.close();
    // Assess
    expect(stillOwed).toEqual([owed.detail.eventId]);
    expect(announcer.delivered).toEqual([]);
    expect(sink.events).toEqual([owed]);
    expect(next.delivered.map((e) => e.detail.eventId)).toEqual([owed.detail.eventId]);
    expect(after.find((c) => c.source === 'classAttendance')?.health.owedEvents).toBeUndefined();
    expect(await owedIds(store.view('club-1'), 'classAttendance')).toEqual([]);
  });

  it('drops an owed event the catalog refuses, with an ERROR line, and delivers the others', async () => {
    // Prepare
    const good = thresholdAt(NOW - MINUTE);
    const bad = { detailType: 'Club Quota Low', detail: { eventId: 'e-1', used: 'many' } } as OwedEvent;
    const cursor = owing('members', good);
    cursor.health.owedEvents = [bad, ...cursor.health.owedEvents!];
    const { store, session, sink, announcer } = await setup([cursor]);
    const logs = captureLogs();
    // Act
    try {
      await announcer.catchUp(await session.listCursors(), 30 * MINUTE);
      await session.close();
    } finally {
      logs.stop();
    }
    // Assess
    const dropped = logs.lines.filter((l) => l.level === 'ERROR');
    expect(dropped.map((l) => [l.message, l.eventId])).toEqual([
      ['owed operational event dropped: the catalog refuses it', 'e-1'],
    ]);
    expect(JSON.stringify(dropped[0])).toMatch(/used/);
    expect(sink.events).toEqual([good]);
    expect(await owedIds(store.view('club-1'), 'members')).toEqual([]);
  });

  it('announces a stale episode a failure recorded without its notice, once', async () => {
    // Prepare: visits failed 40 minutes after its last success, no notice; members refused (a pause
    // is announced as such, never as stale)
    const failed = cursorAfterFailure(
      cursorOf('visits', { lastSuccessAt: iso(NOW - 50 * MINUTE) }),
      { kind: 'unavailable', message: '503' },
      NOW - 10 * MINUTE,
    );
    const refused = cursorAfterFailure(
      cursorOf('members', { lastSuccessAt: iso(NOW - 50 * MINUTE) }),
      { kind: 'auth', message: '401' },
      NOW - 10 * MINUTE,
    );
    const early = cursorAfterFailure(
      cursorOf('prospects', { lastSuccessAt: iso(NOW - 30 * MINUTE) }),
      { kind: 'unavailable', message: '503' },
      NOW - 10 * MINUTE,
    );
    const { store, session, sink, announcer } = await setup([failed, refused, early]);
    // Act
    await announcer.catchUp(await session.listCursors(), 30 * MINUTE);
    await announcer.catchUp(await session.listCursors(), 30 * MINUTE);
    await session.close();
    // Assess: visits only (prospects' failure came 20 minutes after its success), once
    expect(sink.ofType('Club Data Stale').map((e) => e.detail.staleSource)).toEqual(['visits']);
    expect(sink.events).toHaveLength(1);
    expect(sink.events[0]!.detail).toMatchObject({ lastSuccessAt: iso(NOW - 50 * MINUTE), ageSeconds: 3000 });
    expect((await store.view('club-1').getCursor('visits')).health).toMatchObject({
      staleNotifiedAt: iso(NOW),
    });
    expect(await owedIds(store.view('club-1'), 'visits')).toEqual([]);
  });

  it('returns the cursors as written when a write of the catch-up took effect and then failed', async () => {
    // Prepare: the session's checkpoint that the notice's write triggers fails after the write
    const failed = cursorAfterFailure(
      cursorOf('visits', { lastSuccessAt: iso(NOW - 50 * MINUTE) }),
      { kind: 'unavailable', message: '503' },
      NOW - 10 * MINUTE,
    );
    const { store, session, sink } = await setup([failed]);
    const checkpointFails: CursorStore = {
      getCursor: (source) => session.getCursor(source),
      listCursors: () => session.listCursors(),
      putCursor: async (cursor: Cursor) => {
        await session.putCursor(cursor);
        throw new StoreError('the checkpoint failed (throttled past all retries)');
      },
    };
    const announcer = new Announcer({ store: checkpointFails, sink, club, now: () => NOW });
    // Act
    const after = await announcer.catchUp(await session.listCursors(), 30 * MINUTE);
    await session.close();
    // Assess: the notice and its owed event in memory, and the cursors returned are those (a source
    // polled from the ones read before would lose its write to a version conflict)
    const visits = after.find((c) => c.source === 'visits');
    expect(visits).toEqual(await store.view('club-1').getCursor('visits'));
    expect(visits?.health).toMatchObject({ staleNotifiedAt: iso(NOW) });
    expect(visits?.health.owedEvents).toHaveLength(1);
  });

  it("owes a club-level event on the club's first cursor until delivered", async () => {
    // Prepare
    const event = quotaEvent(club, 'threshold', 800_000, NOW);
    const { store, session, sink, announcer } = await setup([cursorOf('visits'), cursorOf('members')]);
    sink.failNext();
    // Act
    const first = await announcer.announceForClub(event);
    const owedAfterFailure = await owedIds(session, 'members');
    const second = await announcer.announceForClub(event);
    await session.close();
    // Assess
    expect([first, second]).toEqual([false, true]);
    expect(owedAfterFailure).toEqual([event.detail.eventId]);
    expect(await owedIds(store.view('club-1'), 'members')).toEqual([]);
    expect(sink.events.map((e) => e.detail.eventId)).toEqual([event.detail.eventId]);
  });
});
