/**
 * The polling pipeline: one EventBridge Scheduler schedule per dispatch shard invokes the dispatch
 * Lambda with its input `{ shard, shards, scheduledAt }` (the deployment contract's DispatchInput);
 * each run sends the clubs of its shard that are due to the poll queue, `batchSize` clubs a message
 * (POLL_CLUBS_PER_MESSAGE), spread over the period (DISPATCH_SPREAD_SECONDS); the poll Lambda
 * takes one message an invocation (partial batch responses, bounded concurrency); a message that
 * fails `maxReceiveCount` times lands in the DLQ.
 *
 * Why a schedule per shard (docs/scale.md): the shards run side by side and independently (a
 * failing shard delays only its clubs), each gets its own timeout, and Scheduler stamps each run
 * with its scheduled time, from which the spread counts; no fan-out function to fail in between.
 *
 * Grants: dispatch reads the table and sends to the queue; poll reads and writes the table, puts
 * events on the bus and reads the club secrets. Each grant sets the environment variable that
 * goes with it.
 */

import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type DispatchInput, ENV } from '../../lambdas/common/deployment-contract';
import { DEFAULT_PII_POLICY } from '../../lambdas/events/pii';
import { BridgeFunction } from './bridge-function';
import { type PollerProps, type PollerSettings, pollerSettings } from './poller-settings';

export { PollerConfigError, type PollerProps } from './poller-settings';

export class Poller extends Construct {
  public readonly dispatchFunction: lambda.IFunction;
  public readonly pollFunction: lambda.IFunction;
  public readonly pollQueue: sqs.IQueue;
  public readonly deadLetterQueue: sqs.IQueue;
  /** One schedule per dispatch shard, shard 0 first. */
  public readonly schedules: readonly scheduler.ISchedule[];
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
      // One message an invocation: the message carries the invocation's clubs (up to batchSize).
      new SqsEventSource(pollQueue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: settings.maxConcurrency,
      }),
    );
    this.schedules = this.#schedules(dispatch, settings);

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
      description: 'gym-bridge dispatch: picks the clubs due and queues their poll messages',
      memorySize: settings.dispatchMemoryMb,
      timeout: props.dispatchTimeout ?? Duration.seconds(50),
      environment: {
        [ENV.dispatchSpreadSeconds]: String(settings.spreadSeconds),
        [ENV.pollClubsPerMessage]: String(settings.batchSize),
        [ENV.quotaReserve]: String(settings.quotaReserve),
        [ENV.sourceOverdueMinutes]: String(settings.overdueAfter.toMinutes({ integral: false })),
      },
    });
    const pollFunction = new BridgeFunction(this, 'Poll', {
      ...common,
      entry: settings.entries.poll,
      description:
        'gym-bridge poll: polls the clubs of a message, publishes their events, commits their state',
      // A poll mostly waits on the API (its sources side by side): memory buys CPU it barely uses.
      // 256 MB holds a backfill invocation's in-memory sets (at a real API's ~2,500 rows/s, about
      // 300,000 rows per 2-minute invocation); docs/benchmarks.md prices this setting.
      memorySize: 256,
      timeout: settings.pollTimeout,
      environment: {
        [ENV.pollDeadlineMs]: String(settings.deadlineMs),
        [ENV.piiPolicyDefault]: props.piiPolicyDefault ?? DEFAULT_PII_POLICY,
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

  /**
   * One EventBridge Scheduler schedule per shard, each invoking the dispatcher every `pollRate`
   * with its shard and its scheduled time; one role for all.
   */
  #schedules(dispatch: lambda.IFunction, settings: PollerSettings): scheduler.Schedule[] {
    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: invokes the gym-bridge dispatcher',
    });
    const shards = settings.dispatchShards;
    const schedules = Array.from({ length: shards }, (_, shard) => {
      const input: Record<keyof DispatchInput, unknown> = {
        shard,
        shards,
        scheduledAt: scheduler.ContextAttribute.scheduledTime,
      };
      // Shard 0 keeps the id of the one schedule of earlier releases (no replacement on update).
      return new scheduler.Schedule(this, shard === 0 ? 'DispatchSchedule' : `DispatchSchedule${shard}`, {
        description: `Runs the gym-bridge dispatcher: shard ${shard} of ${shards}`,
        schedule: scheduler.ScheduleExpression.rate(settings.pollRate),
        target: new LambdaInvoke(dispatch, {
          role: schedulerRole,
          input: scheduler.ScheduleTargetInput.fromObject(input),
          // A missed run is replaced by the next one: no retries, no stale runs.
          retryAttempts: 0,
          maxEventAge: Duration.minutes(1),
        }),
      });
    });
    Validations.of(schedulerRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(dispatch.node.defaultChild as lambda.CfnFunction)}.Arn>:*]`,
      reason:
        'lambda:InvokeFunction on the dispatch function and its versions/aliases (`<arn>:*`), as the L2 grantInvoke writes it; nothing else can be invoked.',
    });
    return schedules;
  }
}
