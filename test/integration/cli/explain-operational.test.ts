/**
 * `explain --clubs FILE --club ID` without a subject flag: the club's operational events against a
 * local run (issue 34), the sandbox over HTTP, dynalite, the real SDK. Each condition is provoked
 * (503s past the stale threshold, a 404 endpoint, a rotated API key, 429s, the month's count past
 * the alert share) with a sink that fails the first publish of each operational event
 * (test/support/fault-sink.ts): right after, explain says the event is pending (owed) and shows no
 * eventId; after the next poll delivered it, it shows the eventId that was delivered; before the
 * condition, that it is not due (and when it becomes due). Never an eventId that did not reach the
 * bus.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClubOpsFacts, clubOpsFacts } from '../../../cli/explain/club-facts';
import { renderClubExplanation } from '../../../cli/explain/club-words';
import { type ClubConfig, PLAN_QUOTAS } from '../../../lambdas/clubs/club-config';
import { type ClubReport, pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { DETAIL_TYPES, type DetailType } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { OPERATIONS } from '../../../lambdas/gym-api/operations';
import { SOURCES } from '../../../lambdas/sources';
import { DynamoDbStateStore, type SourceName } from '../../../lambdas/state';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { useEngineRig } from '../../support/engine-rig';
import { FailFirstOperationalSink } from '../../support/fault-sink';
import { seedQuota } from '../../support/state-seeds';

const MINUTE = 60_000;
const EVENT_ID = /[0-9a-f]{32}/g;
const pathOf = (source: SourceName) => OPERATIONS[SOURCES[source].operation].path;

describe("explain: a club's operational events, against a local run", () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 34,
      clubs: [{ clubId: 'club-1', timeZone: 'Europe/London', members: 30, open24h: true }],
      historyDays: 1,
      startTime: '2026-04-07T09:00:00Z',
      activityScale: 3,
    },
    clients: { retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2, maxQuotaDelayMs: 0 } },
    pollMs: 30_000,
  });
  let store: DynamoDbStateStore;
  let table: string;
  let delivered: MemorySink;
  let sink: FailFirstOperationalSink;
  let club: ClubConfig;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-explain-ops-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    table = await rig.newTable('explain-ops');
    store = new DynamoDbStateStore({ client: rig.db.client, tableName: table, now: rig.now });
    delivered = new MemorySink();
    sink = new FailFirstOperationalSink(delivered);
    club = { ...rig.firstClub(), sources: ['members', 'visits', 'classAttendance'] };
  });

  const poll = (c: ClubConfig = club): Promise<ClubReport> =>
    pollClub({ store, sink, clients: rig.clients, owner: 'explain-ops', now: rig.now }, c, {
      deadlineMs: rig.deadline(),
    });
  const explain = () => clubOpsFacts(store, club, rig.now());
  const ofType = (type: DetailType) => delivered.events.filter((e) => e.detailType === type);
  /** The eventId of the one event of `type` whose first publish failed. */
  const failedId = (type: DetailType): string => {
    const ids = sink.faults.attempts
      .filter((e) => e.detailType === type && sink.faults.failed.has(e.detail.eventId))
      .map((e) => e.detail.eventId);
    expect(new Set(ids).size, `${type}: one first publish failed`).toBe(1);
    return ids[0]!;
  };
  /** Every eventId the words or the JSON show reached the bus. */
  const onlyDelivered = (facts: ClubOpsFacts) => {
    const shown = [
      ...renderClubExplanation(facts).matchAll(EVENT_ID),
      ...JSON.stringify(facts).matchAll(EVENT_ID),
    ].map((m) => m[0]);
    const reached = new Set(delivered.events.map((e) => e.detail.eventId));
    for (const id of shown) expect(reached, `${id} shown`).toContain(id);
  };
  const source = (facts: ClubOpsFacts, name: SourceName) => facts.sources.find((s) => s.source === name)!;
  const withoutClasses = () => ({ ...club, sources: ['members', 'visits'] as SourceName[] });

  it('Club Data Stale: not due with when it becomes due, waiting, pending while owed, then its eventId', async () => {
    // Prepare: a baseline
    club = withoutClasses();
    await poll();
    const fresh = await explain();
    // Act 1: 31 minutes without a poll; then 503s on visits, a poll past the threshold (its publish fails)
    rig.sandbox.advance(31 * MINUTE);
    const waiting = await explain();
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 503, { pathPrefix: pathOf('visits') });
    expect((await poll()).failures.map((f) => f.source)).toEqual(['visits']);
    const owed = await explain();
    // Act 2: the next poll delivers it (visits still failing)
    rig.sandbox.advance(MINUTE);
    await poll();
    const published = await explain();
    // Assess
    const visits0 = source(fresh, 'visits').stale;
    expect(visits0).toMatchObject({ episode: 'not-due', notice: { announcement: 'none', eventId: null } });
    expect(Date.parse(visits0.dueAt!) - Date.parse(visits0.lastSuccessAt!)).toBe(30 * MINUTE);
    expect(renderClubExplanation(fresh)).toContain(
      `Club Data Stale: not due: its last success was ${visits0.lastSuccessAt}. It becomes due at ${visits0.dueAt}`,
    );
    expect(source(waiting, 'visits').stale.episode).toBe('waiting');
    const id = failedId(DETAIL_TYPES.ClubDataStale);
    expect(source(owed, 'visits').stale).toMatchObject({
      episode: 'announced',
      lastSuccessAt: visits0.lastSuccessAt,
      notice: { announcement: 'pending', eventId: null },
    });
    expect(source(owed, 'visits').owed.map((o) => o.detailType)).toEqual([DETAIL_TYPES.ClubDataStale]);
    expect(renderClubExplanation(owed)).not.toContain(id);
    expect(ofType(DETAIL_TYPES.ClubDataStale).map((e) => e.detail.eventId)).toEqual([id]);
    expect(source(published, 'visits').stale).toMatchObject({
      episode: 'announced',
      notice: { announcement: 'published', eventId: id },
    });
    expect(renderClubExplanation(published)).toContain(`Club Data Stale was published: eventId ${id}`);
    expect(source(published, 'members').stale.episode).toBe('not-due');
    for (const f of [fresh, waiting, owed, published]) onlyDelivered(f);
  }, 60_000);

  it("Club Source Unavailable: the endpoint's episode, pending, then its eventId", async () => {
    // Prepare
    await poll(withoutClasses());
    const before = await explain();
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: pathOf('classAttendance') });
    // Act
    rig.sandbox.advance(MINUTE);
    await poll();
    const owed = await explain();
    rig.sandbox.advance(MINUTE);
    await poll();
    const published = await explain();
    // Assess
    expect(source(before, 'classAttendance')).toMatchObject({ polled: false, unavailable: null });
    const id = failedId(DETAIL_TYPES.ClubSourceUnavailable);
    expect(source(owed, 'classAttendance').unavailable).toMatchObject({
      kind: 'not-found',
      status: 404,
      notice: { announcement: 'pending', eventId: null },
    });
    expect(source(published, 'classAttendance').unavailable).toMatchObject({
      kind: 'not-found',
      since: source(owed, 'classAttendance').unavailable!.since,
      notice: { announcement: 'published', eventId: id },
    });
    expect(ofType(DETAIL_TYPES.ClubSourceUnavailable).map((e) => e.detail.eventId)).toEqual([id]);
    expect(renderClubExplanation(published)).toMatch(
      new RegExp(
        `classAttendance \\(experimental\\): Club Source Unavailable: its endpoint is unavailable since .*Club Source Unavailable was published: eventId ${id}`,
      ),
    );
    for (const f of [before, owed, published]) onlyDelivered(f);
  }, 60_000);

  it('Club Credentials Rejected: the pause and its episode, pending, its eventId, and none once the state no longer keeps its start', async () => {
    // Prepare
    club = withoutClasses();
    await poll();
    const before = await explain();
    const rotated = { ...club, credentials: { ...club.credentials, apiKey: 'rotated-elsewhere' } };
    // Act: refused (its publish fails); a poll in the pause delivers it; refused again after the pause
    rig.sandbox.advance(5 * MINUTE);
    expect((await poll(rotated)).pause).toMatchObject({ kind: 'auth' });
    const owed = await explain();
    rig.sandbox.advance(MINUTE);
    await poll(rotated);
    const published = await explain();
    // Refused again after the pause: the source left behind goes first (one refusal each), then
    // the first source again (its second in a row: its first refusal's time is replaced)
    rig.sandbox.advance(61 * MINUTE);
    expect((await poll(rotated)).pause).toMatchObject({ kind: 'auth', source: 'visits' });
    const second = await explain();
    rig.sandbox.advance(61 * MINUTE);
    expect((await poll(rotated)).pause).toMatchObject({ kind: 'auth', source: 'members' });
    const again = await explain();
    // Assess
    expect(before.refusals).toEqual([]);
    expect(renderClubExplanation(before)).toContain(
      "Club Credentials Rejected: no 401 since the club's last success: not due",
    );
    const id = failedId(DETAIL_TYPES.ClubCredentialsRejected);
    const episode = owed.refusals.find((r) => r.kind === 'auth');
    expect(episode).toMatchObject({ notice: { announcement: 'pending', eventId: null } });
    expect(owed.pause).toMatchObject({ kind: 'auth' });
    expect(published.refusals.find((r) => r.kind === 'auth')).toMatchObject({
      startedAt: episode!.startedAt,
      notice: { announcement: 'published', eventId: id },
    });
    expect(renderClubExplanation(published)).toMatch(
      /the club is paused until .*Club Credentials Rejected was published: eventId/,
    );
    // Refused again: the same episode, announced once; its eventId as long as the state keeps the
    // refusal that began it, none once that is gone
    expect(second.refusals.find((r) => r.kind === 'auth')).toMatchObject({
      startedAt: episode!.startedAt,
      notice: { announcement: 'published', eventId: id },
    });
    expect(ofType(DETAIL_TYPES.ClubCredentialsRejected).map((e) => e.detail.eventId)).toEqual([id]);
    expect(again.refusals.find((r) => r.kind === 'auth')).toMatchObject({
      startedAt: null,
      notice: { announcement: 'published', eventId: null },
    });
    expect(renderClubExplanation(again)).toContain('the state keeps only the latest refusal of each source');
    for (const f of [before, owed, published, second, again]) onlyDelivered(f);
  }, 60_000);

  it("Club Quota Low: on a 429 (the pause's episode) and at the alert share (the month), pending then published", async () => {
    // Prepare: a baseline; 429s on members
    club = withoutClasses();
    await poll();
    rig.sandbox.advance(5 * MINUTE);
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 429, { pathPrefix: pathOf('members') });
    // Act 1: refused (publish fails), a poll in the pause delivers it
    expect((await poll()).pause).toMatchObject({ kind: 'quota' });
    const owed429 = await explain();
    rig.sandbox.advance(MINUTE);
    await poll();
    const published429 = await explain();
    const limited = ofType(DETAIL_TYPES.ClubQuotaLow);
    // Act 2: the quota back, a success; the month's count put just under the alert share
    rig.sandbox.clearFailures();
    rig.sandbox.advance(61 * MINUTE);
    expect((await poll()).outcome).toBe('ok');
    const month = new Date(rig.now()).toISOString().slice(0, 7);
    const limit = PLAN_QUOTAS[club.plan];
    const used = (await store.readClubStates([club.clubId], month)).get(club.clubId)?.quotaUsed ?? 0;
    await seedQuota(store, club.clubId, month, Math.ceil(limit * 0.8) - 1 - used);
    const under = await explain();
    rig.sandbox.advance(MINUTE);
    await poll();
    const owedAlert = await explain();
    rig.sandbox.advance(MINUTE);
    await poll();
    const publishedAlert = await explain();
    // Assess: the 429
    expect(owed429.refusals.find((r) => r.kind === 'quota')).toMatchObject({
      notice: { detailType: 'Club Quota Low', announcement: 'pending', eventId: null },
    });
    expect(limited).toHaveLength(1);
    expect(limited[0]!.detail).toMatchObject({ reason: 'rate-limited' });
    expect(published429.refusals.find((r) => r.kind === 'quota')?.notice).toEqual({
      detailType: 'Club Quota Low',
      announcement: 'published',
      eventId: limited[0]!.detail.eventId,
    });
    expect(published429.pause).toMatchObject({ kind: 'quota' });
    // The alert share
    expect(under.refusals).toEqual([]);
    expect(under.quota).toMatchObject({
      month,
      alertAt: Math.ceil(limit * 0.8),
      notice: { announcement: 'none' },
    });
    expect(renderClubExplanation(under)).toMatch(
      /Club Quota Low: \d+ of \d+ requests counted in .*: not due/,
    );
    expect(owedAlert.quota.notice).toEqual({
      detailType: 'Club Quota Low',
      announcement: 'pending',
      eventId: null,
    });
    const alert = ofType(DETAIL_TYPES.ClubQuotaLow).filter(
      (e) => (e.detail as { reason?: string }).reason === 'threshold',
    );
    expect(alert).toHaveLength(1);
    expect(publishedAlert.quota.notice).toEqual({
      detailType: 'Club Quota Low',
      announcement: 'published',
      eventId: alert[0]!.detail.eventId,
    });
    for (const f of [owed429, published429, under, owedAlert, publishedAlert]) onlyDelivered(f);
  }, 90_000);

  it('through the CLI: words and JSON for the club; a bad flag exits 2', async () => {
    // Prepare: visits failing past the threshold, announced and delivered
    club = withoutClasses();
    await poll();
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 503, { pathPrefix: pathOf('visits') });
    rig.sandbox.advance(31 * MINUTE);
    await poll();
    rig.sandbox.advance(MINUTE);
    await poll();
    const clubsFile = join(dir, 'clubs.json');
    await writeFile(clubsFile, JSON.stringify({ clubs: [club] }));
    const cli = (...args: string[]) =>
      runCli(
        ['explain', '--clubs', clubsFile, '--club', club.clubId, '--table', table, ...args],
        localAwsEnv(rig.db.endpoint),
      );
    // Act
    const [words, json, bad] = await Promise.all([
      cli(),
      cli('--json'),
      cli('--member', '1', '--payment', '2'),
    ]);
    // Assess
    const id = ofType(DETAIL_TYPES.ClubDataStale)[0]!.detail.eventId;
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toMatch(
      /^club club-1: operational events \(as of .*; a source is stale 30 minutes after its last success\)/,
    );
    expect(words.stdout).toContain(`visits: Club Data Stale: stale since`);
    expect(words.stdout).toContain(`Club Data Stale was published: eventId ${id}`);
    expect(json.code, json.stderr).toBe(0);
    const facts = JSON.parse(json.stdout) as ClubOpsFacts;
    expect(facts.sources.find((s) => s.source === 'visits')?.stale.notice).toEqual({
      detailType: 'Club Data Stale',
      announcement: 'published',
      eventId: id,
    });
    // The fast lane, as the dispatcher would decide it now: off while visits fail.
    expect(facts.fastLane).toMatchObject({ on: false, reason: 'not-steady', probes: 0 });
    expect(words.stdout).toContain('Fast lane: off, visits every minute (visits not in steady state');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('give at most one of --member, --prospect, --payment');
  }, 90_000);
});
