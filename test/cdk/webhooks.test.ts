/**
 * The webhook delivery in the stack: one rule for every endpoint (endpoints are data), the ingest
 * and delivery queues with their dead-letter queues, both functions with their environment and
 * event sources (both attempt deliveries: the fan-out the first ones), the key secrets readable by
 * the two webhook functions only, a table of its own, the alarms beside the others, the saved query
 * over both functions' logs, and the outputs the CLI reads.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV, METRIC, METRICS_NAMESPACE } from '../../lambdas/common/deployment-contract';
import { onlyResource, synthTemplate } from './support';

interface Widget {
  readonly properties?: {
    readonly title?: string;
    readonly metrics?: readonly (readonly unknown[])[];
  };
}

/** The dashboard's widgets (its body's references, such as the region, as the text TOKEN). */
function dashboardWidgets(template: Template): Widget[] {
  const { resource } = onlyResource(template, 'AWS::CloudWatch::Dashboard');
  const parts = (resource.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const text = parts.map((p) => (typeof p === 'string' ? p : 'TOKEN')).join('');
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

describe('webhook delivery (CDK)', () => {
  let template: Template;

  beforeAll(() => {
    template = synthTemplate({ stage: 'prod', alarmEmail: 'ops@example.com' }).template;
  }, 180_000);

  it('one rule on the bus for every event of the bridge, to the ingest queue, with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['gym-bridge'] },
      Targets: [
        Match.objectLike({
          DeadLetterConfig: Match.anyValue(),
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
        }),
      ],
    });
  });

  it('the functions read the contract environment and consume their queues with partial batch responses', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('webhooks: signs and sends'),
      Environment: {
        Variables: Match.objectLike({
          [ENV.webhookTable]: Match.anyValue(),
          [ENV.webhookQueueUrl]: Match.anyValue(),
          [ENV.webhookSecretPrefix]: 'gym-bridge/prod/webhooks/',
          [ENV.eventBus]: Match.anyValue(),
          [ENV.eventSource]: 'gym-bridge',
        }),
      },
      Timeout: 60,
      Architectures: ['arm64'],
    });
    // The fan-out makes first attempts: everything an attempt needs, and its share of each rate.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('webhooks: matches each event'),
      Environment: {
        Variables: Match.objectLike({
          [ENV.webhookFanOutConcurrency]: '3',
          [ENV.webhookIngestQueueUrl]: Match.anyValue(),
          [ENV.webhookTable]: Match.anyValue(),
          [ENV.webhookQueueUrl]: Match.anyValue(),
          [ENV.webhookSecretPrefix]: 'gym-bridge/prod/webhooks/',
          [ENV.eventBus]: Match.anyValue(),
          [ENV.eventSource]: 'gym-bridge',
        }),
      },
      Timeout: 30,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 3 },
    });
  });

  it("the saved query of one event finds its deliveries in both functions' logs (first attempts, retries)", () => {
    const { resource } = onlyResource(template, 'AWS::Logs::QueryDefinition', (p) =>
      String(p.Name).endsWith('/webhook-event'),
    );
    const groups = (resource.Properties.LogGroupNames as unknown[]).map((g) => JSON.stringify(g));
    expect(groups).toHaveLength(2);
    expect(groups.some((g) => g.includes('WebhooksFanOutLogGroup'))).toBe(true);
    expect(groups.some((g) => g.includes('WebhooksDeliverLogGroup'))).toBe(true);
  });

  it('the key secrets: GetSecretValue under the webhook prefix only, for the two webhook functions', () => {
    const readers = Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: {
          PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Sid: 'ReadWebhookKeys' })]) },
        },
      }),
    );
    expect(readers).toHaveLength(2);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'ReadWebhookKeys',
            Action: 'secretsmanager:GetSecretValue',
            Resource: {
              'Fn::Join': [
                '',
                Match.arrayWith([Match.stringLikeRegexp(':secret:gym-bridge/prod/webhooks/\\*$')]),
              ],
            },
          }),
        ]),
      },
    });
  });

  it('a table of its own (on demand, TTL), queues with dead-letter queues, alarms and outputs', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 86_400,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 500 }),
    });
    for (const name of [
      'WebhookDeadLetters',
      'WebhookEndpointDisabled',
      'WebhookLatencyHigh',
      'WebhookQueueDeadLetters',
    ]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmDescription: Match.stringLikeRegexp(`docs/deploy.md#${name.toLowerCase()}$`),
      });
    }
    const outputs = Object.keys(template.toJSON().Outputs as Record<string, unknown>);
    expect(outputs).toEqual(
      expect.arrayContaining([
        'WebhookTableName',
        'WebhookQueueUrl',
        'WebhookRuleArn',
        'EventArchiveArn',
        'WebhookSecretPrefix',
      ]),
    );
  });

  it('the dashboard: per endpoint with metrics on, a SEARCH over endpointId for each of its four metrics', () => {
    const graphs = dashboardWidgets(template).filter((w) => w.properties?.title?.startsWith('Per endpoint'));
    const expressions = graphs.map((w) => {
      const [[line, ...more] = []] = w.properties!.metrics ?? [];
      expect(more).toEqual([]);
      return line as { expression: string; label: string };
    });
    const search = (name: string, statistic: string) =>
      `SEARCH('{${METRICS_NAMESPACE},endpointId,service} MetricName="${name}" service="gym-bridge-prod"', '${statistic}', 300)`;
    expect(expressions.map((e) => e.expression)).toEqual([
      search(METRIC.webhookDelivered, 'Sum'),
      search(METRIC.webhookAttemptsFailed, 'Sum'),
      search(METRIC.webhookLatency, 'p95'),
      search(METRIC.webhookOldestUndeliveredAge, 'Maximum'),
    ]);
    // Each series named by its endpoint (a CloudWatch dynamic label).
    const label = ['$', "{PROP('Dim.endpointId')}"].join('');
    expect(new Set(expressions.map((e) => e.label))).toEqual(new Set([label]));
    // Beside the fleet-wide graphs, which stay service-wide metrics.
    const fleet = dashboardWidgets(template).find((w) => w.properties?.title?.startsWith('Webhooks: queued'));
    expect(JSON.stringify(fleet)).not.toContain('endpointId');
  });
});
