/**
 * Alarms and the one dashboard of the bridge, on the metrics the runtime publishes (names from
 * `METRIC`, namespace `METRICS_NAMESPACE`) and on the poller's queues and functions, and saved
 * Logs Insights queries for the per-club detail.
 *
 * Every bridge metric is service-wide (dimension `service` only), so the alarms are fleet-wide and
 * the metric bill does not grow with the number of clubs; per-club figures are EMF properties
 * (`ClubId`) and log lines, read with the saved queries `<service>/overdue-sources`,
 * `<service>/club-activity` and `<service>/club-quota` (two of them are tables on the dashboard).
 *
 * Alarms (each one is explained, with what to do, in docs/deploy.md "Operations runbook"):
 * - DeadLetterQueueNotEmpty: a poll message failed every receive.
 * - PollErrors: polls keep failing (errors in three 5-minute periods in a row).
 * - SourceOverdue: a club/source has had no successful poll for longer than its cadence allows
 *   (fleet-wide metric `SourcesOverdue`; the clubs behind it: the saved Logs Insights query
 *   `<service>/overdue-sources`, also a table on the dashboard).
 * - CredentialsRejected: a club's API credentials or key were refused.
 * - QuotaHigh: a club has used more than the threshold share of its monthly quota.
 * - DispatchErrors / DispatchNotRunning: the scheduler-driven dispatcher fails or does not run.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  METRIC,
  METRIC_PROPERTY,
  METRICS_NAMESPACE,
  OVERDUE_CADENCE_FACTOR,
  SOURCE_OVERDUE_LOG_MESSAGE,
} from '../../lambdas/common/deployment-contract';

export { DEFAULT_SOURCE_OVERDUE_MINUTES, SOURCE_OVERDUE_LOG_MESSAGE };

/**
 * Logs Insights (on the dispatch function's log group): the club/sources behind SourceOverdue, one
 * row each, the longest overdue first, with the last error the engine stored.
 */
export const OVERDUE_SOURCES_QUERY = new logs.QueryString({
  filterStatements: [`message = '${SOURCE_OVERDUE_LOG_MESSAGE}'`],
  statsStatements: [
    'latest(sinceSuccessSeconds) as sinceSuccessS, latest(allowedSeconds) as allowedS, latest(consecutiveFailures) as failures, latest(lastErrorKind) as errorKind, latest(reason) as lastReason, latest(lastSuccessAt) as lastSuccess, latest(@timestamp) as lastSeen by clubId, source',
  ],
  sort: 'sinceSuccessS desc',
  limit: 200,
});

const CLUB = METRIC_PROPERTY.club;

/**
 * Logs Insights (on the poll function's log group, whose EMF lines carry the club as a property):
 * each club's polls, events, records, API requests, 429s, failed sources and longest poll.
 */
export const CLUB_ACTIVITY_QUERY = new logs.QueryString({
  filterStatements: [`ispresent(${CLUB}) and ispresent(${METRIC.pollErrors})`],
  statsStatements: [
    `count(*) as polls, sum(${METRIC.eventsPublished}) as events, sum(${METRIC.recordsFetched}) as records, sum(${METRIC.apiRequests}) as requests, sum(${METRIC.rateLimited}) as rateLimited, sum(${METRIC.pollErrors}) as failedSources, max(${METRIC.pollDuration}) as longestPollMs by ${CLUB}`,
  ],
  sort: 'requests desc',
  limit: 200,
});

/**
 * Logs Insights (poll log group: each club poll's EMF line carries its quota share and the club;
 * the dispatcher writes one fleet-wide document a run): each club's share of its plan's monthly
 * quota at its latest poll, highest first.
 */
export const CLUB_QUOTA_QUERY = new logs.QueryString({
  filterStatements: [`ispresent(${CLUB}) and ispresent(${METRIC.quotaUsedShare})`],
  statsStatements: [`latest(${METRIC.quotaUsedShare}) as quotaUsedShare by ${CLUB}`],
  sort: 'quotaUsedShare desc',
  limit: 50,
});

export interface MonitoringProps {
  readonly dispatchFunction: lambda.IFunction;
  readonly pollFunction: lambda.IFunction;
  readonly pollQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  /** The dispatch function's log group: the overdue-sources query and dashboard widget read it. */
  readonly dispatchLogGroup: logs.ILogGroup;
  /** The poll function's log group: the per-club activity query reads its EMF lines. */
  readonly pollLogGroup: logs.ILogGroup;
  /** How often the dispatcher runs (sizes the DispatchNotRunning window). @default Duration.minutes(1) */
  readonly pollRate?: Duration;
  /** Powertools service name: the `service` dimension of every metric. @default 'gym-bridge' */
  readonly serviceName?: string;
  /** Alarm and OK notifications go here. @default no actions (alarms still show on the dashboard) */
  readonly alarmTopic?: sns.ITopic;
  /**
   * The dispatcher's minimum allowance before a source is overdue (it must get the same value:
   * the stack passes one setting to both, `sourceOverdueMinutes`). Used here to describe the alarm.
   * @default DEFAULT_SOURCE_OVERDUE_MINUTES minutes
   */
  readonly sourceOverdueAfter?: Duration;
  /** SourceOverdue fires when at least this many club/sources are overdue. @default 1 */
  readonly sourcesOverdueThreshold?: number;
  /** PollErrors fires when each of three 5-minute periods has at least this many. @default 3 */
  readonly pollErrorsThreshold?: number;
  /** QuotaHigh fires above this share of a plan's monthly quota. @default 0.8 */
  readonly quotaShareThreshold?: number;
  /** @default a name generated by CloudFormation */
  readonly dashboardName?: string;
}

/** The alarms, by what they watch. */
export interface BridgeAlarms {
  readonly deadLetterQueueNotEmpty: cloudwatch.IAlarm;
  readonly pollErrors: cloudwatch.IAlarm;
  readonly sourceOverdue: cloudwatch.IAlarm;
  readonly credentialsRejected: cloudwatch.IAlarm;
  readonly quotaHigh: cloudwatch.IAlarm;
  readonly dispatchErrors: cloudwatch.IAlarm;
  readonly dispatchNotRunning: cloudwatch.IAlarm;
}

const FIVE_MINUTES = Duration.minutes(5);

export class Monitoring extends Construct {
  public readonly alarms: BridgeAlarms;
  public readonly dashboard: cloudwatch.Dashboard;
  /** Saved Logs Insights queries (console: Logs Insights > Queries), by what they list. */
  public readonly queries: {
    /** The overdue club/sources behind SourceOverdue (dispatch log group). */
    readonly overdueSources: logs.QueryDefinition;
    /** Per club: polls, events, records, requests, 429s, failed sources (poll log group). */
    readonly clubActivity: logs.QueryDefinition;
    /** Per club: quota used this month (dispatch log group). */
    readonly clubQuota: logs.QueryDefinition;
  };
  /** Their names. */
  public readonly queryNames: {
    readonly overdueSources: string;
    readonly clubActivity: string;
    readonly clubQuota: string;
  };
  readonly #service: string;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.#service = props.serviceName ?? 'gym-bridge';
    const pollRate = props.pollRate ?? Duration.minutes(1);
    const overdueAfter = props.sourceOverdueAfter ?? Duration.minutes(DEFAULT_SOURCE_OVERDUE_MINUTES);
    const overdueMinutes = overdueAfter.toMinutes({ integral: false });
    this.queryNames = {
      overdueSources: `${this.#service}/overdue-sources`,
      clubActivity: `${this.#service}/club-activity`,
      clubQuota: `${this.#service}/club-quota`,
    };
    const queryName = this.queryNames.overdueSources;
    const quotaThreshold = props.quotaShareThreshold ?? 0.8;

    const alarm = (
      alarmId: string,
      description: string,
      options: Omit<cloudwatch.CreateAlarmOptions, 'alarmDescription' | 'evaluationPeriods'> & {
        readonly metric: cloudwatch.IMetric;
        readonly evaluationPeriods?: number;
      },
    ): cloudwatch.Alarm => {
      const { metric, ...rest } = options;
      const a = new cloudwatch.Alarm(this, alarmId, {
        metric,
        alarmDescription: `${description} Runbook: docs/deploy.md#${alarmId.toLowerCase()}`,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...rest,
      });
      if (props.alarmTopic) {
        a.addAlarmAction(new SnsAction(props.alarmTopic));
        a.addOkAction(new SnsAction(props.alarmTopic));
      }
      return a;
    };

    const dispatchWindow = Duration.minutes(Math.max(5, pollRate.toMinutes()) * 3);
    this.alarms = {
      deadLetterQueueNotEmpty: alarm(
        'DeadLetterQueueNotEmpty',
        'A poll message failed every attempt and is in the poll dead-letter queue.',
        {
          metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: cloudwatch.Stats.MAXIMUM,
          }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        },
      ),
      pollErrors: alarm('PollErrors', 'Polls of one or more clubs keep failing.', {
        metric: this.serviceMetric(METRIC.pollErrors, cloudwatch.Stats.SUM),
        threshold: props.pollErrorsThreshold ?? 3,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
      // The dispatcher writes SourcesOverdue every run (0 included); each overdue source has already
      // waited its whole allowance, so one 5-minute period is enough. No data means the dispatcher
      // is not running: DispatchNotRunning says so.
      sourceOverdue: alarm(
        'SourceOverdue',
        `A club/source has had no successful poll for more than max(${OVERDUE_CADENCE_FACTOR} x its cadence, ${overdueMinutes} minutes) (paused, unavailable and quota-held sources excluded). Which ones: saved Logs Insights query ${queryName}, or the dashboard.`,
        {
          // One dispatcher run at least in every period, or a missing period would read as OK.
          metric: this.serviceMetric(
            METRIC.sourcesOverdue,
            cloudwatch.Stats.MAXIMUM,
            Duration.minutes(Math.max(5, pollRate.toMinutes())),
          ),
          threshold: props.sourcesOverdueThreshold ?? 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        },
      ),
      credentialsRejected: alarm(
        'CredentialsRejected',
        "The gym API refused a club's credentials or API key; that club is paused.",
        {
          metric: this.serviceMetric(METRIC.credentialsRejected, cloudwatch.Stats.SUM),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        },
      ),
      quotaHigh: alarm(
        'QuotaHigh',
        `A club has used more than ${Math.round(quotaThreshold * 100)}% of its monthly API quota.`,
        {
          metric: this.serviceMetric(METRIC.quotaUsedShare, cloudwatch.Stats.MAXIMUM),
          threshold: quotaThreshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        },
      ),
      dispatchErrors: alarm('DispatchErrors', 'The dispatcher fails: no club is being polled.', {
        metric: props.dispatchFunction.metricErrors({
          period: FIVE_MINUTES,
          statistic: cloudwatch.Stats.SUM,
        }),
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
      dispatchNotRunning: alarm(
        'DispatchNotRunning',
        'The dispatcher has not run: no club is being polled.',
        {
          metric: props.dispatchFunction.metricInvocations({
            period: dispatchWindow,
            statistic: cloudwatch.Stats.SUM,
          }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
          // No invocations means no data points at all.
          treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        },
      ),
    };

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(6),
    });
    this.queries = {
      overdueSources: new logs.QueryDefinition(this, 'OverdueSourcesQuery', {
        queryDefinitionName: queryName,
        queryString: OVERDUE_SOURCES_QUERY,
        logGroups: [props.dispatchLogGroup],
      }),
      clubActivity: new logs.QueryDefinition(this, 'ClubActivityQuery', {
        queryDefinitionName: this.queryNames.clubActivity,
        queryString: CLUB_ACTIVITY_QUERY,
        logGroups: [props.pollLogGroup],
      }),
      clubQuota: new logs.QueryDefinition(this, 'ClubQuotaQuery', {
        queryDefinitionName: this.queryNames.clubQuota,
        queryString: CLUB_QUOTA_QUERY,
        logGroups: [props.pollLogGroup],
      }),
    };
    this.#addWidgets(props, overdueAfter, quotaThreshold);
  }

  /** A service-wide metric of the bridge (dimension `service` only). */
  serviceMetric(metricName: string, statistic: string, period: Duration = FIVE_MINUTES): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: this.#service },
      statistic,
      period,
    });
  }

  #addWidgets(props: MonitoringProps, overdueAfter: Duration, quotaThreshold: number): void {
    const fullWidth = 24;
    const half = 12;
    const alarms = Object.values(this.alarms);
    const names = this.queryNames;
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: [
          '# gym-bridge',
          'Freshness, events, quota and errors of the whole fleet (every metric is service-wide: no metric per club). ',
          `Per club: the tables below, and the saved Logs Insights queries \`${names.overdueSources}\`, \`${names.clubActivity}\` and \`${names.clubQuota}\`. `,
          'Runbook: docs/deploy.md (Operations runbook).',
        ].join('\n'),
        width: fullWidth,
        height: 3,
      }),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: fullWidth, height: 3 }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Freshness: club/sources overdue, and the oldest last success (s)',
        left: [this.serviceMetric(METRIC.sourcesOverdue, cloudwatch.Stats.MAXIMUM)],
        leftAnnotations: [{ value: props.sourcesOverdueThreshold ?? 1, label: 'alarm' }],
        right: [this.serviceMetric(METRIC.oldestSuccessAgeSeconds, cloudwatch.Stats.MAXIMUM)],
        rightAnnotations: [{ value: overdueAfter.toSeconds(), label: 'minimum allowance (s)' }],
        width: half,
      }),
      new cloudwatch.GraphWidget({
        title: 'Poll duration (ms)',
        left: [
          this.serviceMetric(METRIC.pollDuration, cloudwatch.Stats.p(50)),
          this.serviceMetric(METRIC.pollDuration, cloudwatch.Stats.p(99)),
          this.serviceMetric(METRIC.pollDuration, cloudwatch.Stats.MAXIMUM),
        ],
        width: half,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.LogQueryWidget({
        title: 'Overdue club/sources (dispatcher log; longest first)',
        logGroupNames: [props.dispatchLogGroup.logGroupName],
        queryString: OVERDUE_SOURCES_QUERY.toString(),
        view: cloudwatch.LogQueryVisualizationType.TABLE,
        width: fullWidth,
        height: 6,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Records fetched, events published, clubs dispatched (all clubs)',
        left: [
          this.serviceMetric(METRIC.recordsFetched, cloudwatch.Stats.SUM),
          this.serviceMetric(METRIC.eventsPublished, cloudwatch.Stats.SUM),
          this.serviceMetric(METRIC.clubsDispatched, cloudwatch.Stats.SUM),
        ],
        width: half,
      }),
      new cloudwatch.GraphWidget({
        title: 'API requests and 429s (all clubs)',
        left: [this.serviceMetric(METRIC.apiRequests, cloudwatch.Stats.SUM)],
        right: [this.serviceMetric(METRIC.rateLimited, cloudwatch.Stats.SUM)],
        width: half,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Quota used this month, highest club (share of plan)',
        left: [this.serviceMetric(METRIC.quotaUsedShare, cloudwatch.Stats.MAXIMUM)],
        leftAnnotations: [{ value: quotaThreshold, label: 'alarm' }],
        leftYAxis: { min: 0, max: 1 },
        width: half,
      }),
      new cloudwatch.LogQueryWidget({
        title: 'Clubs by quota used this month (poll log)',
        logGroupNames: [props.pollLogGroup.logGroupName],
        queryString: CLUB_QUOTA_QUERY.toString(),
        view: cloudwatch.LogQueryVisualizationType.TABLE,
        width: half,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Errors',
        left: [
          this.serviceMetric(METRIC.pollErrors, cloudwatch.Stats.SUM),
          this.serviceMetric(METRIC.credentialsRejected, cloudwatch.Stats.SUM),
          props.pollFunction.metricErrors({ period: FIVE_MINUTES, label: 'poll Lambda errors' }),
          props.dispatchFunction.metricErrors({ period: FIVE_MINUTES, label: 'dispatch Lambda errors' }),
        ],
        width: half,
      }),
      new cloudwatch.GraphWidget({
        title: 'Poll queue and dead-letter queue',
        left: [
          props.pollQueue.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            label: 'poll queue',
          }),
          props.pollQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, label: 'oldest (s)' }),
          props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            label: 'dead-letter queue',
          }),
        ],
        width: half,
      }),
    );
  }
}
