/**
 * Deployment stages (dev, prod) and their settings, overridable from CDK context:
 *
 *   npx cdk deploy -c stage=prod -c alarmEmail=ops@example.com -c clubs=2500
 *
 * The club count (`clubs`) sizes the poll function's concurrency, the dispatch shards and the
 * dispatcher's memory (lib/fleet-sizing.ts, docs/deploy.md "Sizing for a fleet") unless
 * `pollMaxConcurrency`, `dispatchShards` or `dispatchMemoryMb` is given; a fleet one deployment
 * cannot poll, or shards too few for it, are refused with the reason. It also sizes the state
 * table's provisioned capacity (`tableCapacity`, docs/deploy.md "State table capacity").
 *
 * Every key of `StageConfig` except `stage` can be given as a context value (a string on the command
 * line, or any JSON type in cdk.json). Values are validated as they are read (the readers are in
 * lib/context-values.ts), with a message naming the key.
 */

import { DEFAULT_SOURCE_OVERDUE_MINUTES, ENV, numberRule } from '../lambdas/common/deployment-contract';
import { DEFAULT_QUOTA_RESERVE } from '../lambdas/common/plans';
import { DEPLOYMENT_STAGES, eventSourceForStage } from '../lambdas/events/event-source';
import { DEFAULT_PII_POLICY, isPiiPolicy, PII_POLICIES, type PiiPolicy } from '../lambdas/events/pii';
import type { ExampleRulesEmailDetail } from './constructs/example-rules';
import {
  type ContextReader,
  readBoolean,
  readChoice,
  readEventSource,
  readNumber,
  readRuled,
  readString,
  StageConfigError,
} from './context-values';
import {
  isPollConcurrency,
  POLL_CONCURRENCY_TEXT,
  POLL_INVOCATION_SECONDS,
  pollConcurrencyFor,
} from './fleet-sizing';
import {
  checkFleetSize,
  readDispatchSizing,
  readTableCapacity,
  type TableCapacitySettings,
} from './fleet-sizing-context';

export { type ContextReader, StageConfigError } from './context-values';
export {
  FAST_LANE_INVOCATION_SECONDS,
  POLL_CONCURRENCY_HEADROOM,
  POLL_INVOCATION_SECONDS,
  pollConcurrencyFor,
} from './fleet-sizing';

/** The stages, and each one's event source, come from lambdas/events/event-source.ts (shared with the CLI). */
export const STAGES = DEPLOYMENT_STAGES;
export type Stage = (typeof STAGES)[number];

export interface StageConfig extends TableCapacitySettings {
  readonly stage: Stage;
  /** EventBridge `source` of every event: `eventSourceForStage(stage)` unless overridden. */
  readonly eventSource: string;
  /** Minutes between dispatcher runs (whole minutes, at least 1). */
  readonly pollRateMinutes: number;
  /** Clubs the deployment is sized for (sets `pollMaxConcurrency` unless that is given). */
  readonly clubs: number;
  /** Clubs per poll message and invocation, polled side by side (1..MAX_POLL_BATCH_SIZE). */
  readonly pollBatchSize: number;
  /** Most poll Lambdas running at once (2..1000): `pollConcurrencyFor(clubs, pollBatchSize)` by default. */
  readonly pollMaxConcurrency: number;
  /** Dispatch shards, a schedule each (1..64): `dispatchShardsFor(clubs)` by default. */
  readonly dispatchShards: number;
  /** The dispatch Lambda's memory, MB (128..10240): DISPATCH_MEMORY_MB by default. */
  readonly dispatchMemoryMb: number;
  /** PII policy for clubs that do not set their own. */
  readonly piiPolicyDefault: PiiPolicy;
  /** Share of each plan's monthly quota kept free (0 <= x < 1). */
  readonly quotaReserve: number;
  /** E-mail subscribed to alarms and operations notifications. */
  readonly alarmEmail?: string;
  /** Existing SNS topic for alarms (instead of the bridge's own). */
  readonly alarmTopicArn?: string;
  /**
   * Minutes a club/source may go without a successful poll (at least; 3 x its cadence if longer)
   * before it counts as overdue and the SourceOverdue alarm fires.
   */
  readonly sourceOverdueMinutes: number;
  /** Days the event archive keeps events (0 = forever). */
  readonly archiveRetentionDays: number;
  /** Create the example marketing/operations rules. */
  readonly exampleRules: boolean;
  /**
   * What the example operations rule e-mails of a PaymentIssue member: 'summary' (no member data)
   * or 'full' (the whole event).
   */
  readonly exampleRulesEmailDetail: ExampleRulesEmailDetail;
  /** Keep the table, log groups and archive when the stack is deleted. */
  readonly retainData: boolean;
}

/** The values of `exampleRulesEmailDetail`. */
export const EXAMPLE_RULES_EMAIL_DETAILS = [
  'summary',
  'full',
] as const satisfies readonly ExampleRulesEmailDetail[];

type Sized =
  | 'stage'
  | 'pollMaxConcurrency'
  | 'dispatchShards'
  | 'dispatchMemoryMb'
  | 'tableTargetUtilization'
  | 'tableMaxUnits';

const DEFAULTS: Record<Stage, Omit<StageConfig, Sized>> = {
  dev: {
    eventSource: eventSourceForStage('dev'),
    pollRateMinutes: 1,
    clubs: 10,
    pollBatchSize: 20,
    piiPolicyDefault: DEFAULT_PII_POLICY,
    quotaReserve: DEFAULT_QUOTA_RESERVE,
    sourceOverdueMinutes: DEFAULT_SOURCE_OVERDUE_MINUTES,
    archiveRetentionDays: 30,
    exampleRules: true,
    exampleRulesEmailDetail: 'summary',
    retainData: false,
    // A few clubs, often none: on demand ~$2 a month at 10 clubs, nothing idle; provisioned, its min
    // units every hour plus the 8 alarms target tracking creates: ~$2.10 busy or idle (deploy.md).
    tableCapacity: 'on-demand',
  },
  prod: {
    eventSource: eventSourceForStage('prod'),
    pollRateMinutes: 1,
    clubs: 1000,
    pollBatchSize: 20,
    piiPolicyDefault: DEFAULT_PII_POLICY,
    quotaReserve: DEFAULT_QUOTA_RESERVE,
    sourceOverdueMinutes: DEFAULT_SOURCE_OVERDUE_MINUTES,
    // A quarter replays any consumer's outage or bug window (docs/publishing.md, "From the archive").
    archiveRetentionDays: 90,
    exampleRules: true,
    exampleRulesEmailDetail: 'summary',
    retainData: true,
    // The spread minute keeps the fleet's load flat: capacity at 70% costs under half of on demand.
    tableCapacity: 'provisioned',
  },
};

const isStage = (value: unknown): value is Stage =>
  typeof value === 'string' && (STAGES as readonly string[]).includes(value);

const isInteger = Number.isInteger;

type StageDefaults = (typeof DEFAULTS)[Stage];

function readStage(read: ContextReader): Stage {
  const stage = read('stage') ?? 'dev';
  if (!isStage(stage)) {
    throw new StageConfigError(`context stage=${JSON.stringify(stage)}: must be one of ${STAGES.join(', ')}`);
  }
  return stage;
}

/** Context keys that were replaced: a clear error instead of a silently ignored setting. */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  watermarkLagAlarmMinutes:
    'was replaced by sourceOverdueMinutes (minutes without a successful poll before a source is overdue, default 15)',
};

function rejectReplacedKeys(read: ContextReader): void {
  for (const [key, why] of Object.entries(REPLACED_KEYS)) {
    if (read(key) !== undefined) throw new StageConfigError(`context ${key}: ${why}`);
  }
}

function readPiiPolicy(read: ContextReader, fallback: PiiPolicy): PiiPolicy {
  const pii = read('piiPolicyDefault') ?? fallback;
  if (!isPiiPolicy(pii)) {
    throw new StageConfigError(
      `context piiPolicyDefault=${JSON.stringify(pii)}: must be one of ${PII_POLICIES.join(', ')}`,
    );
  }
  return pii;
}

/** Where alarms go: `alarmEmail` and `alarmTopicArn`, each only when given. */
function readAlarmTargets(read: ContextReader): Pick<StageConfig, 'alarmEmail' | 'alarmTopicArn'> {
  const alarmEmail = readString(read, 'alarmEmail', /^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an e-mail address');
  const alarmTopicArn = readString(
    read,
    'alarmTopicArn',
    /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/,
    'an SNS topic ARN',
  );
  return { ...(alarmEmail ? { alarmEmail } : {}), ...(alarmTopicArn ? { alarmTopicArn } : {}) };
}

type PollCadence = Pick<StageConfig, 'pollRateMinutes' | 'clubs' | 'pollBatchSize'>;

/** How often and how many: the dispatcher's rate, the fleet's size, the clubs per poll invocation. */
function readPollCadence(read: ContextReader, d: StageDefaults): PollCadence {
  const minutesRule = 'a whole number of minutes >= 1';
  return {
    pollRateMinutes: readNumber(
      read,
      'pollRateMinutes',
      d.pollRateMinutes,
      (n) => isInteger(n) && n >= 1,
      minutesRule,
    ),
    clubs: readNumber(read, 'clubs', d.clubs, (n) => isInteger(n) && n >= 1, 'a whole number of clubs >= 1'),
    pollBatchSize: readRuled(read, 'pollBatchSize', d.pollBatchSize, numberRule(ENV.pollClubsPerMessage)),
  };
}

/** `pollMaxConcurrency`, sized from the cadence (`pollConcurrencyFor`) unless given. */
function readPollMaxConcurrency(read: ContextReader, cadence: PollCadence): number {
  const { clubs, pollBatchSize, pollRateMinutes } = cadence;
  return readNumber(
    read,
    'pollMaxConcurrency',
    pollConcurrencyFor(clubs, pollBatchSize, POLL_INVOCATION_SECONDS, pollRateMinutes),
    isPollConcurrency,
    POLL_CONCURRENCY_TEXT,
  );
}

type StageOperations = Pick<
  StageConfig,
  | 'quotaReserve'
  | 'sourceOverdueMinutes'
  | 'archiveRetentionDays'
  | 'exampleRules'
  | 'exampleRulesEmailDetail'
  | 'retainData'
>;

/** The quota reserve, the overdue allowance, retention and the example rules. */
function readOperations(read: ContextReader, d: StageDefaults): StageOperations {
  return {
    quotaReserve: readRuled(read, 'quotaReserve', d.quotaReserve, numberRule(ENV.quotaReserve)),
    sourceOverdueMinutes: readNumber(
      read,
      'sourceOverdueMinutes',
      d.sourceOverdueMinutes,
      (n) => isInteger(n) && n >= 1,
      'a whole number of minutes >= 1',
    ),
    archiveRetentionDays: readNumber(
      read,
      'archiveRetentionDays',
      d.archiveRetentionDays,
      (n) => isInteger(n) && n >= 0,
      'a whole number of days (0 = forever)',
    ),
    exampleRules: readBoolean(read, 'exampleRules', d.exampleRules),
    exampleRulesEmailDetail: readChoice(
      read,
      'exampleRulesEmailDetail',
      EXAMPLE_RULES_EMAIL_DETAILS,
      d.exampleRulesEmailDetail,
    ),
    retainData: readBoolean(read, 'retainData', d.retainData),
  };
}

/**
 * The configuration of the stage named by context `stage` (default `dev`), with context overrides.
 * Keys are read, and the first invalid one reported, in the order of this function.
 */
export function resolveStageConfig(read: ContextReader): StageConfig {
  const stage = readStage(read);
  const d = DEFAULTS[stage];
  rejectReplacedKeys(read);
  const piiPolicyDefault = readPiiPolicy(read, d.piiPolicyDefault);
  const alarmTargets = readAlarmTargets(read);
  const cadence = readPollCadence(read, d);
  checkFleetSize(cadence);
  const eventSource = readEventSource(read, d.eventSource);
  const pollMaxConcurrency = readPollMaxConcurrency(read, cadence);
  const dispatch = readDispatchSizing(read, cadence);
  const table = readTableCapacity(read, cadence, d.tableCapacity);
  const { quotaReserve, ...operations } = readOperations(read, d);
  return {
    stage,
    eventSource,
    ...cadence,
    pollMaxConcurrency,
    ...dispatch,
    piiPolicyDefault,
    quotaReserve,
    ...alarmTargets,
    ...operations,
    ...table,
  };
}
