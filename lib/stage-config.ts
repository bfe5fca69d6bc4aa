/**
 * Deployment stages (dev, prod) and their settings, overridable from CDK context:
 *
 *   npx cdk deploy -c stage=prod -c alarmEmail=ops@example.com -c clubs=2500
 *
 * The poll function's concurrency is sized from the club count (`pollConcurrencyFor`, docs/deploy.md
 * "Sizing for a fleet") unless `pollMaxConcurrency` is given.
 *
 * Every key of `StageConfig` except `stage` can be given as a context value (a string on the command
 * line, or any JSON type in cdk.json). Values are validated here, with a message naming the key.
 */

import { DEFAULT_SOURCE_OVERDUE_MINUTES } from '../lambdas/common/deployment-contract';
import {
  DEPLOYMENT_STAGES,
  EVENT_SOURCE_RULE,
  EventSourceError,
  eventSourceForStage,
  validateEventSource,
} from '../lambdas/events/event-source';
import { isPiiPolicy, PII_POLICIES, type PiiPolicy } from '../lambdas/events/pii';
import type { ExampleRulesEmailDetail } from './constructs/example-rules';

/** The stages, and each one's event source, come from lambdas/events/event-source.ts (shared with the CLI). */
export const STAGES = DEPLOYMENT_STAGES;
export type Stage = (typeof STAGES)[number];

export interface StageConfig {
  readonly stage: Stage;
  /** EventBridge `source` of every event: `eventSourceForStage(stage)` unless overridden. */
  readonly eventSource: string;
  /** Minutes between dispatcher runs (whole minutes, at least 1). */
  readonly pollRateMinutes: number;
  /** Clubs the deployment is sized for (sets `pollMaxConcurrency` unless that is given). */
  readonly clubs: number;
  /** Poll messages (clubs) per poll invocation, polled side by side (1..10). */
  readonly pollBatchSize: number;
  /** Most poll Lambdas running at once (2..1000): `pollConcurrencyFor(clubs, pollBatchSize)` by default. */
  readonly pollMaxConcurrency: number;
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

/**
 * Seconds a poll invocation of a full batch lasts at its 95th percentile, for sizing: the clubs
 * of a batch are polled side by side, so an invocation lasts about its slowest club (a first
 * request, then the other sources side by side, a few pages, at 400 ms a request against a distant
 * API, plus the batch's CPU at the function's share of a vCPU). docs/benchmarks.md measures it.
 */
export const POLL_INVOCATION_SECONDS_P95 = 8;
/** Headroom over the concurrency the steady state needs: bursts after the minute's dispatch, retries, slow clubs. */
export const POLL_CONCURRENCY_HEADROOM = 2;

/**
 * The poll function's maximum concurrency for `clubs` clubs polled every minute in batches of
 * `batchSize`: invocations a minute x seconds each / 60, times the headroom, within the SQS event
 * source's 2..1000.
 */
export function pollConcurrencyFor(
  clubs: number,
  batchSize: number,
  invocationSeconds: number = POLL_INVOCATION_SECONDS_P95,
  rateMinutes = 1,
): number {
  const steady = (Math.ceil(clubs / batchSize) * invocationSeconds) / (60 * rateMinutes);
  return Math.min(1000, Math.max(2, Math.ceil(steady * POLL_CONCURRENCY_HEADROOM)));
}

const DEFAULTS: Record<Stage, Omit<StageConfig, 'stage' | 'pollMaxConcurrency'>> = {
  dev: {
    eventSource: eventSourceForStage('dev'),
    pollRateMinutes: 1,
    clubs: 10,
    pollBatchSize: 10,
    piiPolicyDefault: 'minimal',
    quotaReserve: 0.1,
    sourceOverdueMinutes: DEFAULT_SOURCE_OVERDUE_MINUTES,
    archiveRetentionDays: 30,
    exampleRules: true,
    exampleRulesEmailDetail: 'summary',
    retainData: false,
  },
  prod: {
    eventSource: eventSourceForStage('prod'),
    pollRateMinutes: 1,
    clubs: 1000,
    pollBatchSize: 10,
    piiPolicyDefault: 'minimal',
    quotaReserve: 0.1,
    sourceOverdueMinutes: DEFAULT_SOURCE_OVERDUE_MINUTES,
    archiveRetentionDays: 365,
    exampleRules: true,
    exampleRulesEmailDetail: 'summary',
    retainData: true,
  },
};

export class StageConfigError extends Error {
  override readonly name = 'StageConfigError';
}

/** Reads one context value (`app.node.tryGetContext`). */
export type ContextReader = (key: string) => unknown;

const isStage = (value: unknown): value is Stage =>
  typeof value === 'string' && (STAGES as readonly string[]).includes(value);

/** Context keys that were replaced: a clear error instead of a silently ignored setting. */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  watermarkLagAlarmMinutes:
    'was replaced by sourceOverdueMinutes (minutes without a successful poll before a source is overdue, default 15)',
};

function readEventSource(read: ContextReader, fallback: string): string {
  const raw = read('eventSource');
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string') {
    throw new StageConfigError(`context eventSource=${JSON.stringify(raw)}: must be ${EVENT_SOURCE_RULE}`);
  }
  try {
    return validateEventSource(raw, 'context eventSource');
  } catch (err) {
    if (err instanceof EventSourceError) throw new StageConfigError(err.message);
    throw err;
  }
}

function readNumber(
  read: ContextReader,
  key: string,
  fallback: number,
  valid: (n: number) => boolean,
  rule: string,
): number {
  const raw = read(key);
  if (raw === undefined) return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() ? Number(raw) : NaN;
  if (!Number.isFinite(value) || !valid(value)) {
    throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be ${rule}`);
  }
  return value;
}

function readBoolean(read: ContextReader, key: string, fallback: boolean): boolean {
  const raw = read(key);
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be true or false`);
}

function readString(
  read: ContextReader,
  key: string,
  pattern: RegExp,
  rule: string,
  fallback?: string,
): string | undefined {
  const raw = read(key);
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !pattern.test(raw)) {
    throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be ${rule}`);
  }
  return raw;
}

function readChoice<const T extends string>(
  read: ContextReader,
  key: string,
  choices: readonly T[],
  fallback: T,
): T {
  const raw = read(key);
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !(choices as readonly string[]).includes(raw)) {
    throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be one of ${choices.join(', ')}`);
  }
  return raw as T;
}

const isInteger = Number.isInteger;

/** The configuration of the stage named by context `stage` (default `dev`), with context overrides. */
export function resolveStageConfig(read: ContextReader): StageConfig {
  const stage = read('stage') ?? 'dev';
  if (!isStage(stage)) {
    throw new StageConfigError(`context stage=${JSON.stringify(stage)}: must be one of ${STAGES.join(', ')}`);
  }
  const d = DEFAULTS[stage];
  for (const [key, why] of Object.entries(REPLACED_KEYS)) {
    if (read(key) !== undefined) throw new StageConfigError(`context ${key}: ${why}`);
  }
  const pii = read('piiPolicyDefault') ?? d.piiPolicyDefault;
  if (!isPiiPolicy(pii)) {
    throw new StageConfigError(
      `context piiPolicyDefault=${JSON.stringify(pii)}: must be one of ${PII_POLICIES.join(', ')}`,
    );
  }
  const alarmEmail = readString(read, 'alarmEmail', /^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an e-mail address');
  const alarmTopicArn = readString(
    read,
    'alarmTopicArn',
    /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/,
    'an SNS topic ARN',
  );
  const pollRateMinutes = readNumber(
    read,
    'pollRateMinutes',
    d.pollRateMinutes,
    (n) => isInteger(n) && n >= 1,
    'a whole number of minutes >= 1',
  );
  const clubs = readNumber(
    read,
    'clubs',
    d.clubs,
    (n) => isInteger(n) && n >= 1,
    'a whole number of clubs >= 1',
  );
  const pollBatchSize = readNumber(
    read,
    'pollBatchSize',
    d.pollBatchSize,
    (n) => isInteger(n) && n >= 1 && n <= 10,
    'an integer in 1..10',
  );
  return {
    stage,
    eventSource: readEventSource(read, d.eventSource),
    pollRateMinutes,
    clubs,
    pollBatchSize,
    pollMaxConcurrency: readNumber(
      read,
      'pollMaxConcurrency',
      pollConcurrencyFor(clubs, pollBatchSize, POLL_INVOCATION_SECONDS_P95, pollRateMinutes),
      (n) => isInteger(n) && n >= 2 && n <= 1000,
      'an integer in 2..1000',
    ),
    piiPolicyDefault: pii,
    quotaReserve: readNumber(
      read,
      'quotaReserve',
      d.quotaReserve,
      (n) => n >= 0 && n < 1,
      'a number in [0, 1)',
    ),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(alarmTopicArn ? { alarmTopicArn } : {}),
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
