/**
 * The stack's monitoring: the alarms (poll errors, overdue sources, rejected credentials, quota,
 * the poll DLQ) and the encrypted topic they notify, the SourceOverdue allowance, the saved Logs
 * Insights queries and the dashboard; each alarm and query reads what the runtime writes.
 */
import { readFileSync } from 'node:fs';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CLUB_POLLED_LOG_MESSAGE,
  ENV,
  METRIC,
  METRICS_NAMESPACE,
} from '../../lambdas/common/deployment-contract';
import { logger } from '../../lambdas/common/logger';
import type { ClubReport } from '../../lambdas/engine/club-poll/poll-club';
import type { OverdueSource } from '../../lambdas/engine/dispatch/source-overdue';
import { logReport } from '../../lambdas/engine/poll-message/report-log';
import {
  CLUB_ACTIVITY_QUERY,
  CLUB_QUOTA_QUERY,
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  OVERDUE_SOURCES_QUERY,
  SOURCE_OVERDUE_LOG_MESSAGE,
} from '../../lib/constructs/monitoring';
import { captureLogs } from '../support/log-capture';
import { ALARM_EMAIL, devTemplate, envOf, prodTemplate } from './stack-fixture';
import { bridgeFunction, onlyResource, outsideWebhooks, type Resource, synthTemplate } from './support';

let prod: Template;
let dev: Template;

beforeAll(() => {
  prod = prodTemplate();
  dev = devTemplate();
});

describe('alarms', () => {
  const customMetricAlarm = (template: Template, metricName: string, comparison: string) =>
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: metricName,
      Dimensions: [{ Name: 'service', Value: 'gym-bridge-prod' }],
      ComparisonOperator: comparison,
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
    });

  it('watch poll errors, overdue sources, rejected credentials and quota above 80%', () => {
    customMetricAlarm(prod, METRIC.pollErrors, 'GreaterThanOrEqualToThreshold');
    customMetricAlarm(prod, METRIC.sourcesOverdue, 'GreaterThanOrEqualToThreshold');
    customMetricAlarm(prod, METRIC.credentialsRejected, 'GreaterThanOrEqualToThreshold');
    customMetricAlarm(prod, METRIC.quotaUsedShare, 'GreaterThanThreshold');
    prod.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC.quotaUsedShare,
      Threshold: 0.8,
    });
  });

  it('fire when the poll DLQ holds a message', () => {
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    ).resource;
    const dlqId = (queue.Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string] } })
      .deadLetterTargetArn['Fn::GetAtt'][0];
    prod.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('notify an encrypted topic with the alarm e-mail subscribed, or nobody when none is configured', () => {
    const topic = onlyResource(prod, 'AWS::SNS::Topic', (p) => String(p.DisplayName).includes('alarms'));
    expect(topic.resource.Properties.KmsMasterKeyId).toBeDefined();
    prod.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: ALARM_EMAIL,
      TopicArn: { Ref: topic.id },
    });
    // CloudWatch may publish (topic policy, this account's alarms only) and use the topic's key.
    prod.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic.id }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ]),
      },
    });
    const keyId = (topic.resource.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const keyPolicy = JSON.stringify(prod.toJSON().Resources[keyId].Properties.KeyPolicy);
    expect(keyPolicy).toContain('cloudwatch.amazonaws.com');
    expect(keyPolicy).toContain('kms:GenerateDataKey*');
    for (const alarm of Object.values(dev.findResources('AWS::CloudWatch::Alarm')) as Resource[]) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });

  it('SourceOverdue: fleet-wide, on the metric the dispatcher writes, its allowance in minutes from one setting', () => {
    // The alarm reads the name the runtime writes (METRIC.sourcesOverdue, written by
    // publishDispatchMetrics), service-wide: no per-club dimension.
    prod.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: Match.absent(),
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.sourcesOverdue,
      Dimensions: [{ Name: 'service', Value: 'gym-bridge-prod' }],
      Statistic: 'Maximum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 1,
      TreatMissingData: 'notBreaching',
      AlarmDescription: Match.stringLikeRegexp(
        `max\\(3 x its cadence, ${DEFAULT_SOURCE_OVERDUE_MINUTES} minutes\\).*gym-bridge-prod/overdue-sources.*Runbook: docs/deploy.md#sourceoverdue`,
      ),
    });
    expect(JSON.stringify(prod.findResources('AWS::CloudWatch::Alarm'))).not.toContain('WatermarkLag');
    // The dispatcher gets the same allowance, in minutes.
    expect(envOf(bridgeFunction(prod, 'dispatch').resource)).toMatchObject({
      [ENV.sourceOverdueMinutes]: String(DEFAULT_SOURCE_OVERDUE_MINUTES),
    });
    const custom = synthTemplate({
      stage: 'dev',
      sourceOverdueMinutes: '45',
      pollRateMinutes: '10',
    }).template;
    custom.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC.sourcesOverdue,
      AlarmDescription: Match.stringLikeRegexp('45 minutes'),
      Period: 600, // at least one dispatcher run per period
    });
    expect(envOf(bridgeFunction(custom, 'dispatch').resource)).toMatchObject({
      [ENV.sourceOverdueMinutes]: '45',
    });
  });

  it('a saved Logs Insights query on the dispatch log group lists the overdue club/sources', () => {
    const dispatchLogGroup = (
      bridgeFunction(prod, 'dispatch').resource.Properties.LoggingConfig as { LogGroup: { Ref: string } }
    ).LogGroup.Ref;
    prod.hasResourceProperties('AWS::Logs::QueryDefinition', {
      Name: 'gym-bridge-prod/overdue-sources',
      LogGroupNames: [{ Ref: dispatchLogGroup }],
      QueryString: Match.stringLikeRegexp(
        `filter message = '${SOURCE_OVERDUE_LOG_MESSAGE}'[\\s\\S]*by clubId, source[\\s\\S]*sort sinceSuccessS desc`,
      ),
    });
    // The fields the query reads are the ones the dispatcher logs (OverdueSource).
    const example: Required<OverdueSource> = {
      clubId: 'c',
      source: 'visits',
      sinceSuccessSeconds: 1,
      cadenceSeconds: 1,
      allowedSeconds: 1,
      lastSuccessAt: '',
      consecutiveFailures: 0,
      lastErrorKind: '',
      lastErrorAt: '',
      reason: '',
    };
    const query = OVERDUE_SOURCES_QUERY.toString();
    for (const field of [
      'sinceSuccessSeconds',
      'allowedSeconds',
      'consecutiveFailures',
      'lastErrorKind',
      'reason',
    ]) {
      expect(Object.keys(example)).toContain(field);
      expect(query).toContain(field);
    }
  });

  it('every alarm on a bridge metric reads a metric the handlers write', () => {
    // The metric helpers are where every metric is written: an alarm on a name they never use
    // would never fire.
    // (the webhook delivery writes its own, lambdas/delivery/delivery-report.ts).
    const written = ['../../lambdas/common/metrics.ts', '../../lambdas/delivery/delivery-report.ts']
      .map((path) => readFileSync(new URL(path, import.meta.url), 'utf8'))
      .join('\n');
    const alarms = (Object.values(prod.findResources('AWS::CloudWatch::Alarm')) as Resource[]).filter(
      (a) => a.Properties.Namespace === METRICS_NAMESPACE,
    );
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      const key = Object.entries(METRIC).find(([, name]) => name === alarm.Properties.MetricName)?.[0];
      expect(key, `alarm on ${String(alarm.Properties.MetricName)}`).toBeDefined();
      expect(written).toContain(`METRIC.${key}`);
    }
  });

  it('every bridge metric an alarm or the dashboard reads is service-wide: no metric per club', () => {
    for (const alarm of Object.values(prod.findResources('AWS::CloudWatch::Alarm')) as Resource[]) {
      if (alarm.Properties.Namespace !== METRICS_NAMESPACE) continue;
      expect(alarm.Properties.Dimensions).toEqual([{ Name: 'service', Value: 'gym-bridge-prod' }]);
    }
    const body = JSON.stringify(
      onlyResource(prod, 'AWS::CloudWatch::Dashboard').resource.Properties.DashboardBody,
    );
    // The one exception: the opt-in metrics of a webhook endpoint (test/cdk/webhooks.test.ts).
    const searches = body.match(/SEARCH\('\{[^}]*\}/g) ?? [];
    expect(searches.length).toBeGreaterThan(0);
    for (const s of searches) expect(s).toBe(`SEARCH('{${METRICS_NAMESPACE},endpointId,service}`);
  });

  it("saved queries list each club's activity and quota from its `club polled` lines (poll log)", () => {
    const logGroupOf = (role: 'dispatch' | 'poll') =>
      (bridgeFunction(prod, role).resource.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup
        .Ref;
    prod.hasResourceProperties('AWS::Logs::QueryDefinition', {
      Name: 'gym-bridge-prod/club-activity',
      LogGroupNames: [{ Ref: logGroupOf('poll') }],
      QueryString: Match.stringLikeRegexp(
        `message = '${CLUB_POLLED_LOG_MESSAGE}'[\\s\\S]*sum\\(events\\)[\\s\\S]*sum\\(requests\\)[\\s\\S]*by clubId`,
      ),
    });
    prod.hasResourceProperties('AWS::Logs::QueryDefinition', {
      Name: 'gym-bridge-prod/club-quota',
      LogGroupNames: [{ Ref: logGroupOf('poll') }],
      QueryString: Match.stringLikeRegexp(
        `message = '${CLUB_POLLED_LOG_MESSAGE}'[\\s\\S]*latest\\(quotaUsedShare\\)[\\s\\S]*by clubId`,
      ),
    });
    // And the webhook deliveries' (lib/constructs/webhook-monitoring.ts).
    prod.resourceCountIs('AWS::Logs::QueryDefinition', 4);
  });

  it('the per-club queries read fields the `club polled` line writes', () => {
    // Prepare: a poll with every figure the queries read (429s, a failed source, the quota).
    const report = {
      clubId: 'club-1',
      outcome: 'failed',
      sources: [{ source: 'visits', outcome: 'completed', pages: 1, records: 5, events: 2, quarantined: 0 }],
      failures: [{ source: 'visits', kind: 'unavailable', message: 'HTTP 503' }],
      requests: 2,
      tokenRequests: 0,
      quotaUsed: 10,
      operationalEvents: [],
    } as unknown as ClubReport;
    const logs = captureLogs();
    try {
      // Act
      const poll = { nowMs: 0, durationMs: 900, rateLimited: 1, plan: 'basic' } as const;
      logReport(logger.createChild({ persistentKeys: { clubId: 'club-1' } }), report, poll);
    } finally {
      logs.stop();
    }
    // Assess: every field a stats statement reads or groups by is on the line.
    const line = logs.lines.find((l) => l.message === CLUB_POLLED_LOG_MESSAGE)!;
    for (const query of [CLUB_ACTIVITY_QUERY, CLUB_QUOTA_QUERY]) {
      const text = query.toString();
      const fields = [...text.matchAll(/(?:sum|max|latest)\((\w+)\)|by (\w+)/g)].map((m) => m[1] ?? m[2]);
      expect(fields.length).toBeGreaterThan(1);
      for (const field of fields) expect(line, `${field} (${text})`).toHaveProperty(field!);
    }
  });

  it('one dashboard shows freshness, the overdue clubs, events, quota per club and errors', () => {
    const { resource } = onlyResource(prod, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(resource.Properties.DashboardBody);
    expect(body).toContain(SOURCE_OVERDUE_LOG_MESSAGE);
    expect(body).toContain('"type\\":\\"log\\"');
    for (const metric of [
      METRIC.sourcesOverdue,
      METRIC.oldestSuccessAgeSeconds,
      METRIC.eventsPublished,
      METRIC.quotaUsedShare,
      METRIC.pollErrors,
    ]) {
      expect(body).toContain(metric);
    }
    // The quota per club: the poll log's `club polled` lines, by clubId.
    expect(body).toContain(`message = '${CLUB_POLLED_LOG_MESSAGE}'`);
    expect(body).toContain('by clubId');
  });
});
