/**
 * StateTableThrottled (lib/constructs/monitoring/alarms.ts): the state table's throttled reads and
 * writes, sustained, alarm to the alarm topic in both capacity modes; every alarm's runbook link
 * has its section in docs/deploy.md; the bench counts the alarm from the template.
 */
import { readFileSync } from 'node:fs';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDeploymentSettings } from '../../bench/deployment';
import { TABLE_THROTTLED_MINUTES } from '../../lib/constructs/monitoring';
import type { GymBridgeStack } from '../../lib/gym-bridge-stack';
import { buildStack, onlyResource, outsideWebhooks, type Resource, synthTemplate } from './support';

const PROD = { stage: 'prod', alarmEmail: 'ops@example.com' };
let prod: { stack: GymBridgeStack; template: Template };
let dev: Template;

beforeAll(() => {
  // The template the other CDK files share, and the same app's constructs for the alarm counts.
  prod = { stack: buildStack(PROD), template: synthTemplate(PROD).template };
  dev = synthTemplate({ stage: 'dev', exampleRules: 'false' }).template;
});

/** The table's throttle metric `name` (Sum a minute) as the alarm's Metrics array has it. */
const throttleMetric = (id: string, name: string, tableId: string) =>
  Match.objectLike({
    Id: id,
    ReturnData: false,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/DynamoDB',
        MetricName: name,
        Dimensions: [{ Name: 'TableName', Value: { Ref: tableId } }],
      },
      Period: 60,
      Stat: 'Sum',
    },
  });

const throttledAlarm = (tableId: string) => ({
  ComparisonOperator: 'GreaterThanThreshold',
  Threshold: 0,
  EvaluationPeriods: TABLE_THROTTLED_MINUTES,
  DatapointsToAlarm: TABLE_THROTTLED_MINUTES,
  AlarmDescription: Match.stringLikeRegexp('Runbook: docs/deploy.md#statetablethrottled$'),
  Metrics: Match.arrayWith([
    Match.objectLike({ Expression: 'FILL(reads, 0) + FILL(writes, 0)', ReturnData: true }),
    throttleMetric('reads', 'ReadThrottleEvents', tableId),
    throttleMetric('writes', 'WriteThrottleEvents', tableId),
  ]),
});

describe('StateTableThrottled', () => {
  it("fires on the state table's throttled reads and writes, every minute of five, to the alarm topic", () => {
    const table = onlyResource(prod.template, 'AWS::DynamoDB::Table', outsideWebhooks);
    expect(table.resource.Properties.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
    prod.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...throttledAlarm(table.id),
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
      OKActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
    });
    expect(TABLE_THROTTLED_MINUTES).toBe(5);
  });

  it('watches an on-demand table too (dev): on demand throttles past twice its peak, its quota or a hot partition', () => {
    const table = onlyResource(dev, 'AWS::DynamoDB::Table', outsideWebhooks);
    expect(table.resource.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    dev.hasResourceProperties('AWS::CloudWatch::Alarm', throttledAlarm(table.id));
  });

  it("every alarm's runbook link names a section of docs/deploy.md", () => {
    const deployMd = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const anchors = new Set(
      [...deployMd.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/\s+/g, '-')),
    );
    const alarms = Object.values(prod.template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    for (const alarm of alarms) {
      const link = /Runbook: docs\/deploy\.md#([a-z-]+)$/.exec(String(alarm.Properties.AlarmDescription));
      expect(link?.[1], String(alarm.Properties.AlarmDescription)).toBeDefined();
      expect(anchors, `docs/deploy.md#${link?.[1]}`).toContain(link?.[1]);
    }
  });

  it("is one of the stack's alarms, and the bench counts them all from the template", () => {
    const alarms = Object.keys(prod.stack.monitoring.alarms);
    expect(alarms).toContain('stateTableThrottled');
    // and the example rules' dead-letter alarms (lib/constructs/example-rules.ts), on in prod, and
    // the webhook delivery's (lib/constructs/webhook-monitoring.ts)
    const webhookAlarms = Object.keys(prod.stack.webhookMonitoring.alarms).length;
    const all = alarms.length + (prod.stack.exampleRules?.alarms.length ?? 0) + webhookAlarms;
    expect(all).toBe(alarms.length + 2 + webhookAlarms);
    expect(webhookAlarms).toBeGreaterThan(0);
    prod.template.resourceCountIs('AWS::CloudWatch::Alarm', all);
    expect(readDeploymentSettings('prod').fixed.alarms).toBe(all);
  });
});
