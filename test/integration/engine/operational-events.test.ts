/**
 * Operational events are delivered at least once (issue 32): the sandbox over real HTTP, the state
 * in dynalite, and a sink that fails the first publish of each operational event (by eventId:
 * test/support/fault-sink.ts). For each event of the catalog's operational kind (Club Credentials
 * Rejected, Club Quota Low at the threshold and on a 429, Club Data Stale, Club Source
 * Unavailable): the poll whose publish failed still reports its condition, the event arrives on a
 * later poll with the eventId of the failed attempt, whether or not the condition is still there,
 * and once it arrived no later poll publishes it again.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type ClubConfig, PLAN_QUOTAS } from '../../../lambdas/clubs/club-config';
import { type ClubReport, pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { type BridgeEvent, DETAIL_TYPES, type DetailType } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { OPERATIONS } from '../../../lambdas/gym-api/operations';
import { SOURCES } from '../../../lambdas/sources';
import type { DynamoDbStateStore, SourceName } from '../../../lambdas/state';
import { useEngineRig } from '../../support/engine-rig';
import { FailFirstOperationalSink } from '../../support/fault-sink';
import { seedQuota } from '../../support/state-seeds';

const MINUTE = 60_000;
const pathOf = (source: SourceName) => OPERATIONS[SOURCES[source].operation].path;

describe('operational events: at least once, with a stable eventId', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 32,
      clubs: [{ clubId: 'club-1', timeZone: 'Europe/London', members: 30, open24h: true }],
      historyDays: 1,
      startTime: '2026-04-07T09:00:00Z',
      activityScale: 3,
    },
    clients: { retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2, maxQuotaDelayMs: 0 } },
    pollMs: 30_000,
  });
  let store: DynamoDbStateStore;
  let delivered: MemorySink;
  let sink: FailFirstOperationalSink;
  let club: ClubConfig;

  beforeEach(async () => {
    store = await rig.newStore('opevents');
    delivered = new MemorySink();
    sink = new FailFirstOperationalSink(delivered);
    club = { ...rig.firstClub(), sources: ['members', 'visits'] };
  });

  const poll = (c: ClubConfig = club, options: { quotaAlertShare?: number } = {}): Promise<ClubReport> =>
    pollClub({ store, sink, clients: rig.clients, owner: 'opevents', now: rig.now }, c, {
      deadlineMs: rig.deadline(),
      ...options,
    });
  const ofType = (type: DetailType): BridgeEvent[] => delivered.events.filter((e) => e.detailType === type);
  const failedOfType = (type: DetailType): BridgeEvent[] => {
    const ids = new Set(sink.faults.failed);
    return sink.faults.attempts.filter((e) => e.detailType === type && ids.delete(e.detail.eventId));
  };
  /** The one event of `type` whose first publish failed: delivered once, under the same eventId. */
  const expectDeliveredOnce = (type: DetailType): BridgeEvent => {
    const failed = failedOfType(type);
    expect(failed, `${type}: one first publish failed`).toHaveLength(1);
    const arrived = ofType(type);
    expect(
      arrived.map((e) => e.detail.eventId),
      `${type}: delivered once, same eventId`,
    ).toEqual([failed[0]!.detail.eventId]);
    return arrived[0]!;
  };
  const wrongKey = () => ({ ...club, credentials: { ...club.credentials, apiKey: 'rotated-elsewhere' } });

  it('Club Credentials Rejected: refused again after the pause, announced then, and only once', async () => {
    // Prepare: a baseline, then the API key is rotated upstream
    expect((await poll()).outcome).toBe('ok');
    rig.sandbox.advance(5 * MINUTE);
    // Act: the refused poll whose announcement fails, then three more refused polls past each pause
    const refused = await poll(wrongKey());
    expect(refused.pause).toMatchObject({ kind: 'auth' });
    expect(ofType(DETAIL_TYPES.ClubCredentialsRejected)).toEqual([]);
    for (let i = 0; i < 3; i++) {
      rig.sandbox.advance(61 * MINUTE);
      expect((await poll(wrongKey())).pause).toMatchObject({ kind: 'auth' });
    }
    // Assess: the one episode, announced once, under the id of the failed attempt
    const event = expectDeliveredOnce(DETAIL_TYPES.ClubCredentialsRejected);
    expect(event.detail).toMatchObject({ reason: 'apiKey', consecutiveFailures: 1 });
  }, 60_000);

  it('Club Credentials Rejected: still announced when the next poll is no longer refused', async () => {
    // Prepare
    await poll();
    rig.sandbox.advance(5 * MINUTE);
    await poll(wrongKey());
    expect(ofType(DETAIL_TYPES.ClubCredentialsRejected)).toEqual([]);
    // Act: the key is fixed before the pause ends; the next polls succeed
    rig.sandbox.advance(6 * MINUTE);
    const fixed = await poll();
    rig.sandbox.advance(MINUTE);
    await poll();
    // Assess
    expect(fixed.outcome).toBe('ok');
    expect(fixed.operationalEvents.map((e) => e.detailType)).toEqual([DETAIL_TYPES.ClubCredentialsRejected]);
    expectDeliveredOnce(DETAIL_TYPES.ClubCredentialsRejected);
  }, 60_000);

  it('Club Quota Low on a 429: announced on a later poll, once', async () => {
    // Prepare
    await poll();
    rig.sandbox.advance(5 * MINUTE);
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 429, { pathPrefix: '/members' });
    // Act: the poll refused with 429, then polls past the pause, the quota back after the second
    const limited = await poll();
    expect(limited.pause).toMatchObject({ kind: 'quota' });
    rig.sandbox.advance(61 * MINUTE);
    await poll();
    rig.sandbox.clearFailures();
    rig.sandbox.advance(61 * MINUTE);
    await poll();
    // Assess
    const event = expectDeliveredOnce(DETAIL_TYPES.ClubQuotaLow);
    expect(event.detail).toMatchObject({ reason: 'rate-limited' });
  }, 60_000);

  it('Club Quota Low at the alert share: announced on the next poll, once a month', async () => {
    // Prepare: the month's count put just under 80% of the plan
    await poll();
    const month = new Date(rig.now()).toISOString().slice(0, 7);
    const limit = PLAN_QUOTAS[club.plan];
    await seedQuota(store, club.clubId, month, Math.floor(limit * 0.8) - 1);
    // Act: the poll that crosses it (the announcement fails), then two more
    for (let i = 0; i < 3; i++) {
      rig.sandbox.advance(MINUTE);
      expect((await poll()).outcome).toBe('ok');
    }
    // Assess
    const event = expectDeliveredOnce(DETAIL_TYPES.ClubQuotaLow);
    expect(event.detail).toMatchObject({ reason: 'threshold', month });
  }, 60_000);

  it('Club Data Stale: announced on the next poll, whether the source still fails or not', async () => {
    // Prepare: visits answers 503 for over 30 minutes
    await poll();
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 503, { pathPrefix: pathOf('visits') });
    rig.sandbox.advance(31 * MINUTE);
    // Act: the poll that finds it stale (the announcement fails), one still failing, one recovered
    const stale = await poll();
    expect(stale.failures.map((f) => f.source)).toEqual(['visits']);
    rig.sandbox.advance(MINUTE);
    await poll();
    rig.sandbox.clearFailures();
    rig.sandbox.advance(MINUTE);
    expect((await poll()).outcome).toBe('ok');
    // Assess
    const event = expectDeliveredOnce(DETAIL_TYPES.ClubDataStale);
    expect(event.detail).toMatchObject({ staleSource: 'visits' });
  }, 60_000);

  it('Club Data Stale: announced even when the source recovers on the very next poll', async () => {
    // Prepare
    await poll();
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 503, { pathPrefix: pathOf('visits') });
    rig.sandbox.advance(31 * MINUTE);
    await poll();
    // Act
    rig.sandbox.clearFailures();
    rig.sandbox.advance(MINUTE);
    const recovered = await poll();
    // Assess
    expect(recovered.outcome).toBe('ok');
    expectDeliveredOnce(DETAIL_TYPES.ClubDataStale);
  }, 60_000);

  it('Club Source Unavailable: announced on the next poll, though the source waits for its retryAt', async () => {
    // Prepare: class attendance listed, its endpoint missing
    const withClasses = { ...club, sources: ['members', 'classAttendance'] as SourceName[] };
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: pathOf('classAttendance') });
    // Act: the poll that finds it missing (the announcement fails), then two more
    const first = await poll(withClasses);
    expect(first.sources.find((s) => s.source === 'classAttendance')?.outcome).toBe('unavailable');
    for (let i = 0; i < 2; i++) {
      rig.sandbox.advance(MINUTE);
      await poll(withClasses);
    }
    // Assess
    const event = expectDeliveredOnce(DETAIL_TYPES.ClubSourceUnavailable);
    expect(event.detail).toMatchObject({ unavailableSource: 'classAttendance', kind: 'not-found' });
  }, 60_000);

  it('an episode is announced once, whichever source is refused first on the next polls', async () => {
    // Prepare: a sink that never fails, every listed source with a baseline
    const plain = new MemorySink();
    const pollPlain = (c: ClubConfig) =>
      pollClub({ store, sink: plain, clients: rig.clients, owner: 'opevents', now: rig.now }, c, {
        deadlineMs: rig.deadline(),
      });
    const three = { ...club, sources: ['members', 'visits', 'prospects'] as SourceName[] };
    await pollPlain(three);
    // Act: the key rotated; refused polls past each pause (the sources left behind go first)
    const refusedFirst: string[] = [];
    for (let i = 0; i < 4; i++) {
      rig.sandbox.advance(61 * MINUTE);
      const report = await pollPlain({ ...three, credentials: { ...three.credentials, apiKey: 'rotated' } });
      refusedFirst.push(report.pause?.source ?? 'none');
    }
    // Assess: more than one source was refused first, one announcement
    expect(new Set(refusedFirst).size).toBeGreaterThan(1);
    expect(plain.events.filter((e) => e.detailType === DETAIL_TYPES.ClubCredentialsRejected)).toHaveLength(1);
  }, 60_000);
});
