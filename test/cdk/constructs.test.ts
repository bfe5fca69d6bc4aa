import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { ALL_DETAIL_TYPES, DETAIL_TYPES } from '../../lambdas/events/catalog';
import { ClubSecrets, ClubSecretsPrefixError } from '../../lib/constructs/club-secrets';
import { BridgeEventBus, registrySchemaName } from '../../lib/constructs/event-bus';
import { exampleEventPatterns } from '../../lib/constructs/example-rules';
import { Poller, PollerConfigError, type PollerProps } from '../../lib/constructs/poller';
import { StateTable } from '../../lib/constructs/state-table';
import { FIXTURE_ENTRIES, synthTemplate } from './support';

const newStack = () => new Stack(new App(), 'Test');

describe('StateTable', () => {
  it('uses a customer managed key when one is given', () => {
    const stack = newStack();
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    new StateTable(stack, 'State', { encryptionKey: key });
    Template.fromStack(stack).hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: {
        SSEEnabled: true,
        SSEType: 'KMS',
        KMSMasterKeyId: { 'Fn::GetAtt': [stack.getLogicalId(key.node.defaultChild as kms.CfnKey), 'Arn'] },
      },
    });
  });

  it('is on demand unless given provisioned capacity, which it auto scales on reads and writes', () => {
    const onDemand = newStack();
    new StateTable(onDemand, 'State');
    Template.fromStack(onDemand).hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
    });
    const provisioned = newStack();
    new StateTable(provisioned, 'State', {
      capacity: {
        mode: 'provisioned',
        targetUtilizationPercent: 60,
        read: { min: 3, max: 30 },
        write: { min: 2, max: 9 },
      },
    });
    const template = Template.fromStack(provisioned);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 2 },
    });
    for (const [dimension, min, max] of [
      ['Read', 3, 30],
      ['Write', 2, 9],
    ] as const) {
      template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
        ScalableDimension: `dynamodb:table:${dimension}CapacityUnits`,
        MinCapacity: min,
        MaxCapacity: max,
      });
    }
    template.resourcePropertiesCountIs(
      'AWS::ApplicationAutoScaling::ScalingPolicy',
      { TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 60 }) },
      2,
    );
  });
});

describe('ClubSecrets', () => {
  it.each(['gym-bridge/clubs', 'gym bridge/', ''])('rejects the prefix %o', (prefix) => {
    expect(() => new ClubSecrets(newStack(), 'Secrets', { secretNamePrefix: prefix })).toThrow(
      ClubSecretsPrefixError,
    );
  });
});

describe('Poller settings', () => {
  const pollerProps = (stack: Stack, overrides: Partial<PollerProps>): PollerProps => ({
    stateTable: new StateTable(stack, 'State'),
    eventBus: new BridgeEventBus(stack, 'Events'),
    clubSecrets: new ClubSecrets(stack, 'Secrets'),
    handlerEntries: FIXTURE_ENTRIES,
    ...overrides,
  });

  it.each([
    [{ pollRate: Duration.seconds(30) }, /pollRate must be whole minutes/],
    [{ pollRate: Duration.seconds(90) }, /pollRate must be whole minutes/],
    [{ maxConcurrency: 1 }, /maxConcurrency must be an integer in 2\.\.1000/],
    [
      { batchSize: 21 },
      /batchSize must be a whole number in 1\.\.20 \(the poll function's memory, measured\)/,
    ],
    [{ batchSize: 0 }, /batchSize must be a whole number in 1\.\.20/],
    [{ maxReceiveCount: 0 }, /maxReceiveCount/],
    [{ quotaReserve: 1 }, /quotaReserve must be 0 <= x < 1, got 1/],
    [{ pollTimeout: Duration.seconds(25) }, /pollTimeout .* must exceed pollDeadlineMargin/],
    [
      { dispatchShards: 0 },
      /dispatchShards must be an integer in 1\.\.64 \(the club directory's buckets\), got 0/,
    ],
    [{ dispatchShards: 65 }, /dispatchShards must be an integer in 1\.\.64/],
    [{ dispatchMemoryMb: 100 }, /dispatchMemoryMb must be an integer in 128\.\.10240/],
  ])('rejects %o before building anything', (overrides, message) => {
    const stack = newStack();
    expect(() => new Poller(stack, 'Poller', pollerProps(stack, overrides))).toThrow(PollerConfigError);
    expect(() => new Poller(newStack(), 'Poller', pollerProps(newStack(), overrides))).toThrow(message);
  });
});

describe('BridgeEventBus', () => {
  it('names registry schemas <source>@<DetailTypeKey>', () => {
    expect(registrySchemaName('gym-bridge', DETAIL_TYPES.MemberStatusChanged)).toBe(
      'gym-bridge@MemberStatusChanged',
    );
    expect(registrySchemaName('acme gyms', DETAIL_TYPES.ClubQuotaLow)).toBe('acme-gyms@ClubQuotaLow');
  });

  it('registers the schemas under its own event source', () => {
    const stack = newStack();
    new BridgeEventBus(stack, 'Events', { eventSource: 'acme.gyms', registryName: 'acme-events' });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::EventSchemas::Registry', { RegistryName: 'acme-events' });
    const names = Object.values(template.findResources('AWS::EventSchemas::Schema')).map(
      (r) => (r as { Properties: { SchemaName: string } }).Properties.SchemaName,
    );
    expect(names.sort()).toEqual(ALL_DETAIL_TYPES.map((t) => registrySchemaName('acme.gyms', t)).sort());
  });
});

describe('example rule patterns', () => {
  it('use the catalog detail-types and the deployment source', () => {
    const patterns = exampleEventPatterns('acme.gyms');
    expect(patterns.operationsPaymentIssue).toEqual({
      source: ['acme.gyms'],
      detailType: [DETAIL_TYPES.MemberStatusChanged],
      detail: { status: ['PaymentIssue'] },
    });
    expect(patterns.marketingProspects.detailType).toEqual([
      DETAIL_TYPES.ProspectCreated,
      DETAIL_TYPES.ProspectStatusChanged,
    ]);
  });
});

describe('an existing alarm topic', () => {
  it('receives the alarms and no topic of our own is created for them', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';
    const { template } = synthTemplate({ stage: 'dev', alarmTopicArn: arn, exampleRules: false });
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::KMS::Key', 0);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as {
      Properties: { AlarmActions?: unknown[] };
    }[];
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([arn]);
  });
});
