/**
 * The names the deployed runtime (lambdas/handlers) and the CDK stack (lib/) must agree on, defined
 * once: environment variables, the SQS poll message, metric namespace/names/dimensions, and the
 * handler entry files. Runtime code reads them; CDK code sets them. Nothing here imports aws-cdk-lib.
 */
import { MAX_SPREAD_SECONDS } from './club-shard';
import type { SourceName } from './source-names';
import { SECOND_MS } from './time-units';

/** Environment variables of the Lambda functions. */
export const ENV = {
  /** DynamoDB state table name. */
  stateTable: 'STATE_TABLE_NAME',
  /** EventBridge bus name or ARN. */
  eventBus: 'EVENT_BUS_NAME',
  /**
   * EventBridge `source` of every event (the stage's, lambdas/events/event-source.ts). The CLI
   * reads its own `GYM_BRIDGE_EVENT_SOURCE` instead (EVENT_SOURCE_ENV there).
   */
  eventSource: 'EVENT_SOURCE',
  /** SQS queue URL the dispatcher sends poll messages to. */
  pollQueueUrl: 'POLL_QUEUE_URL',
  /**
   * Dispatcher, optional: clubs one poll message carries (1..MAX_CLUBS_PER_MESSAGE; unset: 1, a
   * message per club). The stack sets the stage's `pollBatchSize`, with the event source's batch 1.
   */
  pollClubsPerMessage: 'POLL_CLUBS_PER_MESSAGE',
  /**
   * Dispatcher, optional: seconds of each dispatch period the polls are spread over (0..MAX_SPREAD_SECONDS, SQS
   * DelaySeconds; engine/dispatch/spread.ts). Unset or 0: every message is visible at once.
   */
  dispatchSpreadSeconds: 'DISPATCH_SPREAD_SECONDS',
  /** Secrets Manager name prefix of club secrets: `<prefix><clubId>`. */
  clubSecretPrefix: 'CLUB_SECRET_PREFIX',
  /** Default PII policy for clubs that do not set one: 'minimal' | 'full'. */
  piiPolicyDefault: 'PII_POLICY_DEFAULT',
  /** Milliseconds a poll invocation may use before it saves progress (below the Lambda timeout). */
  pollDeadlineMs: 'POLL_DEADLINE_MS',
  /**
   * Poll function, optional: milliseconds a club secret stays cached in a warm container
   * (default 30 minutes, lambdas/clubs/club-secrets.ts). Not set by the stack.
   */
  clubSecretCacheTtlMs: 'CLUB_SECRET_CACHE_TTL_MS',
  /**
   * Poll function, optional: the cap of a page's body in bytes (docs/client.md, "Limits"; default
   * 8 MiB). Not set by the stack. The CLI reads the same variable.
   */
  maxResponseBytes: 'GYM_API_MAX_RESPONSE_BYTES',
  /** Share of each plan's monthly quota kept free (0..1). */
  quotaReserve: 'QUOTA_RESERVE',
  /**
   * Dispatcher: minutes a source may go without a successful poll (at least; 3 x its cadence if
   * longer) before it counts in `SourcesOverdue` (lambdas/handlers/source-overdue.ts).
   */
  sourceOverdueMinutes: 'SOURCE_OVERDUE_MINUTES',
  /** Powertools: service name, metrics namespace and log level (read by common/logger and common/metrics). */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  /** Log level that wins over `logLevel` when set: the CLI sets it (`--log-level`); the stack does not. */
  logLevelOverride: 'LOG_LEVEL',
  /** Webhook fan-out and delivery: the webhook table (endpoints, health, dead letters). */
  webhookTable: 'WEBHOOK_TABLE_NAME',
  /** Webhook fan-out and delivery: the delivery queue's URL (an SQS fair queue). */
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  /** Webhook delivery: Secrets Manager name prefix of the shared signing-key secrets. */
  webhookSecretPrefix: 'WEBHOOK_SECRET_PREFIX',
  /**
   * Webhook fan-out: its most concurrent invocations (the event source's maximum concurrency): each
   * paces an endpoint at its rate limit divided by this, so together they never exceed it.
   */
  webhookFanOutConcurrency: 'WEBHOOK_FANOUT_CONCURRENCY',
  /** Webhook fan-out: the ingest queue's URL (it receives from it besides its event source). */
  webhookIngestQueueUrl: 'WEBHOOK_INGEST_QUEUE_URL',
  /** Webhook delivery, optional: milliseconds an attempt may take (default 15000). Not set by the stack. */
  webhookTimeoutMs: 'WEBHOOK_TIMEOUT_MS',
} as const;

/** Default minimum allowance, in minutes, before a source without a successful poll is overdue. */
export const DEFAULT_SOURCE_OVERDUE_MINUTES = 15;
/**
 * The `message` of the dispatcher's log line for each overdue club/source: the stack's saved Logs
 * Insights query filters on it.
 */
export const SOURCE_OVERDUE_LOG_MESSAGE = 'source overdue';
/**
 * The `message` of the poll's INFO line per club poll, keyed by `clubId` with the poll's figures:
 * the stack's saved Logs Insights queries of each club's activity and quota filter on it.
 */
export const CLUB_POLLED_LOG_MESSAGE = 'club polled';
/** A source is allowed this many of its (stretched) cadence intervals without a success. */
export const OVERDUE_CADENCE_FACTOR = 3;

/**
 * The input of each dispatch schedule (one per shard): which shard of how many this run
 * dispatches, and the run's scheduled time (EventBridge Scheduler's `<aws.scheduler.scheduled-time>`),
 * from which the period's moments count. Every field is optional: an empty event (a run by hand)
 * dispatches every club, its period starting when it runs.
 */
export interface DispatchInput {
  readonly shard?: number;
  readonly shards?: number;
  /** ISO 8601, UTC. */
  readonly scheduledAt?: string;
}

/** The longest club id: the poll message, the club config and the CLI check ids by these. */
export const MAX_CLUB_ID_CHARS = 64;
/** A club id: letters, digits, `.`, `_`, `-`, starting with a letter or digit, 1..MAX_CLUB_ID_CHARS. */
export const CLUB_ID_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_CLUB_ID_CHARS - 1}}$`);
export const CLUB_ID_RULE = `letters, digits, . _ - (at most ${MAX_CLUB_ID_CHARS}, starting with a letter or digit)`;

/** One SQS message per club due: the sources to poll now. */
export interface PollMessage {
  readonly clubId: string;
  readonly sources: readonly SourceName[];
  /** When the dispatcher decided (ISO, UTC). */
  readonly dispatchedAt: string;
  /** Optional explicit backfill start (ISO with Z). */
  readonly backfillFrom?: string;
  /**
   * 'fast': a fast-lane probe of the club's visits (engine/club-poll/fast-lane-probe.ts): one
   * request of one row, a session only when a visit came. Absent: the minute's poll.
   */
  readonly lane?: 'fast';
  /**
   * On a minute's poll: the fast-lane probes queued behind it, which it pays for (their requests
   * are counted with its own, and they run only until `until`, ISO with Z).
   */
  readonly probes?: { readonly count: number; readonly until: string };
}

/** Most fast-lane probes a minute's poll pays for (a probe every 15 s: three between two polls). */
export const MAX_FAST_LANE_PROBES = 3;

/**
 * Most fast-lane probes one poll message carries: a probe is one request and no write when nothing
 * came, so a message holds more of them than of the minute's polls (their invocation lasts as long
 * as its slowest probe, and costs the same for 20 or 50).
 */
export const MAX_PROBES_PER_MESSAGE = 50;

/** Most clubs one poll message carries: the clubs one poll invocation holds (docs/deploy.md). */
export const MAX_CLUBS_PER_MESSAGE = 20;

/** The least data-page cap (`GYM_API_MAX_RESPONSE_BYTES`) a deployment may set: 64 KiB. */
export const MIN_RESPONSE_CAP_BYTES = 64 * 1024;

/**
 * The most invocations an SQS event source runs at once (its `maxConcurrency`, 2..1000): the poll
 * function's (lib/fleet-sizing.ts) and the webhook fan-out's, whose pacer divides by it.
 */
export const MAX_EVENT_SOURCE_CONCURRENCY = 1000;

/**
 * A poll message for several clubs (`POLL_CLUBS_PER_MESSAGE` > 1): the SQS body is
 * `{"polls":[PollMessage, ...]}`. A body that is one PollMessage (a message per club, as releases
 * before it sent) is read too.
 */
export interface PollGroupMessage {
  readonly polls: readonly PollMessage[];
}

export const METRICS_NAMESPACE = 'GymBridge';

/**
 * Metric names (CloudWatch EMF via Powertools). Every metric is service-wide (dimension `service`
 * only): a metric per club would be billed per club (docs/benchmarks.md, the cost per club). A club's
 * values are on its poll's `club polled` log line (CLUB_POLLED_LOG_MESSAGE), queryable with Logs
 * Insights.
 */
export const METRIC = {
  recordsFetched: 'RecordsFetched',
  eventsPublished: 'EventsPublished',
  apiRequests: 'ApiRequests',
  rateLimited: 'RateLimited',
  pollErrors: 'PollErrors',
  pollDuration: 'PollDuration',
  credentialsRejected: 'CredentialsRejected',
  quotaUsedShare: 'QuotaUsedShare',
  /** Poll, summed over a batch: club lifecycle evaluations that failed (the LifecycleFailing alarm). */
  lifecycleFailures: 'LifecycleFailures',
  clubsDispatched: 'ClubsDispatched',
  /** Dispatcher, every run: enabled club/sources without a successful poll for longer than allowed. */
  sourcesOverdue: 'SourcesOverdue',
  /** Dispatcher, every run: the longest time since a checked source's last successful poll. */
  oldestSuccessAgeSeconds: 'OldestSuccessAgeSeconds',
  /** Webhook fan-out: deliveries queued (events x matching endpoints). */
  webhookDeliveriesQueued: 'WebhookDeliveriesQueued',
  /** Webhook delivery: deliveries answered 2xx. */
  webhookDelivered: 'WebhookDelivered',
  /** Webhook delivery: attempts that failed (non-2xx, timeout, network, refused address). */
  webhookAttemptsFailed: 'WebhookAttemptsFailed',
  /** Webhook delivery: milliseconds from the event's publication to the 2xx, per delivery. */
  webhookLatency: 'WebhookLatency',
  /** Webhook delivery: the age of the oldest delivery seen and not delivered, per invocation (s). */
  webhookOldestUndeliveredAge: 'WebhookOldestUndeliveredAge',
  /** Webhook delivery: deliveries moved to an endpoint's dead letters. */
  webhookDeadLettered: 'WebhookDeadLettered',
  /** Webhook delivery: endpoints the bridge disabled (410, or 5 days of failures). */
  webhookEndpointsDisabled: 'WebhookEndpointsDisabled',
} as const;

/**
 * The `message` of the webhook functions' INFO line per invocation (the fan-out's: per 200
 * deliveries too): per delivery `<webhookId> <endpointId> <result> <status> <attempt> <ms>`; the
 * saved Logs Insights queries (per endpoint, per event for `explain`) filter on it.
 */
export const WEBHOOK_BATCH_LOG_MESSAGE = 'webhook batch';

/** Handler entry files (relative to the repository root) and their exported handler name. */
export const HANDLER_ENTRIES = {
  dispatch: 'lambdas/handlers/dispatch.ts',
  poll: 'lambdas/handlers/poll.ts',
  webhookFanOut: 'lambdas/delivery/handlers/fan-out.ts',
  webhookDeliver: 'lambdas/delivery/handlers/deliver.ts',
} as const;
export const HANDLER_EXPORT = 'handler';

/**
 * The numeric variables: what each holds and its range, written once; the check and the words of
 * its error both come from here.
 */
export interface NumberRule {
  readonly holds: string;
  readonly integer?: boolean;
  readonly min: number;
  /** The least value is excluded (`> min`). */
  readonly aboveMin?: boolean;
  readonly max?: number;
  /** The greatest value is excluded (`< max`). */
  readonly belowMax?: boolean;
}

const RULES = {
  [ENV.pollClubsPerMessage]: {
    holds: 'the clubs one poll message carries',
    integer: true,
    min: 1,
    max: MAX_CLUBS_PER_MESSAGE,
  },
  [ENV.dispatchSpreadSeconds]: {
    holds: 'the seconds of each dispatch period the polls are spread over',
    integer: true,
    min: 0,
    max: MAX_SPREAD_SECONDS,
  },
  [ENV.pollDeadlineMs]: { holds: 'milliseconds a poll invocation may use', min: 1000 },
  [ENV.clubSecretCacheTtlMs]: { holds: 'milliseconds a club secret stays cached', min: 0 },
  [ENV.quotaReserve]: { holds: 'the share of each monthly quota kept free', min: 0, max: 1, belowMax: true },
  [ENV.maxResponseBytes]: {
    holds: 'the cap of a page body in bytes',
    integer: true,
    min: MIN_RESPONSE_CAP_BYTES,
  },
  [ENV.sourceOverdueMinutes]: {
    holds: 'the minutes a source may go without a successful poll before it is overdue',
    min: 0,
    aboveMin: true,
  },
  [ENV.webhookFanOutConcurrency]: {
    holds: 'the fan-out maximum concurrency',
    integer: true,
    min: 1,
    max: MAX_EVENT_SOURCE_CONCURRENCY,
  },
  [ENV.webhookTimeoutMs]: { holds: 'milliseconds an attempt may take', min: SECOND_MS, max: 30 * SECOND_MS },
} as const satisfies Record<string, NumberRule>;

/** Every numeric variable's rule, by variable name. */
export const NUMBER_RULES: Readonly<Record<string, NumberRule>> = RULES;

/** The rule of one numeric variable (the CDK reads the settings it passes on by the same rule). */
export const numberRule = (name: keyof typeof RULES): NumberRule => RULES[name];

export const fitsRule = (r: NumberRule, n: number): boolean =>
  (r.integer ? Number.isSafeInteger(n) : Number.isFinite(n)) &&
  (r.aboveMin ? n > r.min : n >= r.min) &&
  (r.max === undefined || (r.belowMax ? n < r.max : n <= r.max));

export function ruleWords(r: NumberRule): string {
  const kind = r.integer ? 'a whole number' : 'a number';
  if (r.max === undefined) return `${kind} ${r.aboveMin ? '>' : '>='} ${r.min}`;
  if (!r.aboveMin && !r.belowMax) return `${kind} in ${r.min}..${r.max}`;
  return `${r.min} ${r.aboveMin ? '<' : '<='} x ${r.belowMax ? '<' : '<='} ${r.max}`;
}

/** What numeric variable `name` holds and its range, in words (for error messages). */
export function ruleMeaning(name: string): string | undefined {
  const r = NUMBER_RULES[name];
  return r && `${r.holds}, ${ruleWords(r)}`;
}

/** The number numeric variable `name`'s text holds, or undefined when it breaks its rule (or has none). */
export function ruledNumber(name: string, text: string): number | undefined {
  const r = NUMBER_RULES[name];
  const n = Number(text);
  return r && fitsRule(r, n) ? n : undefined;
}
