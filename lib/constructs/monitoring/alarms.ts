/**
 * The alarms of the bridge, fleet-wide (each is explained, with what to do, in docs/deploy.md
 * "Operations runbook", linked from its description):
 * - DeadLetterQueueNotEmpty: a poll message failed every receive.
 * - PollErrors: polls keep failing (errors in three 5-minute periods in a row).
 * - SourceOverdue: a club/source has had no successful poll for longer than its cadence allows
 *   (fleet-wide metric `SourcesOverdue`; the clubs behind it: the saved query `<service>/overdue-sources`).
 * - CredentialsRejected: a club's API credentials or key were refused.
 * - QuotaHigh: a club has used more than the threshold share of its monthly quota.
 * - LifecycleFailing: a club's lifecycle evaluations fail, hour after hour.
 * - DispatchErrors / DispatchNotRunning: the scheduler-driven dispatcher fails or does not run.
 * - StateTableThrottled: the state table throttles reads or writes minute after minute.
 * And, for the example rules (their construct creates them with `deadLetterQueueAlarm`):
 * - RuleDeadLetterQueueNotEmpty: an event a rule could not deliver, or a message its target queue
 *   could not hand over, is in a dead-letter queue.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRIC, OVERDUE_CADENCE_FACTOR } from '../../../lambdas/common/deployment-contract';
import type { MonitoredPoller } from './monitored-poller';
import { FIVE_MINUTES, type ServiceMetric } from './service-metric';

/** The alarms, by what they watch. */
export interface BridgeAlarms {
  readonly deadLetterQueueNotEmpty: cloudwatch.IAlarm;
  readonly pollErrors: cloudwatch.IAlarm;
  readonly sourceOverdue: cloudwatch.IAlarm;
  readonly credentialsRejected: cloudwatch.IAlarm;
  readonly quotaHigh: cloudwatch.IAlarm;
  readonly lifecycleFailing: cloudwatch.IAlarm;
  readonly dispatchErrors: cloudwatch.IAlarm;
  readonly dispatchNotRunning: cloudwatch.IAlarm;
  readonly stateTableThrottled: cloudwatch.IAlarm;
}

/** StateTableThrottled fires when every one of this many minutes in a row has a throttled read or write. */
export const TABLE_THROTTLED_MINUTES = 5;

export interface BridgeAlarmsProps extends Pick<MonitoredPoller, 'dispatchFunction' | 'deadLetterQueue'> {
  readonly serviceMetric: ServiceMetric;
  /** The state table: StateTableThrottled watches its throttled reads and writes. */
  readonly stateTable: dynamodb.ITable;
  /** How often the dispatcher runs (sizes the SourceOverdue period and the DispatchNotRunning window). */
  readonly pollRate: Duration;
  /** The dispatcher's minimum allowance before a source is overdue, in minutes (for the description). */
  readonly overdueMinutes: number;
  /** The saved query that lists the overdue club/sources (for the description). */
  readonly overdueQueryName: string;
  readonly sourcesOverdueThreshold: number;
  readonly pollErrorsThreshold: number;
  readonly quotaShareThreshold: number;
  /** Alarm and OK notifications go here; none when undefined. */
  readonly alarmTopic: sns.ITopic | undefined;
}

type AlarmOptions = Omit<cloudwatch.CreateAlarmOptions, 'alarmDescription' | 'evaluationPeriods'> & {
  readonly metric: cloudwatch.IMetric;
  readonly evaluationPeriods?: number;
};

/**
 * An alarm whose description links its runbook entry (`runbook`, default its id), notifying
 * `alarmTopic` of ALARM and OK.
 */
function bridgeAlarm(
  scope: Construct,
  alarmTopic: sns.ITopic | undefined,
  alarmId: string,
  description: string,
  options: AlarmOptions,
  runbook = alarmId,
): cloudwatch.Alarm {
  const { metric, ...rest } = options;
  const alarm = new cloudwatch.Alarm(scope, alarmId, {
    metric,
    alarmDescription: `${description} Runbook: docs/deploy.md#${runbook.toLowerCase()}`,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    ...rest,
  });
  if (alarmTopic) {
    alarm.addAlarmAction(new SnsAction(alarmTopic));
    alarm.addOkAction(new SnsAction(alarmTopic));
  }
  return alarm;
}

type Alarm = (alarmId: string, description: string, options: AlarmOptions) => cloudwatch.Alarm;
const AT_LEAST = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

/** A message in `queue` (its most visible in a minute): the alarm of a dead-letter queue. */
const deadLetterMetric = (queue: sqs.IQueue) =>
  queue.metricApproximateNumberOfMessagesVisible({
    period: Duration.minutes(1),
    statistic: cloudwatch.Stats.MAXIMUM,
  });

/**
 * RuleDeadLetterQueueNotEmpty for one dead-letter queue of the example rules (runbook entry of that
 * name), created in `scope` as `alarmId`, notifying `alarmTopic`.
 */
export function deadLetterQueueAlarm(
  scope: Construct,
  alarmId: string,
  props: { readonly queue: sqs.IQueue; readonly description: string; readonly alarmTopic?: sns.ITopic },
): cloudwatch.Alarm {
  return bridgeAlarm(
    scope,
    props.alarmTopic,
    alarmId,
    props.description,
    { metric: deadLetterMetric(props.queue), threshold: 1, comparisonOperator: AT_LEAST },
    'RuleDeadLetterQueueNotEmpty',
  );
}

/** The alarms on the polls: dead letters, errors, overdue sources. */
function pollAlarms(alarm: Alarm, props: BridgeAlarmsProps) {
  const { serviceMetric, pollRate } = props;
  return {
    deadLetterQueueNotEmpty: alarm(
      'DeadLetterQueueNotEmpty',
      'A poll message failed every attempt and is in the poll dead-letter queue.',
      { metric: deadLetterMetric(props.deadLetterQueue), threshold: 1, comparisonOperator: AT_LEAST },
    ),
    pollErrors: alarm('PollErrors', 'Polls of one or more clubs keep failing.', {
      metric: serviceMetric(METRIC.pollErrors, cloudwatch.Stats.SUM),
      threshold: props.pollErrorsThreshold,
      evaluationPeriods: 3,
      comparisonOperator: AT_LEAST,
    }),
    // The dispatcher writes SourcesOverdue every run (0 included); each overdue source has already
    // waited its whole allowance, so one 5-minute period is enough. No data means the dispatcher
    // is not running: DispatchNotRunning says so.
    sourceOverdue: alarm(
      'SourceOverdue',
      `A club/source has had no successful poll for more than max(${OVERDUE_CADENCE_FACTOR} x its cadence, ${props.overdueMinutes} minutes) (paused, unavailable and quota-held sources excluded). Which ones: saved Logs Insights query ${props.overdueQueryName}, or the dashboard.`,
      {
        // One dispatcher run at least in every period, or a missing period would read as OK.
        metric: serviceMetric(
          METRIC.sourcesOverdue,
          cloudwatch.Stats.MAXIMUM,
          Duration.minutes(Math.max(5, pollRate.toMinutes())),
        ),
        threshold: props.sourcesOverdueThreshold,
        comparisonOperator: AT_LEAST,
      },
    ),
  };
}

/** The alarms on a club's standing with the API (refused credentials, quota use) and its lifecycle. */
function clubAlarms(alarm: Alarm, props: BridgeAlarmsProps) {
  const { serviceMetric, quotaShareThreshold } = props;
  return {
    credentialsRejected: alarm(
      'CredentialsRejected',
      "The gym API refused a club's credentials or API key; that club is paused.",
      {
        metric: serviceMetric(METRIC.credentialsRejected, cloudwatch.Stats.SUM),
        threshold: 1,
        comparisonOperator: AT_LEAST,
      },
    ),
    quotaHigh: alarm(
      'QuotaHigh',
      `A club has used more than ${Math.round(quotaShareThreshold * 100)}% of its monthly API quota.`,
      {
        metric: serviceMetric(METRIC.quotaUsedShare, cloudwatch.Stats.MAXIMUM),
        threshold: quotaShareThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    ),
    // An evaluation runs once in a club's hour; one that fails is tried at the next poll, then in
    // the next hour (lambdas/lifecycle/club-lifecycle.ts): a failure in two hours in a row is one
    // that does not go away by itself. Nothing is published meanwhile.
    lifecycleFailing: alarm(
      'LifecycleFailing',
      "A club's lifecycle evaluations fail in two hours in a row: its lifecycle events are not published. Which club, since when and why: `status`, the poll log's `lifecycle evaluation failed` lines.",
      {
        metric: serviceMetric(METRIC.lifecycleFailures, cloudwatch.Stats.SUM, Duration.hours(1)),
        threshold: 1,
        evaluationPeriods: 2,
        datapointsToAlarm: 2,
        comparisonOperator: AT_LEAST,
      },
    ),
  };
}

/** The alarms on the dispatcher: it fails, or it does not run. */
function dispatcherAlarms(alarm: Alarm, props: BridgeAlarmsProps) {
  const dispatchWindow = Duration.minutes(Math.max(5, props.pollRate.toMinutes()) * 3);
  return {
    dispatchErrors: alarm('DispatchErrors', 'The dispatcher fails: no club is being polled.', {
      metric: props.dispatchFunction.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: AT_LEAST,
    }),
    dispatchNotRunning: alarm('DispatchNotRunning', 'The dispatcher has not run: no club is being polled.', {
      metric: props.dispatchFunction.metricInvocations({
        period: dispatchWindow,
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      // No invocations means no data points at all.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    }),
  };
}

/**
 * The alarm on the state table: a throttled read or write (AWS/DynamoDB ReadThrottleEvents and
 * WriteThrottleEvents of the table, which count each throttled item of a batch call, where
 * ThrottledRequests counts a batch only when all of it was throttled) in each of
 * TABLE_THROTTLED_MINUTES minutes in a row. A minute or two is expected and retried by the SDK (a
 * busier hour or a fleet's first hour while auto scaling steps up); throttling that lasts means polls
 * fail and clubs fall behind. In both capacity modes, as both throttle: provisioned past its
 * capacity (auto scaling behind, or at its max), on demand past twice its previous peak within 30
 * minutes (a new table: 12,000 reads and 4,000 writes a second, the first hour of a fleet deployed
 * on demand as docs/deploy.md suggests), past its table quota, and either on a hot partition.
 * Two metrics in one expression: billed as two alarm metrics, $0.20 a month.
 */
function tableAlarms(alarm: Alarm, props: BridgeAlarmsProps) {
  const minute = { period: Duration.minutes(1), statistic: cloudwatch.Stats.SUM };
  const throttled = new cloudwatch.MathExpression({
    // A minute with throttled reads and no throttled writes has no WriteThrottleEvents data point.
    expression: 'FILL(reads, 0) + FILL(writes, 0)',
    usingMetrics: {
      reads: props.stateTable.metric('ReadThrottleEvents', minute),
      writes: props.stateTable.metric('WriteThrottleEvents', minute),
    },
    label: 'State table: throttled reads and writes',
    period: Duration.minutes(1),
  });
  return {
    stateTableThrottled: alarm(
      'StateTableThrottled',
      `The state table throttled reads or writes in each of ${TABLE_THROTTLED_MINUTES} minutes in a row: polls wait on retries, some fail and are retried later.`,
      {
        metric: throttled,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: TABLE_THROTTLED_MINUTES,
        datapointsToAlarm: TABLE_THROTTLED_MINUTES,
      },
    ),
  };
}

/** Creates the alarms in `scope`, in the order of `BridgeAlarms`. */
export function createAlarms(scope: Construct, props: BridgeAlarmsProps): BridgeAlarms {
  const alarm: Alarm = (alarmId, description, options) =>
    bridgeAlarm(scope, props.alarmTopic, alarmId, description, options);
  return {
    ...pollAlarms(alarm, props),
    ...clubAlarms(alarm, props),
    ...dispatcherAlarms(alarm, props),
    ...tableAlarms(alarm, props),
  };
}
