/**
 * The polling pipeline: an EventBridge Scheduler schedule invokes the dispatch Lambda, which sends
 * one message per club due to the poll queue; the poll Lambda consumes it (partial batch
 * responses, bounded concurrency); a message that fails `maxReceiveCount` times lands in the DLQ.
 *
 * Grants: dispatch reads the table and sends to the queue; poll reads and writes the table, puts
 * events on the bus and reads the club secrets. Each grant sets the environment variable that
 * goes with it.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  ENV,
  HANDLER_ENTRIES,
} from '../../lambdas/common/deployment-contract';
import { DEFAULT_QUOTA_RESERVE } from '../../lambdas/common/plans';
import type { PiiPolicy } from '../../lambdas/events/pii';
import { BridgeFunction } from './bridge-function';
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
  /** Poll messages (clubs) per poll invocation. @default 1 */
  readonly batchSize?: number;
  /** Poll Lambda timeout; its code gets `POLL_DEADLINE_MS` = timeout minus `pollDeadlineMargin`. @default Duration.minutes(2) */
  readonly pollTimeout?: Duration;
  /** Time kept between the poll deadline and the Lambda timeout. @default Duration.seconds(20) */
  readonly pollDeadlineMargin?: Duration;
  /** @default Duration.seconds(50) (below the one-minute schedule) */
  readonly dispatchTimeout?: Duration;
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

/** The props with their defaults applied, and what follows from them. */
interface PollerSettings {
  readonly pollRate: Duration;
  readonly maxConcurrency: number;
  readonly batchSize: number;
  readonly pollTimeout: Duration;
  readonly maxReceiveCount: number;
  readonly quotaReserve: number;
  readonly overdueAfter: Duration;
  /** `POLL_DEADLINE_MS`: the poll timeout minus the deadline margin. */
  readonly deadlineMs: number;
  readonly entries: { readonly dispatch: string; readonly poll: string };
}

function pollerSettings(props: PollerProps): PollerSettings {
  const pollTimeout = props.pollTimeout ?? Duration.minutes(2);
  const margin = props.pollDeadlineMargin ?? Duration.seconds(20);
  const settings: PollerSettings = {
    pollRate: props.pollRate ?? Duration.minutes(1),
    maxConcurrency: props.maxConcurrency ?? 5,
    batchSize: props.batchSize ?? 1,
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
    Number.isInteger(maxConcurrency) && maxConcurrency >= 2 && maxConcurrency <= 1000,
    `maxConcurrency must be an integer in 2..1000 (SQS event source limit), got ${maxConcurrency}`,
  );
  check(
    Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 10,
    `batchSize must be in 1..10, got ${batchSize}`,
  );
  check(
    Number.isInteger(maxReceiveCount) && maxReceiveCount >= 1,
    `maxReceiveCount must be a positive integer, got ${maxReceiveCount}`,
  );
  check(quotaReserve >= 0 && quotaReserve < 1, `quotaReserve must be in [0, 1), got ${quotaReserve}`);
  check(
    overdueAfter.toMilliseconds() >= 60_000,
    `sourceOverdueAfter must be at least one minute, got ${overdueAfter.toHumanString()}`,
  );
  check(
    s.deadlineMs >= 10_000,
    `pollTimeout (${s.pollTimeout.toHumanString()}) must exceed pollDeadlineMargin by at least 10 seconds`,
  );
}

export class Poller extends Construct {
  public readonly dispatchFunction: lambda.IFunction;
  public readonly pollFunction: lambda.IFunction;
  public readonly pollQueue: sqs.IQueue;
  public readonly deadLetterQueue: sqs.IQueue;
  public readonly schedule: scheduler.ISchedule;
  public readonly dispatchLogGroup: logs.ILogGroup;
  public readonly pollLogGroup: logs.ILogGroup;

  constructor(scope: Construct, id: string, props: PollerProps) {
    super(scope, id);
    const settings = pollerSettings(props);
    const { dispatchFunction, pollFunction } = this.#functions(props, settings);
    const dispatch = dispatchFunction.function;
    const poll = pollFunction.function;
    this.dispatchLogGroup = dispatchFunction.logGroup;
    this.pollLogGroup = pollFunction.logGroup;
    const { pollQueue, deadLetterQueue } = this.#queues(props, settings);

    props.stateTable.grantReadDataTo(dispatch);
    pollQueue.grantSendMessages(dispatch);
    dispatch.addEnvironment(ENV.pollQueueUrl, pollQueue.queueUrl);

    props.stateTable.grantReadWriteDataTo(poll);
    props.eventBus.grantPutEventsTo(poll);
    props.clubSecrets.grantReadTo(poll);
    poll.addEventSource(
      new SqsEventSource(pollQueue, {
        batchSize: settings.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: settings.maxConcurrency,
      }),
    );
    this.schedule = this.#schedule(dispatch, settings.pollRate);

    this.dispatchFunction = dispatch;
    this.pollFunction = poll;
    this.pollQueue = pollQueue;
    this.deadLetterQueue = deadLetterQueue;
  }

  /** The dispatch and poll functions, each with the environment of its settings. */
  #functions(
    props: PollerProps,
    settings: PollerSettings,
  ): { dispatchFunction: BridgeFunction; pollFunction: BridgeFunction } {
    const common = {
      serviceName: props.serviceName,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    };
    const dispatchFunction = new BridgeFunction(this, 'Dispatch', {
      ...common,
      entry: settings.entries.dispatch,
      description: 'gym-bridge dispatch: picks the clubs due and queues one poll message per club',
      memorySize: 256,
      timeout: props.dispatchTimeout ?? Duration.seconds(50),
      environment: {
        [ENV.quotaReserve]: String(settings.quotaReserve),
        [ENV.sourceOverdueMinutes]: String(settings.overdueAfter.toMinutes({ integral: false })),
      },
    });
    const pollFunction = new BridgeFunction(this, 'Poll', {
      ...common,
      entry: settings.entries.poll,
      description: 'gym-bridge poll: polls one club, publishes its events, commits its state',
      // A poll mostly waits on the API (its sources side by side): memory buys CPU it barely uses.
      // 256 MB holds a backfill invocation's in-memory sets (at a real API's ~2,500 rows/s, about
      // 300,000 rows per 2-minute invocation); docs/benchmarks.md prices this setting.
      memorySize: 256,
      timeout: settings.pollTimeout,
      environment: {
        [ENV.pollDeadlineMs]: String(settings.deadlineMs),
        [ENV.piiPolicyDefault]: props.piiPolicyDefault ?? 'minimal',
      },
    });
    return { dispatchFunction, pollFunction };
  }

  /** The poll queue and its dead-letter queue. */
  #queues(
    props: PollerProps,
    settings: PollerSettings,
  ): { pollQueue: sqs.Queue; deadLetterQueue: sqs.Queue } {
    const { maxReceiveCount } = settings;
    const deadLetterQueue = new sqs.Queue(this, 'PollDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.deadLetterRetention ?? Duration.days(14),
    });
    // Visibility: six times the function timeout, AWS's advice for SQS event sources, so a message
    // is never handed out again while an invocation may still be working on it.
    const visibilitySeconds = settings.pollTimeout.toSeconds() * 6;
    const pollQueue = new sqs.Queue(this, 'PollQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(visibilitySeconds),
      // Long enough for every receive to fail before the message expires (so failures reach the
      // DLQ), short because an old poll message is superseded by newer dispatches anyway.
      retentionPeriod: Duration.seconds(Math.max(3600, visibilitySeconds * (maxReceiveCount + 1))),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount },
    });
    return { pollQueue, deadLetterQueue };
  }

  /** The EventBridge Scheduler schedule that invokes the dispatcher every `pollRate`, with its role. */
  #schedule(dispatch: lambda.IFunction, pollRate: Duration): scheduler.Schedule {
    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: invokes the gym-bridge dispatcher',
    });
    const schedule = new scheduler.Schedule(this, 'DispatchSchedule', {
      description: 'Runs the gym-bridge dispatcher',
      schedule: scheduler.ScheduleExpression.rate(pollRate),
      target: new LambdaInvoke(dispatch, {
        role: schedulerRole,
        // A missed run is replaced by the next one: no retries, no stale runs.
        retryAttempts: 0,
        maxEventAge: Duration.minutes(1),
      }),
    });
    Validations.of(schedulerRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(dispatch.node.defaultChild as lambda.CfnFunction)}.Arn>:*]`,
      reason:
        'lambda:InvokeFunction on the dispatch function and its versions/aliases (`<arn>:*`), as the L2 grantInvoke writes it; nothing else can be invoked.',
    });
    return schedule;
  }
}
