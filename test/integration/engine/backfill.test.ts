/**
 * An explicit backfill (`--backfill-from T`) against the sandbox and dynalite: it publishes every
 * record in [T, now] whatever the regular polls already saw, with the eventIds those polls used,
 * and it leaves the regular polls' cursor (watermark, scan, sweep timing) alone, also when it runs
 * over many invocations.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { BackfillRangeError } from '../../../lambdas/engine/club-poll/poll-source';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { SOURCES } from '../../../lambdas/sources';
import type { Cursor, DynamoDbStateStore } from '../../../lambdas/state';
import { clubContext, useEngineRig } from '../../support/engine-rig';
import { GrowingBudget } from '../../support/growing-budget';
import { pollSourceInSession, seedCursor } from '../../support/state-seeds';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Data events only (operational ones, e.g. Club Data Stale, are not about records). */
const dataEvents = (events: readonly BridgeEvent[]) => events.filter((e) => e.detail.source !== 'bridge');
const ids = (events: readonly BridgeEvent[]) => new Set(dataEvents(events).map((e) => e.detail.eventId));
const sorted = (set: Set<string>) => [...set].sort();

/** The fields of a cursor that belong to the regular polls. */
const regular = (c: Cursor) => ({
  watermark: c.watermark,
  baselineDone: c.baselineDone,
  scan: c.scan,
  lastSweepAtMs: c.stats?.lastSweepAtMs,
});

describe('backfill', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 5,
      clubs: 1,
      members: 150,
      historyDays: 4,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 6,
    },
  });
  const { clients, now, deadline } = rig;
  let club: ClubConfig;
  beforeEach(() => {
    club = { ...rig.firstClub(), piiPolicy: 'full' };
  });

  const ctx = () => clubContext(club);
  const table = (name: string) => rig.newStore(name);

  const poll = (store: DynamoDbStateStore, sink: MemorySink, backfillFromMs?: number) =>
    pollClub({ store, sink, clients, owner: 't', now }, club, {
      deadlineMs: deadline(),
      ...(backfillFromMs === undefined ? {} : { backfillFromMs }),
    });

  it('after a baseline publishes what a backfill on a fresh table publishes, and leaves the regular cursor alone', async () => {
    // Prepare: table A has a baseline; table B is fresh. Same sandbox time for both.
    const from = now() - 3 * DAY;
    const baselined = await table('bf-a');
    const fresh = await table('bf-b');
    await poll(baselined, new MemorySink());
    const before = (await baselined.view(club.clubId).listCursors()).map(regular);
    // Act
    const afterBaseline = new MemorySink();
    const onFresh = new MemorySink();
    const a = await poll(baselined, afterBaseline, from);
    const b = await poll(fresh, onFresh, from);
    // Assess
    expect(a.failures).toEqual([]);
    expect(b.failures).toEqual([]);
    const got = ids(afterBaseline.events);
    const want = ids(onFresh.events);
    expect(want.size).toBeGreaterThan(200);
    expect(sorted(got)).toEqual(sorted(want));
    // The regular polls' cursor fields are the baseline's: the backfill moved none of them.
    expect((await baselined.view(club.clubId).listCursors()).map(regular)).toEqual(before);
    // Nothing pending once it completed.
    for (const c of await baselined.view(club.clubId).listCursors()) {
      expect(c.backfillFrom, c.source).toBeUndefined();
      expect(c.backfillScan, c.source).toBeUndefined();
    }
  });

  /** Event types a backfill reproduces: records (append sources) and first announcements. */
  const BACKFILLED_TYPES = new Set([
    'Member Joined',
    'Prospect Created',
    'Member Visit Recorded',
    'Payment Succeeded',
    'Payment Failed',
    'Payment Refunded',
    'POS Transaction Recorded',
    'Disbursement Recorded',
    'Member Sent To Debt Collection',
    'Class Attendance Recorded',
  ]);

  it('re-publishes what regular polls published with the same eventIds, and the regular polls after it publish what they would have', async () => {
    // Prepare: a control table polled regularly, and a subject table polled the same way plus a
    // backfill; both see the same sandbox at the same times.
    const start = now();
    const control = await table('bf-control');
    const subject = await table('bf-subject');
    await poll(control, new MemorySink());
    await poll(subject, new MemorySink());
    rig.sandbox.advance(3 * 60 * MINUTE);
    const firstControl = new MemorySink();
    const firstSubject = new MemorySink();
    await poll(control, firstControl);
    await poll(subject, firstSubject);
    const regularBefore = (await subject.view(club.clubId).listCursors()).map(regular);
    // Act: a backfill from two days before the baseline.
    const backfilled = new MemorySink();
    const report = await poll(subject, backfilled, start - 2 * DAY);
    // Assess: every record and first announcement the regular poll published is there again, with
    // the same eventId.
    expect(report.failures).toEqual([]);
    const published = dataEvents(firstSubject.events).filter((e) => BACKFILLED_TYPES.has(e.detailType));
    expect(published.length).toBeGreaterThan(20);
    expect(new Set(published.map((e) => e.detailType)).size).toBeGreaterThan(3);
    const again = ids(backfilled.events);
    const missing = published.filter((e) => !again.has(e.detail.eventId));
    expect(missing.map((e) => `${e.detailType} ${e.detail.eventId}`)).toEqual([]);
    // Whatever the regular polls could still say is theirs: the backfill published only its types.
    expect(dataEvents(backfilled.events).filter((e) => !BACKFILLED_TYPES.has(e.detailType))).toEqual([]);
    expect((await subject.view(club.clubId).listCursors()).map(regular)).toEqual(regularBefore);
    // Act: the next regular polls, after more activity.
    rig.sandbox.advance(3 * 60 * MINUTE);
    const nextControl = new MemorySink();
    const nextSubject = new MemorySink();
    await poll(control, nextControl);
    await poll(subject, nextSubject);
    // Assess: the same events as without the backfill (nothing lost, nothing repeated), and the
    // same regular cursors.
    expect(ids(nextControl.events).size).toBeGreaterThan(0);
    expect(sorted(ids(nextSubject.events))).toEqual(sorted(ids(nextControl.events)));
    expect((await subject.view(club.clubId).listCursors()).map(regular)).toEqual(
      (await control.view(club.clubId).listCursors()).map(regular),
    );
  });

  it('runs a long backfill over many invocations beside the regular polls, without moving their watermark', async () => {
    // Prepare: a visits baseline on two tables; the control is polled regularly only.
    const source = SOURCES.visits;
    const control = await table('bf-long-control');
    const subject = await table('bf-long');
    const sink = new MemorySink();
    const controlSink = new MemorySink();
    const deps = (store: DynamoDbStateStore, s: MemorySink) => ({
      store,
      sink: s,
      client: clients.forClub(club, () => {}),
      now,
      owner: 'long',
    });
    await pollSourceInSession(deps(control, controlSink), ctx(), source, { deadlineMs: deadline() });
    await pollSourceInSession(deps(subject, sink), ctx(), source, { deadlineMs: deadline() });
    const baseline = regular(await subject.view(club.clubId).getCursor('visits'));
    const from = now() - 3 * DAY;
    const wanted = rig.sandbox.records(club.clubId, 'visits', {
      fromdate: new Date(from + 12 * 60 * MINUTE).toISOString().slice(0, 19),
    });
    // Act: invocations with little time each; half-way, an hour of new visits.
    const outcomes: string[] = [];
    let advanced = false;
    let regularEventsWhilePending = 0;
    const budget = new GrowingBudget(60); // grows after an invocation that read nothing (load)
    for (let i = 0; i < 400; i++) {
      if (!advanced && outcomes.filter((o) => o === 'partial').length === 5) {
        advanced = true;
        rig.sandbox.advance(60 * MINUTE);
        await pollSourceInSession(deps(control, controlSink), ctx(), source, { deadlineMs: deadline() });
      }
      const report = await pollSourceInSession(deps(subject, sink), ctx(), source, {
        deadlineMs: budget.deadline(),
        reserveMs: 0,
        pageSize: 20,
        ...(i === 0 ? { backfillFromMs: from } : {}),
      });
      budget.after(report.backfill?.pages ?? 0);
      const cursor = await subject.view(club.clubId).getCursor('visits');
      if (!advanced) {
        // Untouched, but for a tail of the regular polls that ran out of this invocation's time.
        const { scan, ...rest } = regular(cursor);
        const { scan: _none, ...atBaseline } = baseline;
        expect(rest).toEqual(atBaseline);
        if (scan) expect((scan as { mode?: string }).mode).toBe('tail');
      }
      if (cursor.backfillFrom !== undefined && report.backfill) {
        regularEventsWhilePending += report.events - report.backfill.events;
      }
      outcomes.push(report.backfill?.outcome ?? 'none');
      if (report.backfill?.outcome === 'completed') break;
    }
    // Assess: it resumed several times and completed; every visit in range was published once.
    expect(outcomes.at(-1)).toBe('completed');
    expect(outcomes.filter((o) => o === 'partial').length).toBeGreaterThan(5);
    expect(advanced).toBe(true);
    // The regular polls ran meanwhile: the new hour's visits were published before the backfill ended.
    expect(regularEventsWhilePending).toBeGreaterThan(0);
    const key = (e: BridgeEvent) => {
      const d = (e.detail as { data: { MemberNumber: string; VisitDateTime: string; Door?: string } }).data;
      return `${d.MemberNumber}|${d.VisitDateTime}|${d.Door ?? ''}`;
    };
    const keys = new Set(sink.events.map(key));
    expect(wanted.length).toBeGreaterThan(200);
    for (const v of wanted) {
      const r = v as { MemberNumber: string; VisitDateTime: string; Door?: string };
      expect(keys.has(`${r.MemberNumber}|${r.VisitDateTime}|${r.Door ?? ''}`)).toBe(true);
    }
    // The regular cursor is the control's (which never backfilled), and nothing is pending.
    const cursor = await subject.view(club.clubId).getCursor('visits');
    expect(regular(cursor)).toEqual(regular(await control.view(club.clubId).getCursor('visits')));
    expect(cursor.backfillFrom).toBeUndefined();
    expect(cursor.backfillScan).toBeUndefined();
    expect(cursor.stats?.lastBackfillFromMs).toBe(from);
    expect(cursor.stats?.lastBackfillPages).toBeGreaterThan(0);
    // Everything the control's regular polls published, the subject published too.
    const subjectIds = ids(sink.events);
    expect([...ids(controlSink.events)].filter((id) => !subjectIds.has(id))).toEqual([]);
  });

  it('refuses a backfill start later than the poll, and records nothing', async () => {
    const store = await table('bf-future');
    const deps = { store, sink: new MemorySink(), client: clients.forClub(club, () => {}), now, owner: 'f' };
    await expect(
      pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline(), backfillFromMs: now() + 1 }),
    ).rejects.toThrow(BackfillRangeError);
    await expect(
      pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline(), backfillFromMs: now() + 1 }),
    ).rejects.toThrow(/backfill start .* is later than the poll's start/);
    await expect(
      pollSourceInSession(deps, ctx(), SOURCES.visits, {
        deadlineMs: deadline(),
        backfillFromMs: Number.NaN,
      }),
    ).rejects.toThrow(BackfillRangeError);
    expect((await store.view(club.clubId).getCursor('visits')).version).toBe(0);
    // A start at the poll's start is fine.
    const report = await pollSourceInSession(deps, ctx(), SOURCES.visits, {
      deadlineMs: deadline(),
      backfillFromMs: now(),
    });
    expect(report.backfill?.outcome).toBe('completed');
  });

  const sourceDeps = (store: DynamoDbStateStore, sink: MemorySink) => ({
    store,
    sink,
    client: clients.forClub(club, () => {}),
    now,
    owner: 'one',
  });

  it('resumes a pending backfill asked for again with the same start, and restarts it for another start', async () => {
    const store = await table('bf-restart');
    const sink = new MemorySink();
    await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, { deadlineMs: deadline() });
    const from = now() - 3 * DAY;
    // A first slice: time for a page or two (more after a slice that read nothing, as under load).
    const budget = new GrowingBudget(60);
    let report = await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, {
      deadlineMs: budget.deadline(),
      reserveMs: 0,
      pageSize: 20,
      backfillFromMs: from,
    });
    budget.after(report.backfill?.pages ?? 0);
    for (
      let i = 0;
      i < 50 && (await store.view(club.clubId).getCursor('visits')).backfillScan === undefined;
      i++
    ) {
      report = await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, {
        deadlineMs: budget.deadline(),
        reserveMs: 0,
        pageSize: 20,
      });
      budget.after(report.backfill?.pages ?? 0);
    }
    expect(report.outcome).toBe('partial');
    const started = (await store.view(club.clubId).getCursor('visits')).backfillScan!;
    expect(started.nextOffset).toBeGreaterThan(0);
    // The same start again (a redelivered message): resumed where it was, its pages counted on.
    const again = await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, {
      deadlineMs: Date.now() + 60,
      reserveMs: 0,
      pageSize: 20,
      backfillFromMs: from,
    });
    const resumed = await store.view(club.clubId).getCursor('visits');
    expect(resumed.backfillFrom).toBe(new Date(from).toISOString());
    expect(resumed.backfillScan).toBeDefined();
    expect(resumed.backfillScan!.pages).toBe(started.pages + again.backfill!.pages);
    // Another start: the backfill begins again from it.
    const later = from + DAY;
    rig.sandbox.advance(MINUTE);
    const restarted = await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, {
      deadlineMs: deadline(),
      pageSize: 20,
      backfillFromMs: later,
    });
    expect(restarted.backfill).toMatchObject({ from: new Date(later).toISOString(), outcome: 'completed' });
    const done = await store.view(club.clubId).getCursor('visits');
    expect(done.backfillFrom).toBeUndefined();
    expect(done.stats?.lastBackfillFromMs).toBe(later);
  });

  it('publishes a record once per invocation when offset drift makes it re-read the scan', async () => {
    const store = await table('bf-drift');
    await pollSourceInSession(sourceDeps(store, new MemorySink()), ctx(), SOURCES.visits, {
      deadlineMs: deadline(),
    });
    rig.sandbox.faults.unstableOrdering = true;
    const sink = new MemorySink();
    const report = await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, {
      deadlineMs: deadline(),
      pageSize: 20,
      backfillFromMs: now() - 2 * DAY,
    });
    rig.sandbox.faults.unstableOrdering = false;
    expect(report.attempts).toBeGreaterThan(1);
    const eventIds = sink.events.map((e) => e.detail.eventId);
    expect(eventIds.length).toBeGreaterThan(100);
    expect(new Set(eventIds).size).toBe(eventIds.length);
  });

  it('takes over a backfill a previous version left in the regular scan, as a pending backfill', async () => {
    // Prepare: a cursor as the previous version wrote it mid-backfill on a fresh table (no baseline).
    const store = await table('bf-upgrade');
    const from = now() - 2 * DAY;
    await seedCursor(store, {
      clubId: club.clubId,
      source: 'visits',
      version: 0,
      baselineDone: false,
      health: { consecutiveFailures: 0 },
      scan: {
        mode: 'backfill',
        fromdate: '2026-05-02T18:00:00',
        backfillFromMs: from,
        nextOffset: 40,
        startedAt: new Date(now()).toISOString(),
        pages: 2,
        records: 40,
        distinct: 40,
      } as never,
    });
    // Act
    const sink = new MemorySink();
    const report = await pollSourceInSession(sourceDeps(store, sink), ctx(), SOURCES.visits, {
      deadlineMs: deadline(),
    });
    // Assess: the regular polls got their baseline, and the backfill ran from its start.
    expect(report.mode).toBe('baseline');
    expect(report.backfill).toMatchObject({ from: new Date(from).toISOString(), outcome: 'completed' });
    expect(report.backfill!.events).toBeGreaterThan(100);
    const cursor = await store.view(club.clubId).getCursor('visits');
    expect(cursor.scan).toBeUndefined();
    expect(cursor.backfillFrom).toBeUndefined();
    expect(cursor.baselineDone).toBe(true);
  });
});
