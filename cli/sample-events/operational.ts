import { PLAN_QUOTAS } from '../../lambdas/clubs/club-config';
import { MINUTE_MS, monthOf } from '../../lambdas/common/time-units';
import { resumeClub } from '../../lambdas/engine/club-poll/resume-club';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { OPERATIONS } from '../../lambdas/gym-api/operations';
import { SOURCES } from '../../lambdas/sources';
import type { SourceName } from '../../lambdas/state';
import { PLAN_MONTHLY_REQUESTS } from '../../sandbox';
import { collect, type SampleOptions, withRig } from './rig';

/** Data requests a month the quota sample's sandbox allows the club (then 429). */
const QUOTA_REQUESTS = 2;

export async function credentialsRejected(options: SampleOptions): Promise<BridgeEvent[]> {
  return withRig(options, {}, { sources: ['members', 'visits'] }, async (rig) => {
    await rig.poll();
    return collect(
      rig,
      options,
      async (i) => {
        rig.sandbox.advance(20 * MINUTE_MS);
        const { credentials } = rig.club;
        // Alternately a rotated API key (the data call is refused) and a changed password (the token call is).
        const wrong =
          i % 2 === 0
            ? { ...credentials, apiKey: `${credentials.apiKey.slice(0, -4)}0000` }
            : { ...credentials, password: `${credentials.password}-old` };
        await rig.poll({ ...rig.club, credentials: wrong });
        // Fixed (as an operator would, with `clubs resume`): the next rejection is announced again.
        await resumeClub(rig.store, rig.club.clubId, rig.now());
      },
      options.count * 2 + 4,
    );
  });
}

export async function quotaLow(options: SampleOptions): Promise<BridgeEvent[]> {
  // The sandbox's plan quota made tiny (quotaScale): a handful of requests a month, then 429.
  const quotaScale = QUOTA_REQUESTS / PLAN_MONTHLY_REQUESTS.basic;
  return withRig(options, { quotaScale }, { sources: ['members'] }, async (rig) => {
    await rig.poll();
    return collect(
      rig,
      options,
      async (i) => {
        rig.sandbox.advance(30 * MINUTE_MS);
        if (i === 0) {
          // The club has used nearly 80% of its plan this month (as the bridge counts it): the
          // next poll crosses the alert threshold.
          const month = monthOf(rig.now());
          const limit = PLAN_QUOTAS[rig.club.plan];
          const session = await rig.store.openClub(rig.club.clubId, 'sample-events', 60_000, Date.now());
          if (!session) throw new Error(`club ${rig.club.clubId} is held by another poller`);
          const used = await session.getQuotaUsage(month);
          await session.addQuotaUsage(month, Math.floor(limit * 0.8) - used - 1);
          await session.close();
        }
        // Then the API's own count is spent (the plan is shared with other integrations): 429,
        // the club pauses; resumed (as an operator would), the next 429 is announced again.
        await rig.poll();
        await resumeClub(rig.store, rig.club.clubId, rig.now());
      },
      options.count * 2 + 4,
    );
  });
}

/** The sources whose endpoints are failed in turn (members last: its path prefixes the others). */
const FAILING_ORDER: readonly SourceName[] = [
  'visits',
  'paymentHistory',
  'posTransactions',
  'prospects',
  'disbursements',
  'debtCollection',
];

const pathOf = (source: SourceName) => OPERATIONS[SOURCES[source].operation].path;

export async function dataStale(options: SampleOptions): Promise<BridgeEvent[]> {
  return withRig(options, {}, { sources: ['members', ...FAILING_ORDER] }, async (rig) => {
    await rig.poll();
    return collect(
      rig,
      options,
      async (i) => {
        const source = FAILING_ORDER[i % FAILING_ORDER.length]!;
        rig.sandbox.clearFailures();
        rig.sandbox.failNext(Number.POSITIVE_INFINITY, 503, {
          pathPrefix: pathOf(source),
          body: JSON.stringify({ Message: 'Service Unavailable' }),
        });
        // Over 30 minutes without a success; the ages vary a little from round to round.
        rig.sandbox.advance(31 * MINUTE_MS + (i % 4) * 4 * MINUTE_MS);
        await rig.poll();
      },
      options.count * 2 + 4,
    );
  });
}

export async function sourceUnavailable(options: SampleOptions): Promise<BridgeEvent[]> {
  const order: { source: SourceName; status: 404 | 403 }[] = [
    { source: 'classAttendance', status: 404 },
    { source: 'debtCollection', status: 403 },
    { source: 'disbursements', status: 404 },
    { source: 'posTransactions', status: 403 },
    { source: 'prospects', status: 404 },
  ];
  const sources: SourceName[] = [
    'members',
    'prospects',
    'posTransactions',
    'disbursements',
    'debtCollection',
  ];
  return withRig(options, {}, { sources: [...sources, 'classAttendance'] }, async (rig) => {
    rig.sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: pathOf('classAttendance') });
    await rig.poll();
    return collect(
      rig,
      options,
      async (i) => {
        const { source, status } = order[i % order.length]!;
        rig.sandbox.clearFailures();
        rig.sandbox.failNext(Number.POSITIVE_INFINITY, status, {
          pathPrefix: pathOf(source),
          body: JSON.stringify({
            Message: status === 404 ? 'Not Found' : 'This report is not enabled for this club',
          }),
        });
        rig.sandbox.advance(15 * MINUTE_MS);
        // Every endpoint is asked again: those that answer again are cleared, a new 404/403 is announced.
        await rig.poll(rig.club, { retryUnavailable: true });
      },
      options.count * 2 + 4,
    );
  });
}
