/**
 * Deployment stages (dev, prod) and their settings, overridable from CDK context:
 *
 *   npx cdk deploy -c stage=prod -c alarmEmail=ops@example.com -c pollMaxConcurrency=20
 *
 * Every key of `StageConfig` except `stage` can be given as a context value (a string on the command
 * line, or any JSON type in cdk.json). Values are validated here, with a message naming the key.
 */
import { DEFAULT_EVENT_SOURCE } from '../lambdas/events/catalog';
import { isPiiPolicy, PII_POLICIES, type PiiPolicy } from '../lambdas/events/pii';
import { DEFAULT_WATERMARK_LAG_ALARM_MINUTES } from './constructs/monitoring';

export const STAGES = ['dev', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

export interface StageConfig {
  readonly stage: Stage;
  /** EventBridge `source` of every event. */
  readonly eventSource: string;
  /** Minutes between dispatcher runs (whole minutes, at least 1). */
  readonly pollRateMinutes: number;
  /** Most poll Lambdas running at once (2..1000). */
  readonly pollMaxConcurrency: number;
  /** PII policy for clubs that do not set their own. */
  readonly piiPolicyDefault: PiiPolicy;
  /** Share of each plan's monthly quota kept free (0 <= x < 1). */
  readonly quotaReserve: number;
  /** E-mail subscribed to alarms and operations notifications. */
  readonly alarmEmail?: string;
  /** Existing SNS topic for alarms (instead of the bridge's own). */
  readonly alarmTopicArn?: string;
  /** Alarm when the oldest watermark of any club/source is older than this many minutes (see DEFAULT_WATERMARK_LAG_ALARM_MINUTES). */
  readonly watermarkLagAlarmMinutes: number;
  /** Days the event archive keeps events (0 = forever). */
  readonly archiveRetentionDays: number;
  /** Create the example marketing/operations rules. */
  readonly exampleRules: boolean;
  /** Keep the table, log groups and archive when the stack is deleted. */
  readonly retainData: boolean;
}

const DEFAULTS: Record<Stage, Omit<StageConfig, 'stage'>> = {
  dev: {
    eventSource: `${DEFAULT_EVENT_SOURCE}.dev`,
    pollRateMinutes: 1,
    pollMaxConcurrency: 2,
    piiPolicyDefault: 'minimal',
    quotaReserve: 0.1,
    watermarkLagAlarmMinutes: DEFAULT_WATERMARK_LAG_ALARM_MINUTES,
    archiveRetentionDays: 30,
    exampleRules: true,
    retainData: false,
  },
  prod: {
    eventSource: DEFAULT_EVENT_SOURCE,
    pollRateMinutes: 1,
    pollMaxConcurrency: 10,
    piiPolicyDefault: 'minimal',
    quotaReserve: 0.1,
    watermarkLagAlarmMinutes: DEFAULT_WATERMARK_LAG_ALARM_MINUTES,
    archiveRetentionDays: 365,
    exampleRules: true,
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

const isInteger = Number.isInteger;

/** The configuration of the stage named by context `stage` (default `dev`), with context overrides. */
export function resolveStageConfig(read: ContextReader): StageConfig {
  const stage = read('stage') ?? 'dev';
  if (!isStage(stage)) {
    throw new StageConfigError(`context stage=${JSON.stringify(stage)}: must be one of ${STAGES.join(', ')}`);
  }
  const d = DEFAULTS[stage];
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
  return {
    stage,
    eventSource: readString(
      read,
      'eventSource',
      /^(?!aws\.)[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/,
      'letters, digits, . _ - (no "aws." prefix)',
      d.eventSource,
    )!,
    pollRateMinutes: readNumber(
      read,
      'pollRateMinutes',
      d.pollRateMinutes,
      (n) => isInteger(n) && n >= 1,
      'a whole number of minutes >= 1',
    ),
    pollMaxConcurrency: readNumber(
      read,
      'pollMaxConcurrency',
      d.pollMaxConcurrency,
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
    watermarkLagAlarmMinutes: readNumber(
      read,
      'watermarkLagAlarmMinutes',
      d.watermarkLagAlarmMinutes,
      (n) => n > 0,
      'a positive number of minutes',
    ),
    archiveRetentionDays: readNumber(
      read,
      'archiveRetentionDays',
      d.archiveRetentionDays,
      (n) => isInteger(n) && n >= 0,
      'a whole number of days (0 = forever)',
    ),
    exampleRules: readBoolean(read, 'exampleRules', d.exampleRules),
    retainData: readBoolean(read, 'retainData', d.retainData),
  };
}
