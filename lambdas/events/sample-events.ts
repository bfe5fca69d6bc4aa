/**
 * Realistic sample events for consumers' tests, produced by the real engine: `pollClub` runs in
 * process against an in-process API sandbox (`startSandbox`, seeded, on a fixed simulated clock),
 * with a memory state store and a memory sink, until the sink holds `count` events of the asked
 * detail-type. Nothing is hand-written: every field, eventId and time is the engine's.
 *
 * How each kind of event is provoked:
 * - Record events (visits, payments, sales, members, prospects, ...): a silent baseline poll of the
 *   source that produces the type, then the sandbox clock is moved on (its activity generated) and
 *   the source polled again, until enough events exist. Class Attendance Recorded: the club's
 *   `sources` lists classAttendance explicitly (it is opt-in).
 * - Club Credentials Rejected: the club's API key (reason apiKey) or integrator password (reason
 *   credentials) is wrong, so the sandbox answers 401; the club is resumed between rounds (as an
 *   operator would), so each rejection is announced again.
 * - Club Quota Low: the club's usage this month is put just under 80% of its plan (reason
 *   threshold), then the sandbox's quota is made tiny (`quotaScale`) so it answers 429 (reason
 *   rate-limited), the club resumed between rounds.
 * - Club Data Stale: one source's endpoint answers 503 for more than 30 simulated minutes (another
 *   source each round).
 * - Club Source Unavailable: classAttendance enabled with its endpoint answering 404 (as on an API
 *   without it), then other endpoints answering 404 or a 403 that blames no credential.
 *
 * Output is deterministic for a seed (the sandbox is seeded and its clock fixed): the same command
 * prints the same events, eventIds included.
 */
import { GymApiClientFactory } from '../engine/client-factory';
import { type ClubConfig, PLAN_QUOTAS, parseClubsFile } from '../engine/club-config';
import { pollClub } from '../engine/poll-club';
import { resumeClub } from '../engine/resume-club';
import { OPERATIONS } from '../gym-api/operations';
import { PLAN_MONTHLY_REQUESTS, type Sandbox, startSandbox } from '../sandbox';
import type { SandboxOptions } from '../sandbox/options';
import { SOURCES } from '../sources';
import { MemoryStateStore, type SourceName } from '../state';
import { type BridgeEvent, DETAIL_TYPES, type DetailType, validateEvent } from './catalog';
import { MemorySink } from './memory-sink';

export const MAX_SAMPLE_COUNT = 200;

/** The simulated clock's start: fixed, so a seed always gives the same events. */
export const SAMPLE_START = '2026-03-02T06:00:00Z';

const MINUTE = 60_000;
/** Data requests a month the quota sample's sandbox allows the club (then 429). */
const QUOTA_REQUESTS = 2;
const HOUR = 60 * MINUTE;

export interface SampleOptions {
  readonly detailType: DetailType;
  /** Events wanted (1..MAX_SAMPLE_COUNT). */
  readonly count: number;
  /** Seed of the sandbox (its data, names, amounts, times). @default 1 */
  readonly seed?: number;
  /** PII policy of the sample club. @default 'minimal' (the bridge's default) */
  readonly piiPolicy?: 'minimal' | 'full';
  /** Simulated start. @default SAMPLE_START */
  readonly startTime?: string;
  /** Wall-clock budget in ms; past it, SampleError says how many were produced. @default 60000 */
  readonly budgetMs?: number;
}

export class SampleError extends Error {
  override readonly name = 'SampleError';
}

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
  [DETAIL_TYPES.ClubCredentialsRejected]: 'a wrong API key or password: the sandbox answers 401',
  [DETAIL_TYPES.ClubQuotaLow]: "usage put near 80% of the plan, then the sandbox's quota spent (429)",
  [DETAIL_TYPES.ClubDataStale]: 'an endpoint answering 503 for over 30 simulated minutes',
  [DETAIL_TYPES.ClubSourceUnavailable]: 'classAttendance enabled with its endpoint 404, then other 404/403s',
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
  [DETAIL_TYPES.DisbursementRecorded]: 24 * HOUR,
  [DETAIL_TYPES.MemberSentToDebtCollection]: 24 * HOUR,
  [DETAIL_TYPES.PaymentRefunded]: 12 * HOUR,
  [DETAIL_TYPES.MembershipCancelled]: 12 * HOUR,
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 12 * HOUR,
};

/** Clubs this size refer a member to debt collection only about once a month: a bigger one. */
const RECORD_MEMBERS: Partial<Record<DetailType, number>> = {
  [DETAIL_TYPES.MemberSentToDebtCollection]: 1500,
};

const ZONES = ['Australia/Sydney', 'Europe/London', 'America/New_York'] as const;

/** A club of the sample: the sandbox's clubs file entry, with the sample's settings. */
interface Rig {
  readonly sandbox: Sandbox;
  readonly store: MemoryStateStore;
  readonly sink: MemorySink;
  readonly club: ClubConfig;
  poll(club?: ClubConfig, options?: { retryUnavailable?: boolean }): Promise<void>;
  now(): number;
}

async function withRig<T>(
  options: SampleOptions,
  sandboxOptions: Partial<SandboxOptions>,
  clubSettings: Partial<ClubConfig>,
  body: (rig: Rig) => Promise<T>,
): Promise<T> {
  const seed = options.seed ?? 1;
  const sandbox = await startSandbox({
    seed,
    clubs: [
      {
        clubId: 'club-1',
        timeZone: ZONES[Math.abs(seed) % ZONES.length]!,
        plan: 'basic',
        members: sandboxOptions.members ?? 150,
        open24h: true,
      },
    ],
    historyDays: 2,
    startTime: options.startTime ?? SAMPLE_START,
    activityScale: 8,
    ...sandboxOptions,
  });
  try {
    const store = new MemoryStateStore();
    const sink = new MemorySink();
    const club: ClubConfig = {
      ...parseClubsFile(sandbox.clubsFile(), 'sample sandbox')[0]!,
      piiPolicy: options.piiPolicy ?? 'minimal',
      ...clubSettings,
    };
    const clients = new GymApiClientFactory({ retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const now = () => sandbox.clock.now().getTime();
    const rig: Rig = {
      sandbox,
      store,
      sink,
      club,
      now,
      async poll(target = club, pollOptions = {}) {
        await pollClub({ store, sink, clients, owner: 'sample', now }, target, {
          deadlineMs: Date.now() + 60_000,
          ...(pollOptions.retryUnavailable ? { retryUnavailable: true } : {}),
        });
      },
    };
    return await body(rig);
  } finally {
    await sandbox.close();
  }
}

/**
 * Runs `round` until the sink holds `count` events of the type (or the budget is spent), and
 * returns the first `count` of them.
 */
async function collect(
  rig: Rig,
  options: SampleOptions,
  round: (index: number) => Promise<void>,
  maxRounds: number,
): Promise<BridgeEvent[]> {
  const started = Date.now();
  const budget = options.budgetMs ?? 60_000;
  const have = () => rig.sink.events.filter((e) => e.detailType === options.detailType);
  for (let i = 0; i < maxRounds && have().length < options.count; i++) {
    if (Date.now() - started > budget) break;
    await round(i);
  }
  const events = have();
  if (events.length < options.count) {
    throw new SampleError(
      `the engine produced ${events.length} of ${options.count} '${options.detailType}' events within its budget: ask for fewer (--count) or another --seed`,
    );
  }
  return events.slice(0, options.count);
}

async function recordEvents(options: SampleOptions, source: SourceName): Promise<BridgeEvent[]> {
  const step = RECORD_STEP_MS[options.detailType] ?? 3 * HOUR;
  const members = RECORD_MEMBERS[options.detailType];
  return withRig(options, members ? { members } : {}, { sources: [source] }, async (rig) => {
    await rig.poll(); // the silent baseline
    return collect(
      rig,
      options,
      async () => {
        rig.sandbox.advance(step);
        await rig.poll();
      },
      400,
    );
  });
}

async function credentialsRejected(options: SampleOptions): Promise<BridgeEvent[]> {
  return withRig(options, {}, { sources: ['members', 'visits'] }, async (rig) => {
    await rig.poll();
    return collect(
      rig,
      options,
      async (i) => {
        rig.sandbox.advance(20 * MINUTE);
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

async function quotaLow(options: SampleOptions): Promise<BridgeEvent[]> {
  // The sandbox's plan quota made tiny (quotaScale): a handful of requests a month, then 429.
  const quotaScale = QUOTA_REQUESTS / PLAN_MONTHLY_REQUESTS.basic;
  return withRig(options, { quotaScale }, { sources: ['members'] }, async (rig) => {
    await rig.poll();
    return collect(
      rig,
      options,
      async (i) => {
        rig.sandbox.advance(30 * MINUTE);
        if (i === 0) {
          // The club has used nearly 80% of its plan this month (as the bridge counts it): the
          // next poll crosses the alert threshold.
          const month = new Date(rig.now()).toISOString().slice(0, 7);
          const limit = PLAN_QUOTAS[rig.club.plan];
          const used = await rig.store.getQuotaUsage(rig.club.clubId, month);
          await rig.store.addQuotaUsage(rig.club.clubId, month, Math.floor(limit * 0.8) - used - 1);
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

async function dataStale(options: SampleOptions): Promise<BridgeEvent[]> {
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
        rig.sandbox.advance(31 * MINUTE + (i % 4) * 4 * MINUTE);
        await rig.poll();
      },
      options.count * 2 + 4,
    );
  });
}

async function sourceUnavailable(options: SampleOptions): Promise<BridgeEvent[]> {
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
        rig.sandbox.advance(15 * MINUTE);
        // Every endpoint is asked again: those that answer again are cleared, a new 404/403 is announced.
        await rig.poll(rig.club, { retryUnavailable: true });
      },
      options.count * 2 + 4,
    );
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
  else if (options.detailType === DETAIL_TYPES.ClubCredentialsRejected)
    events = await credentialsRejected(options);
  else if (options.detailType === DETAIL_TYPES.ClubQuotaLow) events = await quotaLow(options);
  else if (options.detailType === DETAIL_TYPES.ClubDataStale) events = await dataStale(options);
  else events = await sourceUnavailable(options);
  for (const event of events) validateEvent(event);
  return events;
}
