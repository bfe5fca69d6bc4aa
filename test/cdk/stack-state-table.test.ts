/**
 * The stack's state table: key schema, PITR, encryption and TTL; its capacity mode, provisioned
 * throughput and auto scaling from the stage settings and the fleet's size; retention in prod.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stateTableKeySchema } from '../../lambdas/state/table';
import { devTemplate, fleetTemplate, prodTemplate } from './stack-fixture';
import { onlyResource, outsideWebhooks, synthTemplate } from './support';

let prod: Template;
let dev: Template;
let fleet: Template;

beforeAll(() => {
  prod = prodTemplate();
  dev = devTemplate();
  fleet = fleetTemplate();
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
