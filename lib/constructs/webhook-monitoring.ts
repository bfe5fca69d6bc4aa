/**
 * Alarms, a dashboard row and saved Logs Insights queries of the webhook delivery, beside the
 * bridge's own (lib/constructs/monitoring.ts); each alarm is explained, with what to do, in
 * docs/deploy.md "Operations runbook". Metrics are fleet-wide (dimension `service`); per endpoint,
 * the `webhook batch` log line (its `endpoints` figures: delivered, failed attempts, latencies,
 * oldest undelivered age; its `deliveries`), and the saved query `<service>/webhook-event` (one
 * event's deliveries, for `explain`: replace EVENT_ID). An endpoint with metrics on (opt-in, its
 * endpoint record) also has the four of its own (dimension `endpointId`): the dashboard's
 * per-endpoint graphs find them with SEARCH expressions, so an endpoint turned on needs no deploy.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  METRIC,
  METRICS_NAMESPACE,
  WEBHOOK_BATCH_LOG_MESSAGE,
} from '../../lambdas/common/deployment-contract';
import { FIVE_MINUTES, serviceMetricOf } from './monitoring/service-metric';
import type { WebhookDelivery } from './webhooks';

export interface WebhookMonitoringProps {
  readonly webhooks: WebhookDelivery;
  readonly serviceName: string;
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarmTopic?: sns.ITopic;
  /** WebhookLatency p95 above this for 15 minutes alarms. @default 30 s */
  readonly latencyThreshold?: Duration;
}

export class WebhookMonitoring extends Construct {
  public readonly alarms: Readonly<Record<string, cloudwatch.IAlarm>>;

  constructor(scope: Construct, id: string, props: WebhookMonitoringProps) {
    super(scope, id);
    const metric = serviceMetricOf(props.serviceName);
    const { webhooks } = props;
    const alarm = (
      alarmId: string,
      description: string,
      options: cloudwatch.CreateAlarmOptions & { metric: cloudwatch.IMetric },
    ) => {
      const { metric: m, ...rest } = options;
      const created = new cloudwatch.Alarm(this, alarmId, {
        metric: m,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...rest,
        alarmDescription: `${description} Runbook: docs/deploy.md#${alarmId.toLowerCase()}`,
      });
      if (props.alarmTopic) {
        created.addAlarmAction(new SnsAction(props.alarmTopic));
        created.addOkAction(new SnsAction(props.alarmTopic));
      }
      return created;
    };
    const atLeast = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
    const maxVisible = (q: typeof webhooks.ingestDeadLetterQueue) =>
      q.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      });
    this.alarms = {
      webhookDeadLetters: alarm(
        'WebhookDeadLetters',
        "A webhook delivery ran out of its retry schedule: it is in its endpoint's dead letters.",
        {
          metric: metric(METRIC.webhookDeadLettered, cloudwatch.Stats.SUM),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: atLeast,
        },
      ),
      webhookEndpointDisabled: alarm(
        'WebhookEndpointDisabled',
        'The bridge disabled a webhook endpoint (410 Gone, or 5 days of failures).',
        {
          metric: metric(METRIC.webhookEndpointsDisabled, cloudwatch.Stats.SUM),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: atLeast,
        },
      ),
      webhookLatencyHigh: alarm(
        'WebhookLatencyHigh',
        'Webhook deliveries take long from publication to 2xx (p95), for 15 minutes.',
        {
          metric: metric(METRIC.webhookLatency, cloudwatch.Stats.p(95)),
          threshold: (props.latencyThreshold ?? Duration.seconds(30)).toMilliseconds(),
          evaluationPeriods: 3,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        },
      ),
      webhookQueueDeadLetters: alarm(
        'WebhookQueueDeadLetters',
        'A webhook queue message failed every receive (an event not fanned out, or a delivery message the Lambda cannot handle).',
        {
          metric: new cloudwatch.MathExpression({
            expression: 'FILL(ingest, 0) + FILL(delivery, 0)',
            usingMetrics: {
              ingest: maxVisible(webhooks.ingestDeadLetterQueue),
              delivery: maxVisible(webhooks.deliveryDeadLetterQueue),
            },
            period: Duration.minutes(1),
          }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: atLeast,
        },
      ),
    };
    this.#queryAndDashboard(props, metric);
  }

  /** The saved query of one event's deliveries, and the dashboard row. */
  #queryAndDashboard(props: WebhookMonitoringProps, metric: ReturnType<typeof serviceMetricOf>): void {
    const { webhooks } = props;
    new logs.QueryDefinition(this, 'EventDeliveriesQuery', {
      queryDefinitionName: `${props.serviceName}/webhook-event`,
      queryString: new logs.QueryString({
        filterStatements: [`message = '${WEBHOOK_BATCH_LOG_MESSAGE}'`, "@message like 'EVENT_ID'"],
        fields: ['@timestamp', 'deliveries.0', 'deliveries.1', 'deliveries.2'],
        sort: '@timestamp asc',
        limit: 100,
      }),
      logGroups: [webhooks.fanOutLogGroup, webhooks.deliverLogGroup],
    });
    props.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `## Webhooks\nFleet-wide, then per endpoint with metrics on (\`webhooks update --metrics on\`); every endpoint: \`webhooks status\` and the \`${WEBHOOK_BATCH_LOG_MESSAGE}\` log lines (docs/webhooks.md, "Operating it").`,
        width: 24,
        height: 2,
      }),
      new cloudwatch.GraphWidget({
        title: 'Webhooks: queued, delivered, failed attempts, dead letters',
        left: [
          metric(METRIC.webhookDeliveriesQueued, cloudwatch.Stats.SUM),
          metric(METRIC.webhookDelivered, cloudwatch.Stats.SUM),
          metric(METRIC.webhookAttemptsFailed, cloudwatch.Stats.SUM),
          metric(METRIC.webhookDeadLettered, cloudwatch.Stats.SUM),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Webhooks: publish to 2xx (ms), oldest undelivered (s)',
        left: [
          metric(METRIC.webhookLatency, cloudwatch.Stats.p(50)),
          metric(METRIC.webhookLatency, cloudwatch.Stats.p(95)),
        ],
        right: [metric(METRIC.webhookOldestUndeliveredAge, cloudwatch.Stats.MAXIMUM, FIVE_MINUTES)],
        width: 12,
      }),
      ...perEndpointGraphs(props.serviceName),
    );
  }
}

/**
 * A line per endpoint with metrics on: a SEARCH over the metrics with exactly the dimensions
 * `service` and `endpointId` (the fleet's have `service` only), labelled by endpoint id.
 */
function perEndpointGraphs(serviceName: string): cloudwatch.GraphWidget[] {
  const search = (metricName: string, statistic: string) =>
    new cloudwatch.SearchExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},endpointId,service} MetricName="${metricName}" service="${serviceName}"', '${statistic}', ${FIVE_MINUTES.toSeconds()})`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudWatch dynamic label (the series' endpointId)
      label: "${PROP('Dim.endpointId')}",
      period: FIVE_MINUTES,
    });
  const graph = (title: string, metricName: string, statistic: string) =>
    new cloudwatch.GraphWidget({
      title: `Per endpoint: ${title}`,
      left: [search(metricName, statistic)],
      width: 6,
    });
  return [
    graph('delivered', METRIC.webhookDelivered, 'Sum'),
    graph('failed attempts', METRIC.webhookAttemptsFailed, 'Sum'),
    graph('p95 publish to 2xx (ms)', METRIC.webhookLatency, 'p95'),
    graph('oldest undelivered (s)', METRIC.webhookOldestUndeliveredAge, 'Maximum'),
  ];
}
