/**
 * The one dashboard of the bridge, row by row: a header naming the saved queries and the alarm
 * status; freshness and poll duration; the overdue club/sources table; records, events and API
 * traffic; quota (graph and per-club table); errors and the poll queues. Every bridge metric on it
 * is service-wide; the per-club figures are the Logs Insights tables.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { METRIC } from '../../../lambdas/common/deployment-contract';
import type { BridgeAlarms } from './alarms';
import type { MonitoredPoller } from './monitored-poller';
import { type BridgeQueryNames, CLUB_QUOTA_QUERY, OVERDUE_SOURCES_QUERY } from './queries';
import { FIVE_MINUTES, type ServiceMetric } from './service-metric';

export interface BridgeDashboardProps extends MonitoredPoller {
  readonly serviceMetric: ServiceMetric;
  /** Shown in the alarm status widget, in this order. */
  readonly alarms: BridgeAlarms;
  readonly queryNames: BridgeQueryNames;
  /** The dispatcher's minimum allowance before a source is overdue (an annotation). */
  readonly overdueAfter: Duration;
  /** The SourceOverdue and QuotaHigh thresholds (annotations). */
  readonly sourcesOverdueThreshold: number;
  readonly quotaShareThreshold: number;
  readonly dashboardName: string | undefined;
}

const FULL_WIDTH = 24;
const HALF = 12;

function headerRow(props: BridgeDashboardProps): cloudwatch.IWidget[] {
  const names = props.queryNames;
  return [
    new cloudwatch.TextWidget({
      markdown: [
        '# gym-bridge',
        'Freshness, events, quota and errors of the whole fleet (every metric is service-wide: no metric per club). ',
        `Per club: the tables below, and the saved Logs Insights queries \`${names.overdueSources}\`, \`${names.clubActivity}\` and \`${names.clubQuota}\`. `,
        'Runbook: docs/deploy.md (Operations runbook).',
      ].join('\n'),
      width: FULL_WIDTH,
      height: 3,
    }),
    new cloudwatch.AlarmStatusWidget({
      title: 'Alarms',
      alarms: Object.values(props.alarms),
      width: FULL_WIDTH,
      height: 3,
    }),
  ];
}

function freshnessRow({ serviceMetric, ...props }: BridgeDashboardProps): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Freshness: club/sources overdue, and the oldest last success (s)',
      left: [serviceMetric(METRIC.sourcesOverdue, cloudwatch.Stats.MAXIMUM)],
      leftAnnotations: [{ value: props.sourcesOverdueThreshold, label: 'alarm' }],
      right: [serviceMetric(METRIC.oldestSuccessAgeSeconds, cloudwatch.Stats.MAXIMUM)],
      rightAnnotations: [{ value: props.overdueAfter.toSeconds(), label: 'minimum allowance (s)' }],
      width: HALF,
    }),
    new cloudwatch.GraphWidget({
      title: 'Poll duration (ms)',
      left: [
        serviceMetric(METRIC.pollDuration, cloudwatch.Stats.p(50)),
        serviceMetric(METRIC.pollDuration, cloudwatch.Stats.p(99)),
        serviceMetric(METRIC.pollDuration, cloudwatch.Stats.MAXIMUM),
      ],
      width: HALF,
    }),
  ];
}

function overdueSourcesRow(props: BridgeDashboardProps): cloudwatch.IWidget[] {
  return [
    new cloudwatch.LogQueryWidget({
      title: 'Overdue club/sources (dispatcher log; longest first)',
      logGroupNames: [props.dispatchLogGroup.logGroupName],
      queryString: OVERDUE_SOURCES_QUERY.toString(),
      view: cloudwatch.LogQueryVisualizationType.TABLE,
      width: FULL_WIDTH,
      height: 6,
    }),
  ];
}

function trafficRow({ serviceMetric }: BridgeDashboardProps): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Records fetched, events published, clubs dispatched (all clubs)',
      left: [
        serviceMetric(METRIC.recordsFetched, cloudwatch.Stats.SUM),
        serviceMetric(METRIC.eventsPublished, cloudwatch.Stats.SUM),
        serviceMetric(METRIC.clubsDispatched, cloudwatch.Stats.SUM),
      ],
      width: HALF,
    }),
    new cloudwatch.GraphWidget({
      title: 'API requests and 429s (all clubs)',
      left: [serviceMetric(METRIC.apiRequests, cloudwatch.Stats.SUM)],
      right: [serviceMetric(METRIC.rateLimited, cloudwatch.Stats.SUM)],
      width: HALF,
    }),
  ];
}

function quotaRow({ serviceMetric, ...props }: BridgeDashboardProps): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Quota used this month, highest club (share of plan)',
      left: [serviceMetric(METRIC.quotaUsedShare, cloudwatch.Stats.MAXIMUM)],
      leftAnnotations: [{ value: props.quotaShareThreshold, label: 'alarm' }],
      leftYAxis: { min: 0, max: 1 },
      width: HALF,
    }),
    new cloudwatch.LogQueryWidget({
      title: 'Clubs by quota used this month (poll log)',
      logGroupNames: [props.pollLogGroup.logGroupName],
      queryString: CLUB_QUOTA_QUERY.toString(),
      view: cloudwatch.LogQueryVisualizationType.TABLE,
      width: HALF,
    }),
  ];
}

function errorsRow({ serviceMetric, ...props }: BridgeDashboardProps): cloudwatch.IWidget[] {
  const { pollQueue, deadLetterQueue } = props;
  return [
    new cloudwatch.GraphWidget({
      title: 'Errors',
      left: [
        serviceMetric(METRIC.pollErrors, cloudwatch.Stats.SUM),
        serviceMetric(METRIC.credentialsRejected, cloudwatch.Stats.SUM),
        serviceMetric(METRIC.lifecycleFailures, cloudwatch.Stats.SUM),
        props.pollFunction.metricErrors({ period: FIVE_MINUTES, label: 'poll Lambda errors' }),
        props.dispatchFunction.metricErrors({ period: FIVE_MINUTES, label: 'dispatch Lambda errors' }),
      ],
      width: HALF,
    }),
    new cloudwatch.GraphWidget({
      title: 'Poll queue and dead-letter queue',
      left: [
        pollQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'poll queue' }),
        pollQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, label: 'oldest (s)' }),
        deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: FIVE_MINUTES,
          label: 'dead-letter queue',
        }),
      ],
      width: HALF,
    }),
  ];
}

/** Creates the dashboard in `scope` (id `Dashboard`), its rows top to bottom. */
export function createDashboard(scope: Construct, props: BridgeDashboardProps): cloudwatch.Dashboard {
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    dashboardName: props.dashboardName,
    defaultInterval: Duration.hours(6),
  });
  for (const row of [headerRow, freshnessRow, overdueSourcesRow, trafficRow, quotaRow, errorsRow]) {
    dashboard.addWidgets(...row(props));
  }
  return dashboard;
}
