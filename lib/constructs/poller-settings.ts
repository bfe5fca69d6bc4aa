/**
 * The Poller's props, their defaults and their checks: a setting out of its range fails the synth
 * with a `PollerConfigError` naming it, before anything is built.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { CLUB_DIRECTORY_BUCKETS, spreadSecondsFor } from '../../lambdas/common/club-shard';
import {
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  ENV,
  fitsRule,
  HANDLER_ENTRIES,
  type NumberRule,
  numberRule,
  ruleWords,
} from '../../lambdas/common/deployment-contract';
import { DEFAULT_QUOTA_RESERVE } from '../../lambdas/common/plans';
import type { PiiPolicy } from '../../lambdas/events/pii';
import { isPollConcurrency, POLL_CONCURRENCY_TEXT } from '../fleet-sizing';
import type { ClubSecrets } from './club-secrets';
import type { BridgeEventBus } from './event-bus';
import type { StateTable } from './state-table';

export interface PollerProps {
  readonly stateTable: StateTable;
  readonly eventBus: BridgeEventBus;
  readonly clubSecrets: ClubSecrets;
  /** How often the dispatcher runs. Whole minutes (Scheduler's smallest rate is one minute). @default Duration.minutes(1) */
  readonly pollRate?: Duration;
  /** Most poll Lambdas running at once (SQS event source maximum concurrency, 2..1000). @default 5 */
  readonly maxConcurrency?: number;
  /**
   * Clubs per poll invocation: the dispatcher puts up to this many in one poll message
   * (`POLL_CLUBS_PER_MESSAGE`) and the event source hands an invocation one message. @default 1
   */
  readonly batchSize?: number;
  /** Poll Lambda timeout; its code gets `POLL_DEADLINE_MS` = timeout minus `pollDeadlineMargin`. @default Duration.minutes(2) */
  readonly pollTimeout?: Duration;
  /** Time kept between the poll deadline and the Lambda timeout. @default Duration.seconds(20) */
  readonly pollDeadlineMargin?: Duration;
  /** @default Duration.seconds(50) (below the one-minute schedule) */
  readonly dispatchTimeout?: Duration;
  /** Dispatch shards, each with its own schedule (1..CLUB_DIRECTORY_BUCKETS). @default 1 */
  readonly dispatchShards?: number;
  /** Dispatch Lambda memory, MB (its CPU share: 1,769 MB is one vCPU). @default 256 */
  readonly dispatchMemoryMb?: number;
  /** Spread each period's polls over the period (SQS DelaySeconds per club). @default true */
  readonly spreadPolls?: boolean;
  /** Receives of a poll message before it goes to the DLQ. @default 3 */
  readonly maxReceiveCount?: number;
  /** How long the DLQ keeps a message (SQS maximum: 14 days). @default Duration.days(14) */
  readonly deadLetterRetention?: Duration;
  /** PII policy for clubs that do not set one. @default 'minimal' */
  readonly piiPolicyDefault?: PiiPolicy;
  /** Share of each plan's monthly quota kept free (0..1). @default DEFAULT_QUOTA_RESERVE (0.1) */
  readonly quotaReserve?: number;
  /**
   * The dispatcher's minimum allowance before a source without a successful poll is overdue
   * (`SOURCE_OVERDUE_MINUTES`; give Monitoring the same value). @default 15 minutes
   */
  readonly sourceOverdueAfter?: Duration;
  /** Handler entry files, relative to the repository root. @default HANDLER_ENTRIES */
  readonly handlerEntries?: { readonly dispatch: string; readonly poll: string };
  /** Powertools service name of both functions. @default 'gym-bridge' */
  readonly serviceName?: string;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

export class PollerConfigError extends Error {
  override readonly name = 'PollerConfigError';
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new PollerConfigError(message);
}

/** A setting the poll Lambdas read too, by the contract's rule of their variable: the same words. */
function checkRuled(key: string, value: number, rule: NumberRule, why = ''): void {
  check(fitsRule(rule, value), `${key} must be ${ruleWords(rule)}${why}, got ${value}`);
}

/** The props with their defaults applied, and what follows from them. */
export interface PollerSettings {
  readonly pollRate: Duration;
  readonly dispatchShards: number;
  readonly dispatchMemoryMb: number;
  /** DISPATCH_SPREAD_SECONDS: 0, or the period up to SQS's 900 s. */
  readonly spreadSeconds: number;
  readonly maxConcurrency: number;
  /** Clubs per poll message, and so per invocation (the event source's batch is one message). */
  readonly batchSize: number;
  readonly pollTimeout: Duration;
  readonly maxReceiveCount: number;
  readonly quotaReserve: number;
  readonly overdueAfter: Duration;
  /** `POLL_DEADLINE_MS`: the poll timeout minus the deadline margin. */
  readonly deadlineMs: number;
  readonly entries: { readonly dispatch: string; readonly poll: string };
}

export function pollerSettings(props: PollerProps): PollerSettings {
  const pollTimeout = props.pollTimeout ?? Duration.minutes(2);
  const margin = props.pollDeadlineMargin ?? Duration.seconds(20);
  const pollRate = props.pollRate ?? Duration.minutes(1);
  const spreadSeconds = props.spreadPolls === false ? 0 : spreadSecondsFor(pollRate.toSeconds());
  const batchSize = props.batchSize ?? 1;
  const settings: PollerSettings = {
    pollRate,
    dispatchShards: props.dispatchShards ?? 1,
    dispatchMemoryMb: props.dispatchMemoryMb ?? 256,
    spreadSeconds,
    maxConcurrency: props.maxConcurrency ?? 5,
    batchSize,
    pollTimeout,
    maxReceiveCount: props.maxReceiveCount ?? 3,
    quotaReserve: props.quotaReserve ?? DEFAULT_QUOTA_RESERVE,
    overdueAfter: props.sourceOverdueAfter ?? Duration.minutes(DEFAULT_SOURCE_OVERDUE_MINUTES),
    deadlineMs: pollTimeout.toMilliseconds() - margin.toMilliseconds(),
    entries: props.handlerEntries ?? HANDLER_ENTRIES,
  };
  checkSettings(settings);
  return settings;
}

/** Throws a `PollerConfigError` naming the first setting out of its range. */
function checkSettings(s: PollerSettings): void {
  const { pollRate, maxConcurrency, batchSize, maxReceiveCount, quotaReserve, overdueAfter } = s;
  check(
    Number.isInteger(pollRate.toSeconds() / 60) && pollRate.toMinutes() >= 1,
    `pollRate must be whole minutes (at least 1), got ${pollRate.toHumanString()}`,
  );
  check(
    isPollConcurrency(maxConcurrency),
    `maxConcurrency must be ${POLL_CONCURRENCY_TEXT}, got ${maxConcurrency}`,
  );
  checkRuled(
    'batchSize',
    batchSize,
    numberRule(ENV.pollClubsPerMessage),
    " (the poll function's memory, measured)",
  );
  check(
    Number.isInteger(maxReceiveCount) && maxReceiveCount >= 1,
    `maxReceiveCount must be a positive integer, got ${maxReceiveCount}`,
  );
  checkRuled('quotaReserve', quotaReserve, numberRule(ENV.quotaReserve));
  check(
    Number.isInteger(s.dispatchShards) && s.dispatchShards >= 1 && s.dispatchShards <= CLUB_DIRECTORY_BUCKETS,
    `dispatchShards must be an integer in 1..${CLUB_DIRECTORY_BUCKETS} (the club directory's buckets), got ${s.dispatchShards}`,
  );
  check(
    Number.isInteger(s.dispatchMemoryMb) && s.dispatchMemoryMb >= 128 && s.dispatchMemoryMb <= 10_240,
    `dispatchMemoryMb must be an integer in 128..10240 (Lambda's range), got ${s.dispatchMemoryMb}`,
  );
  check(
    overdueAfter.toMilliseconds() >= 60_000,
    `sourceOverdueAfter must be at least one minute, got ${overdueAfter.toHumanString()}`,
  );
  check(
    s.deadlineMs >= 10_000,
    `pollTimeout (${s.pollTimeout.toHumanString()}) must exceed pollDeadlineMargin by at least 10 seconds`,
  );
}
