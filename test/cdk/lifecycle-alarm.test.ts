/**
 * LifecycleFailing (lib/constructs/monitoring/alarms.ts): a club's lifecycle evaluations failing
 * in two hours in a row alarm to the alarm topic, on the poll's LifecycleFailures metric, with its
 * runbook entry in docs/deploy.md; the dashboard graphs the metric with the other errors.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../../lambdas/common/deployment-contract';
import { synthTemplate } from './support';

let prod: Template;

beforeAll(() => {
  prod = synthTemplate({ stage: 'prod', alarmEmail: 'ops@example.com' }).template;
});

describe('LifecycleFailing', () => {
  it('fires when lifecycle evaluations fail in two hours in a row, to the alarm topic', () => {
    prod.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.lifecycleFailures,
      Dimensions: [{ Name: 'service', Value: 'gym-bridge-prod' }],
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 1,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmDescription: Match.stringLikeRegexp('Runbook: docs/deploy.md#lifecyclefailing$'),
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
      OKActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
    });
  });

  it('is on the dashboard with the other errors', () => {
    const dashboards = Object.values(prod.findResources('AWS::CloudWatch::Dashboard'));
    expect(JSON.stringify(dashboards)).toContain(METRIC.lifecycleFailures);
  });
});
