/**
 * A source whose endpoint is missing for a club never breaks the club (issue 12): the sandbox (real
 * HTTP) answers 404 on GET /members/attendance/classes, state in dynalite (real DynamoDB protocol).
 *
 * - With the default sources (no `sources` in the club), classAttendance is not polled at all, and
 *   every other source publishes exactly what the ground-truth journal says.
 * - With classAttendance listed and polled first on its own, the 404 marks it unavailable: the
 *   club's poll is 'ok', the other sources publish, one Club Source Unavailable event and one WARN
 *   line with the reason; `status` shows it; the next polls do not ask the endpoint before its
 *   retryAt nor announce it again; after retryAt a working endpoint clears the mark.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clubStatus, renderStatus } from '../../../cli/commands/status';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import {
  type ClubReport,
  pollClub,
  UNAVAILABLE_RETRY_MS,
  type UnavailableSourceReport,
} from '../../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DEFAULT_SOURCES, SOURCE_ORDER } from '../../../lambdas/sources';
import { DynamoDbStateStore, type SourceName } from '../../../lambdas/state';
import { useEngineRig } from '../../support/engine-rig';
import { actualKeys, compare, expectedKeys } from '../../support/ground-truth';
import { captureLogs, type LogCapture, logProblems } from '../../support/log-capture';

const MINUTE = 60_000;
const CLASSES = '/members/attendance/classes';

describe('a source whose endpoint is missing for the club', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 23,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', members: 80, open24h: true }],
      historyDays: 1,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 12,
    },
    pollMs: 30_000,
  });
  let store: DynamoDbStateStore;
  let sink: MemorySink;
  let requested: string[];
  let logs: LogCapture | undefined;

  beforeEach(async () => {
    store = new DynamoDbStateStore({ client: rig.db.client, tableName: await rig.newTable('unavail') });
    sink = new MemorySink();
    requested = [];
  });
  afterEach(() => {
    logs?.stop();
    logs = undefined;
  });

  const clients = () =>
    new GymApiClientFactory({
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      fetch: (input, init) => {
        requested.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
        return fetch(input, init);
      },
    });
  const poll = (club: ClubConfig, sources?: SourceName[]): Promise<ClubReport> =>
    pollClub({ store, sink, clients: clients(), owner: 'unavail', now: rig.now }, club, {
      deadlineMs: rig.deadline(),
      ...(sources ? { sources } : {}),
    });
  const classRequests = () => requested.filter((p) => p.endsWith(CLASSES)).length;
  const opsEvents = () => sink.events.filter((e) => e.detailType === 'Club Source Unavailable');
  /** The journal's expected data events (class attendance excluded) against what was published. */
  const compareData = (sinceSeq: number, boundaries: number[], events: readonly BridgeEvent[]) => {
    const expected = expectedKeys(rig.sandbox.journal.entries(sinceSeq), boundaries);
    for (const key of [...expected.keys()]) if (key.startsWith('CA|')) expected.delete(key);
    return compare(
      expected,
      actualKeys(events.filter((e) => e.detail.source !== 'bridge' && e.detail.source !== 'classAttendance')),
    );
  };

  it('default sources: classAttendance is not polled, every other source publishes, the club is ok', async () => {
    // Prepare: a club as the clubs file gives it (no `sources`), the classes endpoint missing
    const club = parseClubsFile(rig.sandbox.clubsFile())[0]!;
    expect(club.sources).toBeUndefined();
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: CLASSES });
    const baseline = await poll(club);
    const seq = rig.sandbox.journal.lastSeq;
    rig.sandbox.advance(45 * MINUTE);
    const boundary = rig.sandbox.journal.lastSeq;
    // Act
    const report = await poll(club);
    // Assess
    for (const r of [baseline, report]) {
      expect(r.outcome).toBe('ok');
      expect(r.failures).toEqual([]);
      expect(r.sources.map((s) => s.source).sort()).toEqual([...DEFAULT_SOURCES].sort());
    }
    expect(report.sources.every((s) => s.outcome === 'completed')).toBe(true);
    expect(classRequests()).toBe(0);
    const result = compareData(seq, [boundary], sink.events);
    expect(result.expected).toBeGreaterThan(5);
    expect(result.missing).toEqual([]);
    expect(result.spurious).toEqual([]);
    expect(opsEvents()).toEqual([]);
  }, 60_000);

  it('listed and polled first on its own: marked unavailable once, the club ok, re-tried only after retryAt', async () => {
    // Prepare: every source listed; the others have a baseline, so classAttendance (never polled)
    // goes first, alone, in the next poll.
    const club = { ...parseClubsFile(rig.sandbox.clubsFile())[0]!, sources: [...SOURCE_ORDER] };
    await poll(
      club,
      SOURCE_ORDER.filter((s) => s !== 'classAttendance'),
    );
    const seq = rig.sandbox.journal.lastSeq;
    rig.sandbox.advance(60 * MINUTE);
    const boundary = rig.sandbox.journal.lastSeq;
    rig.sandbox.failNext(1, 404, { pathPrefix: CLASSES });
    logs = captureLogs();

    // Act 1: the endpoint answers 404
    const first = await poll(club);
    const firstAt = rig.sandbox.clock.now().getTime();

    // Assess 1
    expect(first.outcome).toBe('ok');
    expect(first.failures).toEqual([]);
    expect(first.sources[0]!.source).toBe('classAttendance'); // the source polled alone
    const unavailable = first.sources[0] as UnavailableSourceReport;
    expect(unavailable).toMatchObject({
      outcome: 'unavailable',
      checked: true,
      unavailable: {
        kind: 'not-found',
        status: 404,
        since: new Date(firstAt).toISOString(),
        retryAt: new Date(firstAt + UNAVAILABLE_RETRY_MS).toISOString(),
      },
    });
    expect(unavailable.unavailable.reason).toMatch(/HTTP 404/);
    expect(first.sources.slice(1).every((s) => s.outcome === 'completed')).toBe(true);
    expect(first.sources).toHaveLength(SOURCE_ORDER.length);
    const result = compareData(seq, [boundary], sink.events);
    expect(result.expected).toBeGreaterThan(5);
    expect(result.missing).toEqual([]);
    expect(result.spurious).toEqual([]);
    expect(opsEvents()).toHaveLength(1);
    expect(first.operationalEvents.map((e) => e.detailType)).toEqual(['Club Source Unavailable']);
    expect(opsEvents()[0]!.detail).toMatchObject({
      unavailableSource: 'classAttendance',
      kind: 'not-found',
      httpStatus: 404,
      experimental: true,
      retryAt: unavailable.unavailable.retryAt,
    });
    const cursor = await store.view(club.clubId).getCursor('classAttendance');
    expect(cursor.health.unavailable).toEqual(unavailable.unavailable);
    const warnings = logs.lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ source: 'classAttendance', status: 404 });
    expect(String(warnings[0]!.error)).toMatch(/HTTP 404/);
    expect(logProblems(logs.lines)).toEqual([]);

    // status shows it (table and JSON model)
    const statusNow = rig.sandbox.clock.now().getTime();
    const status = await clubStatus(store, [club], statusNow);
    const classes = status[0]!.sources.find((s) => s.source === 'classAttendance')!;
    expect(classes).toMatchObject({ state: 'unavailable', experimental: true, enabled: true });
    expect(classes.unavailable?.retryAt).toBe(unavailable.unavailable.retryAt);
    expect(status[0]!.pause).toBeNull();
    const table = renderStatus(status, statusNow, 'the-table');
    expect(table).toMatch(/classAttendance \(experimental\)\s+unavailable/);
    expect(table).toContain(`classAttendance until ${unavailable.unavailable.retryAt}`);

    // Act 2: half an hour later (a 404 is queued again: a request would consume it)
    rig.sandbox.failNext(1, 404, { pathPrefix: CLASSES });
    const requestsBefore = classRequests();
    logs.lines.length = 0;
    rig.sandbox.advance(30 * MINUTE);
    const second = await poll(club);

    // Assess 2: not asked, not announced, not logged, still ok
    expect(classRequests()).toBe(requestsBefore);
    expect(second.outcome).toBe('ok');
    expect(second.sources.find((s) => s.source === 'classAttendance')).toMatchObject({
      outcome: 'unavailable',
      checked: false,
    });
    expect(opsEvents()).toHaveLength(1);
    expect(logs.lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR')).toEqual([]);

    // Act 3: after retryAt the endpoint is asked again and still answers 404 (the queued one)
    rig.sandbox.advance(UNAVAILABLE_RETRY_MS);
    const third = await poll(club);

    // Assess 3: same episode: no second event, no second WARN, a later retryAt
    expect(classRequests()).toBe(requestsBefore + 1);
    expect(third.outcome).toBe('ok');
    const again = third.sources.find((s) => s.source === 'classAttendance') as UnavailableSourceReport;
    expect(again).toMatchObject({ outcome: 'unavailable', checked: true });
    expect(again.unavailable.since).toBe(unavailable.unavailable.since);
    expect(Date.parse(again.unavailable.retryAt)).toBeGreaterThan(
      Date.parse(unavailable.unavailable.retryAt),
    );
    expect(opsEvents()).toHaveLength(1);
    expect(logs.lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR')).toEqual([]);

    // Act 4: after the next retryAt the endpoint works
    rig.sandbox.advance(UNAVAILABLE_RETRY_MS + MINUTE);
    const fourth = await poll(club);

    // Assess 4: polled (its silent baseline), the mark cleared, said once at INFO
    expect(fourth.outcome).toBe('ok');
    expect(fourth.sources.find((s) => s.source === 'classAttendance')).toMatchObject({
      outcome: 'completed',
    });
    expect((await store.view(club.clubId).getCursor('classAttendance')).health.unavailable).toBeUndefined();
    expect(logs.lines.some((l) => l.message === 'source endpoint available again')).toBe(true);
    expect(logProblems(logs.lines)).toEqual([]);
  }, 120_000);

  it('a non-experimental source: 404 marks it unavailable, but a 400 stays a failure of the club', async () => {
    // Prepare
    const club = parseClubsFile(rig.sandbox.clubsFile())[0]!;
    await poll(club);
    rig.sandbox.advance(10 * MINUTE);
    rig.sandbox.failNext(1, 404, { pathPrefix: '/financial/disbursements' });
    // Act
    const missing = await poll(club);
    rig.sandbox.advance(10 * MINUTE);
    rig.sandbox.failNext(1, 400, { pathPrefix: '/financial/debtcollection' });
    const bad = await poll(club);
    // Assess
    expect(missing.outcome).toBe('ok');
    expect(missing.sources.find((s) => s.source === 'disbursements')).toMatchObject({
      outcome: 'unavailable',
      unavailable: { kind: 'not-found', status: 404 },
    });
    expect(opsEvents()[0]?.detail).toMatchObject({ unavailableSource: 'disbursements', experimental: false });
    expect(bad.outcome).toBe('failed');
    expect(bad.failures).toEqual([
      expect.objectContaining({ source: 'debtCollection', kind: 'bad-request' }),
    ]);
    expect((await store.view(club.clubId).getCursor('debtCollection')).health.unavailable).toBeUndefined();
  }, 60_000);
  it('experimental: a 400 or a body that is not a page marks it unavailable; a bare 403 does for any source', async () => {
    // Prepare: classAttendance listed; a baseline of everything
    const club = { ...parseClubsFile(rig.sandbox.clubsFile())[0]!, sources: [...SOURCE_ORDER] };
    expect((await poll(club)).outcome).toBe('ok');
    const cases = [
      { source: 'classAttendance', path: CLASSES, status: 400, body: undefined, kind: 'bad-request' },
      {
        source: 'classAttendance',
        path: CLASSES,
        status: 200,
        body: '{"Classes":[]}',
        kind: 'unusable-response',
      },
      {
        source: 'posTransactions',
        path: '/members/pos/transactions',
        status: 403,
        body: '{"Message":"Forbidden"}',
        kind: 'forbidden',
      },
    ] as const;
    for (const c of cases) {
      rig.sandbox.advance(10 * MINUTE);
      rig.sandbox.failNext(1, c.status, {
        pathPrefix: c.path,
        ...(c.body ? { body: c.body, contentType: 'application/json' } : {}),
      });
      // Act (retryUnavailable: a source marked by the case before is asked again at once)
      const report = await pollClub(
        { store, sink, clients: clients(), owner: 'unavail', now: () => rig.sandbox.clock.now().getTime() },
        club,
        { deadlineMs: Date.now() + 30_000, retryUnavailable: true },
      );
      // Assess
      expect(report.outcome, c.kind).toBe('ok');
      expect(report.failures).toEqual([]);
      expect(
        report.sources.find((s) => s.source === c.source),
        c.kind,
      ).toMatchObject({
        outcome: 'unavailable',
        checked: true,
        unavailable: { kind: c.kind },
      });
    }
    // One episode per source: the classAttendance mark stayed through its two cases.
    expect(opsEvents().map((e) => (e.detail as { unavailableSource: string }).unavailableSource)).toEqual([
      'classAttendance',
      'posTransactions',
    ]);
  }, 60_000);
});
