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
import { POLL_FUNCTION_MEMORY_MB } from '../../lambdas/engine/club-poll/heavy-polls';
import type { ClubReport } from '../../lambdas/engine/club-poll/poll-club';
import type { OverdueSource } from '../../lambdas/engine/dispatch/source-overdue';
import { logReport } from '../../lambdas/engine/poll-message/report-log';
import { ALL_DETAIL_TYPES, DETAIL_TYPES, eventJsonSchema } from '../../lambdas/events/catalog';
import { stateTableKeySchema } from '../../lambdas/state/table';
import { registrySchemaName } from '../../lib/constructs/event-bus';
import {
  CLUB_ACTIVITY_QUERY,
  CLUB_QUOTA_QUERY,
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  OVERDUE_SOURCES_QUERY,
  SOURCE_OVERDUE_LOG_MESSAGE,
} from '../../lib/constructs/monitoring';
import { pollConcurrencyFor } from '../../lib/stage-config';
import { captureLogs } from '../support/log-capture';
import {
  actionsOf,
  bridgeFunction,
  onlyResource,
  outsideWebhooks,
  type Resource,
  roleIdOf,
  statementsOfRole,
  synthTemplate,
} from './support';

const ALARM_EMAIL = 'ops@example.com';
let prod: Template;
let dev: Template;
let fleet: Template;

beforeAll(() => {
  prod = synthTemplate({ stage: 'prod', alarmEmail: ALARM_EMAIL }).template;
  dev = synthTemplate({ stage: 'dev', exampleRules: 'false', pollRateMinutes: '2' }).template;
  // The table quota raised (docs/deploy.md, "State table capacity"): 50,000 clubs' first hour needs it.
  fleet = synthTemplate({ stage: 'prod', clubs: '50000', tableMaxUnits: '80000' }).template;
});

const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const envOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

describe('functions', () => {
  it('run Node.js 22 on arm64 with source maps and the Powertools settings', () => {
    for (const role of ['dispatch', 'poll'] as const) {
      const { resource } = bridgeFunction(prod, role);
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      expect(envOf(resource)).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        [ENV.serviceName]: 'gym-bridge-prod',
        [ENV.metricsNamespace]: METRICS_NAMESPACE,
      });
    }
  });

  it('give the poll function the memory its heavy-poll bound is derived from', () => {
    // lambdas/engine/club-poll/heavy-polls.ts: the bound keeps a quarter of this memory free.
    for (const template of [prod, dev])
      expect(bridgeFunction(template, 'poll').resource.Properties.MemorySize).toBe(POLL_FUNCTION_MEMORY_MB);
  });

  it('log to their own log group with a retention', () => {
    for (const role of ['dispatch', 'poll'] as const) {
      const { resource } = bridgeFunction(prod, role);
      const logGroupId = (resource.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const logGroup = prod.toJSON().Resources[logGroupId] as Resource;
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('dispatch gets the table, the queue URL and the quota reserve', () => {
    const table = onlyResource(prod, 'AWS::DynamoDB::Table', outsideWebhooks).id;
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.RedrivePolicy !== undefined && p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    ).id;
    const env = envOf(bridgeFunction(prod, 'dispatch').resource);
    expect(env).toMatchObject({
      [ENV.stateTable]: { Ref: table },
      [ENV.pollQueueUrl]: { Ref: queue },
      [ENV.quotaReserve]: '0.1',
    });
    expect(env).not.toHaveProperty(ENV.eventBus);
    expect(env).not.toHaveProperty(ENV.clubSecretPrefix);
  });

  it('poll gets the table, bus, event source, secret prefix, PII default and a deadline below its timeout', () => {
    const { resource } = bridgeFunction(prod, 'poll');
    const env = envOf(resource);
    expect(env).toMatchObject({
      [ENV.stateTable]: { Ref: onlyResource(prod, 'AWS::DynamoDB::Table', outsideWebhooks).id },
      [ENV.eventBus]: { Ref: onlyResource(prod, 'AWS::Events::EventBus').id },
      [ENV.eventSource]: 'gym-bridge',
      [ENV.clubSecretPrefix]: 'gym-bridge/prod/clubs/',
      [ENV.piiPolicyDefault]: 'minimal',
    });
    const deadline = Number(env[ENV.pollDeadlineMs]);
    const timeoutMs = Number(resource.Properties.Timeout) * 1000;
    expect(deadline).toBeGreaterThan(0);
    expect(deadline).toBeLessThanOrEqual(timeoutMs - 10_000);
  });
});

/** Each dispatch schedule's input, parsed. */
const scheduleInputs = (template: Template) =>
  Object.values(template.findResources('AWS::Scheduler::Schedule')).map(
    (r) => JSON.parse(String((r.Properties.Target as { Input: string }).Input)) as Record<string, unknown>,
  );

describe('poller', () => {
  it('runs the dispatcher on a one-minute schedule, without retries of stale runs', () => {
    prod.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Target: {
        Arn: getAtt(bridgeFunction(prod, 'dispatch').id),
        RetryPolicy: { MaximumRetryAttempts: 0 },
      },
    });
    dev.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(2 minutes)' });
  });

  it('runs one schedule per dispatch shard, each naming its shard and stamping its scheduled time', () => {
    // 1,000 clubs (prod's default): one shard; 50,000 clubs: ten, shards 0..9 of 10.
    expect(scheduleInputs(prod)).toEqual([
      { shard: 0, shards: 1, scheduledAt: '<aws.scheduler.scheduled-time>' },
    ]);
    const inputs = scheduleInputs(fleet);
    expect(inputs.map((i) => i.shard).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, i) => i),
    );
    for (const input of inputs)
      expect(input).toMatchObject({ shards: 10, scheduledAt: '<aws.scheduler.scheduled-time>' });
    fleet.resourcePropertiesCountIs(
      'AWS::Scheduler::Schedule',
      {
        ScheduleExpression: 'rate(1 minute)',
        Target: {
          Arn: getAtt(bridgeFunction(fleet, 'dispatch').id),
          RetryPolicy: { MaximumRetryAttempts: 0 },
        },
      },
      10,
    );
  });

  it('spreads the polls over the dispatch period, and gives the dispatcher a vCPU share sized for its shard', () => {
    expect(envOf(bridgeFunction(prod, 'dispatch').resource)[ENV.dispatchSpreadSeconds]).toBe('60');
    expect(envOf(bridgeFunction(dev, 'dispatch').resource)[ENV.dispatchSpreadSeconds]).toBe('120');
    const dispatch = bridgeFunction(fleet, 'dispatch').resource.Properties;
    expect(dispatch.MemorySize).toBe(1024);
    expect(dispatch.Timeout).toBe(50);
    // 50,000 clubs need more poll Lambdas than 1,000 clubs: 2,500 invocations a minute of 13 s and
    // the fast lane's 3,000 of 6 s, doubled, within the event source's 1,000.
    fleet.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: pollConcurrencyFor(50_000, 20) },
    });
    expect(pollConcurrencyFor(50_000, 20)).toBe(1000);
  });

  it('the poll queue redrives to the DLQ and hides a message longer than a poll can run', () => {
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    );
    const redrive = queue.resource.Properties.RedrivePolicy as {
      deadLetterTargetArn: unknown;
      maxReceiveCount: number;
    };
    expect(redrive.maxReceiveCount).toBe(3);
    const dlqId = (redrive.deadLetterTargetArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(prod.toJSON().Resources[dlqId].Type).toBe('AWS::SQS::Queue');
    const pollTimeout = Number(bridgeFunction(prod, 'poll').resource.Properties.Timeout);
    // AWS's advice for SQS event sources: six times the function timeout.
    expect(Number(queue.resource.Properties.VisibilityTimeout)).toBe(6 * pollTimeout);
    for (const id of [queue.id, dlqId]) {
      expect(prod.toJSON().Resources[id].Properties.SqsManagedSseEnabled).toBe(true);
    }
  });

  it('the poll Lambda consumes the queue with partial batch responses and a maximum concurrency', () => {
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    ).id;
    prod.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: getAtt(queue),
      FunctionName: { Ref: bridgeFunction(prod, 'poll').id },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // One message an invocation, the message carrying 20 clubs: pollConcurrencyFor(1000, 20) = 34
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: pollConcurrencyFor(1000, 20) },
    });
    expect(pollConcurrencyFor(1000, 20)).toBe(34);
    const mapping = onlyResource(prod, 'AWS::Lambda::EventSourceMapping', outsideWebhooks);
    expect(mapping.resource.Properties.MaximumBatchingWindowInSeconds).toBeUndefined();
    dev.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it("the dispatcher puts the stage's pollBatchSize clubs in each poll message", () => {
    for (const template of [prod, dev]) {
      const env = bridgeFunction(template, 'dispatch').resource.Properties.Environment as {
        Variables: Record<string, unknown>;
      };
      expect(env.Variables).toMatchObject({ POLL_CLUBS_PER_MESSAGE: '20' });
    }
  });
});

describe('least privilege', () => {
  it('no statement of any bridge policy has a bare "*" resource', () => {
    for (const policy of Object.values(prod.findResources('AWS::IAM::Policy')) as Resource[]) {
      const statements = (policy.Properties.PolicyDocument as { Statement: { Resource: unknown }[] })
        .Statement;
      for (const statement of statements) {
        const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
        expect(resources).not.toContain('*');
      }
    }
  });

  it('dispatch reads the table and sends to the poll queue, nothing more', () => {
    const statements = statementsOfRole(prod, roleIdOf(bridgeFunction(prod, 'dispatch').resource));
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'dynamodb:GetItem', 'sqs:SendMessage']),
    );
    for (const forbidden of [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'events:PutEvents',
    ]) {
      expect(actions).not.toContain(forbidden);
    }
    expect(actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
  });

  it('poll writes the table, puts events on the bus only, and reads secrets under the club prefix only', () => {
    const statements = statementsOfRole(prod, roleIdOf(bridgeFunction(prod, 'poll').resource));
    expect(actionsOf(statements)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:DeleteMessage']),
    );
    const bus = onlyResource(prod, 'AWS::Events::EventBus').id;
    expect(statements).toContainEqual(
      expect.objectContaining({ Action: 'events:PutEvents', Resource: getAtt(bus) }),
    );
    const secrets = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('secretsmanager:')));
    expect(secrets).toHaveLength(1);
    expect(secrets[0]!.Action).toBe('secretsmanager:GetSecretValue');
    const arn = JSON.stringify(secrets[0]!.Resource);
    expect(arn).toContain(':secret:gym-bridge/prod/clubs/*');
  });

  it('the scheduler may invoke the dispatcher and nothing else', () => {
    const schedule = onlyResource(prod, 'AWS::Scheduler::Schedule').resource;
    const roleId = (schedule.Properties.Target as { RoleArn: { 'Fn::GetAtt': [string, string] } }).RoleArn[
      'Fn::GetAtt'
    ][0];
    const statements = statementsOfRole(prod, roleId);
    expect(actionsOf(statements)).toEqual(['lambda:InvokeFunction']);
    expect(JSON.stringify(statements)).toContain(bridgeFunction(prod, 'dispatch').id);
  });
});

describe('state table', () => {
  it('has PITR, encryption, TTL on expiresAt and the shared key schema, and no secondary index', () => {
    for (const template of [prod, dev]) {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: stateTableKeySchema.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: stateTableKeySchema.sortKey.name, KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      });
      // An index added later needs its own capacity and auto scaling in provisioned mode (state-table.ts).
      const table = onlyResource(template, 'AWS::DynamoDB::Table', outsideWebhooks).resource;
      expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
    }
  });

  it('is provisioned in prod, reads and writes auto scaled between the sizes for its clubs at 70%', () => {
    const table = onlyResource(prod, 'AWS::DynamoDB::Table', outsideWebhooks);
    expect(table.resource.Properties.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
    // 1,000 clubs (tableCapacityFor): half the steady mean at 70% to start, the first hour's for the max.
    expect(table.resource.Properties.ProvisionedThroughput).toEqual({
      ReadCapacityUnits: 143,
      WriteCapacityUnits: 53,
    });
    const onTable = { 'Fn::Join': ['', ['table/', { Ref: table.id }]] };
    const scaled = [
      ['Read', 143, 1429],
      ['Write', 53, 209],
    ] as const;
    for (const [dimension, min, max] of scaled) {
      const target = onlyResource(
        prod,
        'AWS::ApplicationAutoScaling::ScalableTarget',
        (p) => p.ScalableDimension === `dynamodb:table:${dimension}CapacityUnits`,
      );
      expect(target.resource.Properties).toMatchObject({
        ServiceNamespace: 'dynamodb',
        ResourceId: onTable,
        MinCapacity: min,
        MaxCapacity: max,
      });
      prod.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
        PolicyType: 'TargetTrackingScaling',
        ScalingTargetId: { Ref: target.id },
        TargetTrackingScalingPolicyConfiguration: {
          PredefinedMetricSpecification: { PredefinedMetricType: `DynamoDB${dimension}CapacityUtilization` },
          TargetValue: 70,
        },
      });
    }
    // A larger fleet, a larger range (past the default quota once raised).
    fleet.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ScalableDimension: 'dynamodb:table:ReadCapacityUnits',
      MinCapacity: 7143,
      MaxCapacity: 71_429,
    });
  });

  it('takes its capacity mode and target from the stage settings: dev on demand unless told', () => {
    dev.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      ProvisionedThroughput: Match.absent(),
    });
    dev.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    const onDemandProd = synthTemplate({ stage: 'prod', tableCapacity: 'on-demand' }).template;
    onDemandProd.hasResourceProperties('AWS::DynamoDB::Table', { BillingMode: 'PAY_PER_REQUEST' });
    onDemandProd.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 0);
    const devAt50 = synthTemplate({
      stage: 'dev',
      tableCapacity: 'provisioned',
      tableTargetUtilization: '50',
    });
    // 10 clubs at 50%, half the mean: 0.2 x 10 x 0.5 / 0.5 = 2 read units, 0.073 x 10 x 0.5 / 0.5 =
    // 0.73 -> 1 write unit.
    devAt50.template.hasResourceProperties('AWS::DynamoDB::Table', {
      ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 1 },
    });
    devAt50.template.resourcePropertiesCountIs(
      'AWS::ApplicationAutoScaling::ScalingPolicy',
      { TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 50 }) },
      2,
    );
  });

  it('is retained and protected in prod, deletable in dev', () => {
    const table = onlyResource(prod, 'AWS::DynamoDB::Table', outsideWebhooks).resource;
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(onlyResource(dev, 'AWS::DynamoDB::Table', outsideWebhooks).resource.DeletionPolicy).toBe('Delete');
  });
});

describe('event bus', () => {
  it('has an archive of everything on the bus', () => {
    prod.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: getAtt(onlyResource(prod, 'AWS::Events::EventBus').id),
      RetentionDays: 90,
      EventPattern: { account: [{ Ref: 'AWS::AccountId' }] },
    });
  });

  it('registers one draft-04 schema per detail-type whose detail is the catalog schema', () => {
    const schemas = Object.values(prod.findResources('AWS::EventSchemas::Schema')) as Resource[];
    expect(schemas.map((s) => s.Properties.SchemaName).sort()).toEqual(
      ALL_DETAIL_TYPES.map((t) => registrySchemaName('gym-bridge', t)).sort(),
    );
    for (const detailType of ALL_DETAIL_TYPES) {
      const schema = schemas.find(
        (s) => s.Properties.SchemaName === registrySchemaName('gym-bridge', detailType),
      )!;
      expect(schema.Properties.Type).toBe('JSONSchemaDraft4');
      const content = JSON.parse(String(schema.Properties.Content));
      expect(content.$schema).toBe('http://json-schema.org/draft-04/schema#');
      expect(content.properties['detail-type'].enum).toEqual([detailType]);
      expect(content.properties.source.enum).toEqual(['gym-bridge']);
      const { $schema: _s, title: _t, ...detail } = eventJsonSchema(detailType);
      expect(content.properties.detail).toEqual(detail);
    }
  });
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

describe('example rules', () => {
  it('route prospect events to the marketing queue', () => {
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': [DETAIL_TYPES.ProspectCreated, DETAIL_TYPES.ProspectStatusChanged],
      },
      Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue() })],
    });
  });

  it('e-mail PaymentIssue members as a summary that reads no member data, the whole event only with exampleRulesEmailDetail=full', () => {
    const rule = onlyResource(prod, 'AWS::Events::Rule', (p) =>
      JSON.stringify(p.EventPattern).includes(DETAIL_TYPES.MemberStatusChanged),
    );
    const operationsTopic = onlyResource(
      prod,
      'AWS::SNS::Topic',
      (p) => p.DisplayName === 'gym-bridge operations',
    );
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ detail: { status: ['PaymentIssue'] } }),
      Targets: [
        Match.objectLike({
          Arn: { Ref: operationsTopic.id },
          InputTransformer: {
            InputPathsMap: {
              'detail-clubId': '$.detail.clubId',
              'detail-subject-memberNumber': '$.detail.subject.memberNumber',
              'detail-previousStatus': '$.detail.previousStatus',
              'detail-status': '$.detail.status',
              'detail-occurredAt': '$.detail.occurredAt',
              'detail-eventId': '$.detail.eventId',
            },
            InputTemplate: Match.stringLikeRegexp(
              'member number: <detail-subject-memberNumber>[\\s\\S]*<detail-previousStatus> -> <detail-status>[\\s\\S]*look the member up by club and member number',
            ),
          },
          DeadLetterConfig: Match.anyValue(),
        }),
      ],
    });
    // Exactly those six paths, and a template that substitutes nothing else (no <aws.events.event>).
    const transformer = (
      rule.resource.Properties.Targets as { InputTransformer: Record<string, unknown> }[]
    )[0]!.InputTransformer;
    const template = String(transformer.InputTemplate);
    expect([...template.matchAll(/<([^>]+)>/g)].map((m) => m[1]).sort()).toEqual([
      'detail-clubId',
      'detail-eventId',
      'detail-occurredAt',
      'detail-previousStatus',
      'detail-status',
      'detail-subject-memberNumber',
    ]);
    expect(JSON.stringify(transformer)).not.toMatch(/\$\.detail\.data|"\$\.detail"|"\$"/);

    // The whole event only when the stage asks for it.
    const full = synthTemplate({
      stage: 'prod',
      alarmEmail: ALARM_EMAIL,
      exampleRulesEmailDetail: 'full',
    }).template;
    full.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ detail: { status: ['PaymentIssue'] } }),
      Targets: [Match.objectLike({ InputTransformer: Match.absent(), Input: Match.absent() })],
    });
  });

  it('route PaymentIssue and club health events to the operations topic', () => {
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': [DETAIL_TYPES.MemberStatusChanged],
        detail: { status: ['PaymentIssue'] },
      },
    });
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        'detail-type': Match.arrayWith([
          DETAIL_TYPES.ClubCredentialsRejected,
          DETAIL_TYPES.ClubDataStale,
          DETAIL_TYPES.ClubQuotaLow,
          DETAIL_TYPES.ClubSourceUnavailable,
        ]),
      },
    });
  });

  it('are left out when disabled', () => {
    // The one rule left is the webhook delivery's, deployed in every stage.
    const rules = Object.keys(dev.findResources('AWS::Events::Rule'));
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatch(/^Webhooks/);
  });
});
