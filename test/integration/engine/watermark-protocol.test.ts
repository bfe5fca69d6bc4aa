/**
 * The watermark protocol's promises, each against the sandbox and dynalite: one poller per
 * club/source, publish-then-commit (a crash re-publishes the same eventIds, nothing is lost),
 * resumable scans, an explicit backfill, and a failed poll advancing nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { type ClientFactory, GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { type EventSink, MemorySink, PublishError } from '../../../lambdas/events/publisher';
import { SOURCE_ORDER, SOURCES } from '../../../lambdas/sources';
import { toFilterValue } from '../../../lambdas/sources/record-time';
import { DynamoDbStateStore, StoreError } from '../../../lambdas/state';
import { type BridgeStateStore, decorateStore } from '../../../lambdas/state/state-store';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { clubContext, useEngineRig } from '../../support/engine-rig';
import { actualKeys, compare, expectedKeys } from '../../support/ground-truth';
import { GrowingBudget } from '../../support/growing-budget';
import { pollSourceInSession } from '../../support/state-seeds';

const MINUTE = 60_000;

describe('watermark protocol', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 3,
      clubs: 1,
      members: 150,
      historyDays: 2,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 6,
    },
  });
  const { clients, now, deadline } = rig;
  let store: DynamoDbStateStore;
  let club: ClubConfig;

  beforeEach(async () => {
    store = await rig.newStore('wm');
    // Every source, the experimental classAttendance too (opt-in: not in the default sources).
    club = { ...rig.firstClub(), piiPolicy: 'full', sources: [...SOURCE_ORDER] };
  });

  const ctx = () => clubContext(club);

  it('lets exactly one of two racing pollers scan a club/source', async () => {
    // Prepare: both pollers use the same store; the club lease decides (one poller per club).
    const visitsOnly: ClubConfig = { ...club, sources: ['visits'] };
    const deps = (owner: string, sink: EventSink) => ({ store, sink, clients, now, owner });
    const visitsOutcome = (report: Awaited<ReturnType<typeof pollClub>>) =>
      report.sources.find((s) => s.source === 'visits')?.outcome;
    // Act
    const [a, b] = await Promise.all([
      pollClub(deps('poller-a', new MemorySink()), visitsOnly, { deadlineMs: deadline() }),
      pollClub(deps('poller-b', new MemorySink()), visitsOnly, { deadlineMs: deadline() }),
    ]);
    // Assess
    const outcomes = [visitsOutcome(a), visitsOutcome(b)].sort();
    expect(outcomes).toEqual(['completed', 'skipped']);
    const cursor = await store.view(club.clubId).getCursor('visits');
    // One poll's cursor writes: the fresh-read mark before its first seen write, then its commit.
    expect(cursor.version).toBe(2);
    // The lease is released: a later poll by either proceeds.
    const later = await pollClub(deps('poller-b', new MemorySink()), visitsOnly, { deadlineMs: deadline() });
    expect(visitsOutcome(later)).toBe('completed');
  });

  it('re-publishes the same eventIds after a crash between publish and commit, and loses nothing', async () => {
    // Prepare: a baseline, then activity.
    const sink = new MemorySink();
    await pollClub({ store, sink, clients, owner: 't', now }, club, { deadlineMs: deadline() });
    const baselineSeq = rig.sandbox.journal.lastSeq;
    const baselineWatermarks = (await store.view(club.clubId).listCursors()).map((c) => [
      c.source,
      c.watermark,
    ]);
    rig.sandbox.advance(90 * MINUTE);
    const boundary = rig.sandbox.journal.lastSeq;
    // A store whose seen/snapshot writes fail once: the "crash" after PutEvents succeeded.
    let failWrites = true;
    const crashing = decorateStore(store, async (method, _args, call) => {
      if (failWrites && (method === 'putSeen' || method === 'putSeenAt' || method === 'putSnapshots'))
        throw new StoreError('simulated crash after publish');
      return call();
    });
    // Act: the crashing poll publishes some events, then fails every source.
    const crashed = await pollClub({ store: crashing, sink, clients, owner: 't', now }, club, {
      deadlineMs: deadline(),
    });
    const firstTryCount = sink.events.length;
    // Operational events (here Club Data Stale: 90 minutes without a success) are not data changes.
    const firstTry = sink.events.filter((e) => e.detail.source !== 'bridge');
    failWrites = false;
    const watermarksAfterCrash = (await store.view(club.clubId).listCursors()).map((c) => [
      c.source,
      c.watermark,
    ]);
    await pollClub({ store, sink, clients, owner: 't', now }, club, { deadlineMs: deadline() });
    // Assess
    expect(crashed.outcome).toBe('failed');
    expect(firstTry.length).toBeGreaterThan(0);
    expect(crashed.failures.every((f) => f.kind === 'store')).toBe(true);
    const secondTry = sink.events.slice(firstTryCount);
    const retriedIds = new Set(secondTry.map((e) => e.detail.eventId));
    for (const e of firstTry) expect(retriedIds.has(e.detail.eventId), e.detailType).toBe(true);
    // The failed poll advanced no watermark: they are still the baseline's.
    expect(watermarksAfterCrash).toEqual(baselineWatermarks);
    // Nothing missing, nothing made up (duplicates carry identical ids).
    const unique = new Map(sink.events.map((e) => [e.detail.eventId, e] as const));
    const result = compare(
      expectedKeys(rig.sandbox.journal.entries(baselineSeq), [boundary]),
      actualKeys([...unique.values()]),
    );
    expect(result.missing).toEqual([]);
    expect(result.spurious).toEqual([]);
  });

  it('does not move the watermark when a poll fails', async () => {
    const sink = new MemorySink();
    await pollClub({ store, sink, clients, owner: 't', now }, club, { deadlineMs: deadline() });
    const before = await store.view(club.clubId).getCursor('visits');
    rig.sandbox.advance(30 * MINUTE);
    const failing: EventSink = {
      publish: async (events: readonly BridgeEvent[]) => {
        if (events.length)
          throw new PublishError('EventBridge down', {
            failedEventIds: events.map((e) => e.detail.eventId),
            attempts: 1,
          });
      },
    };
    const report = await pollClub({ store, sink: failing, clients, owner: 't', now }, club, {
      deadlineMs: deadline(),
      sources: ['visits'],
    });
    const after = await store.view(club.clubId).getCursor('visits');
    expect(report.failures).toEqual([expect.objectContaining({ source: 'visits', kind: 'publish' })]);
    expect(after.watermark).toBe(before.watermark);
    expect(after.health.lastError?.kind).toBe('publish');
    expect(after.health.consecutiveFailures).toBe(1);
  });

  it('resumes a scan that ran out of time, and backfills explicitly from a date', async () => {
    // Prepare: a 2-day backfill of visits in pages of 20, with a deadline too short to finish.
    const sink = new MemorySink();
    const backfillFromMs = now() - 2 * 24 * 60 * MINUTE;
    const source = SOURCES.visits;
    const deps = { store, sink, client: clients.forClub(club, () => {}), now, owner: 'resumer' };
    // Act: invocations with a deadline a moment away, until one completes (the budget grows after
    // an invocation that read nothing, as on a loaded machine: support/growing-budget.ts).
    const outcomes: string[] = [];
    const budget = new GrowingBudget(40);
    for (let i = 0; i < 2000; i++) {
      const report = await pollSourceInSession(deps, ctx(), source, {
        deadlineMs: budget.deadline(),
        reserveMs: 0,
        pageSize: 20,
        ...(i === 0 ? { backfillFromMs } : {}),
      });
      budget.after(report.pages);
      outcomes.push(report.outcome);
      if (report.outcome === 'completed') break;
    }
    // Assess: several partial invocations, then completion; every visit since the date, once.
    expect(outcomes.at(-1)).toBe('completed');
    expect(outcomes.filter((o) => o === 'partial').length).toBeGreaterThan(1);
    const visits = rig.sandbox.records(club.clubId, 'visits', {
      fromdate: new Date(backfillFromMs + 60_000).toISOString().slice(0, 19),
    });
    const published = new Set(
      sink.events.map(
        (e) =>
          `${(e.detail as { data: { MemberNumber: string; VisitDateTime: string } }).data.MemberNumber}|${(e.detail as { data: { VisitDateTime: string } }).data.VisitDateTime}`,
      ),
    );
    expect(visits.length).toBeGreaterThan(100);
    const ids = sink.events.map((e) => e.detail.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(published.size).toBeGreaterThanOrEqual(visits.length);
    const cursor = await store.view(club.clubId).getCursor('visits');
    expect(cursor.scan).toBeUndefined();
    expect(cursor.baselineDone).toBe(true);
  });
  it('quarantines an invalid record once, with the field path, and processes the rest of the page', async () => {
    // Prepare: a baseline, then one page with a good visit and a visit whose date breaks the pattern.
    const sink = new MemorySink();
    const deps = { store, sink, client: clients.forClub(club, () => {}), now, owner: 'q' };
    await pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline() });
    const good = {
      MemberNumber: '100001',
      Door: 'Main Entrance',
      ScanSource: 'Kiosk',
      VisitDateTime: '2026-05-04T18:01:02',
    };
    const bad = {
      MemberNumber: '100002',
      Door: 'Main Entrance',
      ScanSource: 'Kiosk',
      VisitDateTime: '04/05/2026 18:02',
    };
    const body = JSON.stringify({ href: `${rig.sandbox.url}/members/attendance/visits`, data: [good, bad] });
    const forced = { body, contentType: 'application/json', pathPrefix: '/members/attendance/visits' };
    rig.sandbox.failNext(2, 200, forced);
    // Act: two polls see the same bad record.
    const first = await pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline() });
    const second = await pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline() });
    // Assess
    expect(first.outcome).toBe('completed');
    expect(first.quarantined).toBe(1);
    expect(second.quarantined).toBe(0);
    const quarantined = await store.parts.quarantine.listQuarantined(club.clubId, 'visits');
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]!.reason).toContain('VisitDateTime');
    expect(
      sink.events.map((e) => (e.detail as { data: { MemberNumber: string } }).data.MemberNumber),
    ).toEqual(['100001']);
    const cursor = await store.view(club.clubId).getCursor('visits');
    expect(cursor.stats?.totalQuarantined).toBe(1);
  });
  it('completes a scan whose rows really share an identity (a door scanned twice in one second)', async () => {
    const sink = new MemorySink();
    const deps = { store, sink, client: clients.forClub(club, () => {}), now, owner: 'dup' };
    await pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline() });
    const visit = {
      MemberNumber: '100001',
      Door: 'Main Entrance',
      ScanSource: 'Kiosk',
      VisitDateTime: '2026-05-04T18:01:02',
    };
    const body = JSON.stringify({
      href: `${rig.sandbox.url}/members/attendance/visits`,
      data: [visit, visit],
    });
    rig.sandbox.failNext(2, 200, {
      body,
      contentType: 'application/json',
      pathPrefix: '/members/attendance/visits',
    });
    const report = await pollSourceInSession(deps, ctx(), SOURCES.visits, { deadlineMs: deadline() });
    expect(report.outcome).toBe('completed');
    expect(report.attempts).toBe(1); // a repeat inside one response is real data, not drift
    expect(sink.events).toHaveLength(1);
  });
});

describe('overlap re-reads: the window and the seen checks', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  beforeAll(async () => {
    db = await startDynalite();
    sandbox = await startSandbox({
      seed: 8,
      clubs: 1,
      members: 120,
      historyDays: 2,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 6,
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await db.close();
  });
  const now = () => sandbox.clock.now().getTime();

  /** A client factory that records every query's filter per operation. */
  function recordingClients() {
    const inner = new GymApiClientFactory();
    const queries: { operation: string; query: Record<string, string> }[] = [];
    const factory: ClientFactory = {
      forClub(club, onRequest) {
        const client = inner.forClub(club, onRequest);
        return new Proxy(client, {
          get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver);
            if (prop !== 'pages' || typeof value !== 'function') return value;
            return (operation: string, query: Record<string, string>, ...rest: unknown[]) => {
              queries.push({ operation, query: { ...query } });
              return value.call(target, operation, query, ...rest);
            };
          },
        });
      },
    };
    return { factory, queries };
  }

  /** Counts the store's seen-set reads: keys read one by one, and range reads. */
  function countingStore(inner: BridgeStateStore) {
    const counts = { perKey: 0, ranges: 0 };
    const store = decorateStore(inner, (method, args, call) => {
      if (method === 'filterSeen') counts.perKey += (args[2] as string[]).length;
      if (method === 'seenSince' || method === 'seenEntriesSince') counts.ranges++;
      return call();
    });
    return { store, counts };
  }

  it.each([
    [true, 60 * MINUTE],
    [false, 15 * 60 * MINUTE],
  ])(
    'unstatedZoneConfirmed %s: payment history re-reads %i ms behind its watermark; seen keys are read by range, not one by one',
    async (confirmed, lookbackMs) => {
      const base = parseClubsFile(sandbox.clubsFile())[0]!;
      const club: ClubConfig = { ...base, unstatedZoneConfirmed: confirmed };
      const table = await createTestTable(db.client, `overlap-${confirmed}`);
      const { store, counts } = countingStore(
        new DynamoDbStateStore({ client: db.client, tableName: table, now }),
      );
      const { factory, queries } = recordingClients();
      const sink = new MemorySink();
      const poll = () =>
        pollClub({ store, sink, clients: factory, owner: 'o', now }, club, {
          deadlineMs: Date.now() + 60_000,
        });
      await poll(); // baseline
      sandbox.advance(30 * MINUTE);
      await poll(); // events since the baseline
      const published = sink.events.length;
      const cursor = await store.view(club.clubId).getCursor('paymentHistory');
      queries.length = 0;
      counts.perKey = 0;
      counts.ranges = 0;
      // Act: a poll with nothing new re-reads every source's overlap.
      await poll();
      // Assess: the payment query starts one lookback behind the watermark (in the club's zone).
      const payments = queries.find((q) => q.operation === 'paymentHistory');
      const expected = toFilterValue(Date.parse(cursor.watermark!) - lookbackMs, 'unstated', {
        timeZone: club.timeZone,
        unstatedZone: club.unstatedZone,
      });
      expect(payments?.query.fromdate).toBe(expected);
      // Nothing re-published; the append sources' rows were checked with range reads (at most one per
      // source and attempt), no key one by one.
      expect(sink.events.length).toBe(published);
      expect(counts.perKey).toBe(0);
      const appendSources = Object.values(SOURCES).filter((s) => s.kind === 'append').length;
      expect(counts.ranges).toBeGreaterThan(0);
      expect(counts.ranges).toBeLessThanOrEqual(appendSources);
    },
  );
});
