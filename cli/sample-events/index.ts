import { HOUR_MS } from '../../lambdas/common/time-units';
import { type BridgeEvent, DETAIL_TYPES, type DetailType, validateEvent } from '../../lambdas/events/catalog';
import type { SourceName } from '../../lambdas/state';
import { LIFECYCLE_TYPES, lifecycleEvents } from './lifecycle';
import { credentialsRejected, dataStale, quotaLow, sourceUnavailable } from './operational';
import { collect, MAX_SAMPLE_COUNT, pollEvery, type SampleOptions, withRig } from './rig';
import { webhookEvents } from './webhooks';

export { MAX_SAMPLE_COUNT, SAMPLE_START, SampleError, type SampleOptions } from './rig';

/** How the events of each detail-type are produced (for --help and docs). */
export const SAMPLE_METHODS: Record<DetailType, string> = {
  [DETAIL_TYPES.MemberVisitRecorded]: 'visits polled as the sandbox clock moves on',
  [DETAIL_TYPES.PaymentSucceeded]: 'payment history polled as the sandbox clock moves on',
  [DETAIL_TYPES.PaymentFailed]: 'payment history (declines, later dishonours) as the clock moves on',
  [DETAIL_TYPES.PaymentRefunded]: 'payment history polled as the sandbox clock moves on',
  [DETAIL_TYPES.PosTransactionRecorded]: 'POS transactions polled as the sandbox clock moves on',
  [DETAIL_TYPES.DisbursementRecorded]: 'disbursements polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.MemberSentToDebtCollection]: 'debt collection polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.MemberJoined]: 'members polled as the sandbox clock moves on',
  [DETAIL_TYPES.MemberStatusChanged]: 'members polled as the sandbox clock moves on',
  [DETAIL_TYPES.MembershipCancelled]: 'members polled as the sandbox clock moves on',
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 'members polled as the sandbox clock moves on',
  [DETAIL_TYPES.ProspectCreated]: 'prospects polled as the sandbox clock moves on',
  [DETAIL_TYPES.ProspectStatusChanged]: 'prospects polled as the sandbox clock moves on',
  [DETAIL_TYPES.ClassAttendanceRecorded]: 'classAttendance enabled explicitly (opt-in) and polled',
  [DETAIL_TYPES.MemberFirstVisit]:
    'the hourly lifecycle evaluation of a club polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.MemberInactive]:
    'the hourly lifecycle evaluation of a club polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.MemberReturned]:
    'the hourly lifecycle evaluation of a club polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.MembershipExpiring]:
    'the hourly lifecycle evaluation of a club polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.PaymentRecovered]:
    'the hourly lifecycle evaluation of a club polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.ProspectTrialEnding]:
    'the hourly lifecycle evaluation of a club polled as the sandbox clock moves on (days)',
  [DETAIL_TYPES.ClubCredentialsRejected]: 'a wrong API key or password: the sandbox answers 401',
  [DETAIL_TYPES.ClubQuotaLow]: "usage put near 80% of the plan, then the sandbox's quota spent (429)",
  [DETAIL_TYPES.ClubDataStale]: 'an endpoint answering 503 for over 30 simulated minutes',
  [DETAIL_TYPES.ClubSourceUnavailable]: 'classAttendance enabled with its endpoint 404, then other 404/403s',
  [DETAIL_TYPES.WebhookDeliveryFailed]:
    'webhook deliveries to a local receiver answering 503 for 3 shifted days',
  [DETAIL_TYPES.WebhookEndpointDisabled]: 'webhook endpoints on local receivers answering 410 Gone',
};

/** The data source whose polls produce a record event of this type. */
const RECORD_SOURCE: Partial<Record<DetailType, SourceName>> = {
  [DETAIL_TYPES.MemberVisitRecorded]: 'visits',
  [DETAIL_TYPES.PaymentSucceeded]: 'paymentHistory',
  [DETAIL_TYPES.PaymentFailed]: 'paymentHistory',
  [DETAIL_TYPES.PaymentRefunded]: 'paymentHistory',
  [DETAIL_TYPES.PosTransactionRecorded]: 'posTransactions',
  [DETAIL_TYPES.DisbursementRecorded]: 'disbursements',
  [DETAIL_TYPES.MemberSentToDebtCollection]: 'debtCollection',
  [DETAIL_TYPES.MemberJoined]: 'members',
  [DETAIL_TYPES.MemberStatusChanged]: 'members',
  [DETAIL_TYPES.MembershipCancelled]: 'members',
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 'members',
  [DETAIL_TYPES.ProspectCreated]: 'prospects',
  [DETAIL_TYPES.ProspectStatusChanged]: 'prospects',
  [DETAIL_TYPES.ClassAttendanceRecorded]: 'classAttendance',
};

/** Moving the clock by this much between polls yields a few events of the type at a time. */
const RECORD_STEP_MS: Partial<Record<DetailType, number>> = {
  [DETAIL_TYPES.DisbursementRecorded]: 24 * HOUR_MS,
  [DETAIL_TYPES.MemberSentToDebtCollection]: 24 * HOUR_MS,
  [DETAIL_TYPES.PaymentRefunded]: 12 * HOUR_MS,
  [DETAIL_TYPES.MembershipCancelled]: 12 * HOUR_MS,
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 12 * HOUR_MS,
};

/** Clubs this size refer a member to debt collection only about once a month: a bigger one. */
const RECORD_MEMBERS: Partial<Record<DetailType, number>> = {
  [DETAIL_TYPES.MemberSentToDebtCollection]: 1500,
};

async function recordEvents(options: SampleOptions, source: SourceName): Promise<BridgeEvent[]> {
  const step = RECORD_STEP_MS[options.detailType] ?? 3 * HOUR_MS;
  const members = RECORD_MEMBERS[options.detailType];
  return withRig(options, members ? { members } : {}, { sources: [source] }, async (rig) => {
    await rig.poll(); // the silent baseline
    return collect(rig, options, pollEvery(rig, step), 400);
  });
}

/**
 * `count` events of `detailType`, produced by the engine against the sandbox, in the order the
 * engine published them, each valid against the catalog.
 */
export async function sampleEvents(options: SampleOptions): Promise<BridgeEvent[]> {
  if (!Number.isInteger(options.count) || options.count < 1 || options.count > MAX_SAMPLE_COUNT)
    throw new RangeError(`count must be 1..${MAX_SAMPLE_COUNT}, got ${options.count}`);
  const source = RECORD_SOURCE[options.detailType];
  let events: BridgeEvent[];
  if (source) events = await recordEvents(options, source);
  else if (LIFECYCLE_TYPES.includes(options.detailType)) events = await lifecycleEvents(options);
  else if (options.detailType === DETAIL_TYPES.ClubCredentialsRejected)
    events = await credentialsRejected(options);
  else if (options.detailType === DETAIL_TYPES.ClubQuotaLow) events = await quotaLow(options);
  else if (options.detailType === DETAIL_TYPES.ClubDataStale) events = await dataStale(options);
  else if (options.detailType === DETAIL_TYPES.WebhookDeliveryFailed) events = await webhookEvents(options);
  else if (options.detailType === DETAIL_TYPES.WebhookEndpointDisabled) events = await webhookEvents(options);
  else events = await sourceUnavailable(options);
  for (const event of events) validateEvent(event);
  return events;
}
