import { App, CfnWaitConditionHandle, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { clubCost, type MonthlyClubCounts } from '../../../bench/cost';
import { provisionedCost, tableCapacityOf, unitPrices } from '../../../bench/cost-dynamo-lines';
import type { DeploymentSettings, TableCapacitySettings } from '../../../bench/deployment';
import { readTableCapacity, TableCapacityError } from '../../../bench/deployment-table';
import { PRICES } from '../../../bench/prices';
import { StateTable } from '../../../lib/constructs/state-table';
import { benchDeployment } from '../../support/bench-deployment';

const counts: MonthlyClubCounts = {
  pollInvocations: 43_200,
  pollLocalMs: 1e6,
  apiRequests: 100_000,
  criticalApiRequests: 50_000,
  tokenRequests: 720,
  pollStoreRequests: 400_000,
  putEventsRequests: 40_000,
  secretsCalls: 1440,
  // 2,592,000 read units a 30-day month: 1 a second a club; 259,200 writes: 0.1 a second.
  readUnits: 2_592_000,
  writeUnits: 259_200,
  billedEvents: 90_000,
  eventBytes: 5e7,
  sqsMessages: 43_200,
  emfBytes: 3e7,
  logBytes: 3e7,
  perClubMetrics: 0,
  storedBytes: 2e6,
};
const share = { cpuMsPerClub: 0.1, requestsPerClub: 0.01, logBytesPerRun: 600 };
const RCU_HOUR = PRICES.dynamoReadCapacityUnitHour.usd;
const WCU_HOUR = PRICES.dynamoWriteCapacityUnitHour.usd;

const provisioned: TableCapacitySettings = {
  mode: 'provisioned',
  read: { provisioned: 329, min: 329, max: 1429, targetUtilizationPercent: 70 },
  write: { provisioned: 115, min: 115, max: 229, targetUtilizationPercent: 70 },
  scalableTargets: 2,
};
const withTable = (tableCapacity: TableCapacitySettings): DeploymentSettings => ({
  ...benchDeployment(),
  tableCapacity,
});
const lineOf = (d: DeploymentSettings, clubs: number, key: string) =>
  clubCost(counts, d, share, clubs).lines.find((l) => l.key === key)!;

describe('the state table priced in its capacity mode', () => {
  it('on demand (or a report from before the setting): each request unit at its price, no auto scaling alarms', () => {
    for (const d of [benchDeployment(), withTable({ mode: 'on-demand' })]) {
      expect(lineOf(d, 1000, 'dynamoReads').usd).toBeCloseTo(2_592_000 * PRICES.dynamoReadUnit.usd, 10);
      expect(lineOf(d, 1000, 'dynamoWrites').usd).toBeCloseTo(259_200 * PRICES.dynamoWriteUnit.usd, 10);
      expect(lineOf(d, 1000, 'dynamoReads').item).toMatch(/on demand/);
      expect(lineOf(d, 1000, 'tableAutoScalingAlarms').usd).toBe(0);
      expect(tableCapacityOf(d)).toEqual({ mode: 'on-demand' });
    }
  });

  it('provisioned: the fleet mean at the target as capacity-hours of a 30-day month, the alarms as a fleet cost', () => {
    const d = withTable(provisioned);
    // 1,000 clubs: 1,000 RCU/s / 70% = 1,428.6 -> 1,429 RCU; 100 WCU/s / 70% -> 143 WCU, over 720 h.
    const reads = lineOf(d, 1000, 'dynamoReads');
    expect(reads.usd).toBeCloseTo((1429 * 720 * RCU_HOUR) / 1000, 10);
    expect(reads.item).toBe('DynamoDB: reads (provisioned)');
    expect(reads.formula).toMatch(
      /^provisioned at 70%: max\(1,000 RCU\/s \/ 70%, min 329\) = 1,429 RCU × 720 h/,
    );
    expect(reads.formula).toMatch(/held at the scale-in threshold \(50%\) instead: \$0\.187/);
    expect(lineOf(d, 1000, 'dynamoWrites').usd).toBeCloseTo((143 * 720 * WCU_HOUR) / 1000, 10);
    // 2 scalable targets x 4 alarms x $0.10, shared by the fleet.
    const alarms = lineOf(d, 1000, 'tableAutoScalingAlarms');
    expect(alarms.fixed).toBe(true);
    expect(alarms.usd).toBeCloseTo((8 * PRICES.cloudWatchAlarmMonth.usd) / 1000, 10);
    expect(tableCapacityOf(d)).toEqual({ mode: 'provisioned', targetUtilization: 70 });
    // Far below on demand for the same units.
    expect(reads.usd).toBeLessThan(lineOf(benchDeployment(), 1000, 'dynamoReads').usd / 2);
  });

  it('provisioned: a small fleet pays the min capacity, whatever its load', () => {
    const d = withTable(provisioned);
    // 100 clubs: 100 RCU/s / 70% = 143, below the min of 329; writes 10 / 70% = 15, below 115.
    expect(lineOf(d, 100, 'dynamoReads').usd).toBeCloseTo((329 * 720 * RCU_HOUR) / 100, 10);
    expect(lineOf(d, 100, 'dynamoWrites').usd).toBeCloseTo((115 * 720 * WCU_HOUR) / 100, 10);
    expect(lineOf(d, 100, 'dynamoReads').formula).toMatch(/max\(100 RCU\/s \/ 70%, min 329\) = 329 RCU/);
    // Per club, the floor costs the small fleet more than the large one.
    expect(lineOf(d, 100, 'dynamoWrites').usd).toBeGreaterThan(lineOf(d, 1000, 'dynamoWrites').usd);
  });

  it('provisionedCost: a lower target costs more, the bound is the scale-in threshold, past the max is said', () => {
    const dim = { provisioned: 10, min: 10, max: 100, targetUtilizationPercent: 80 };
    // 864,000 units a club-month = 1/3 a second; 300 clubs: 100 a second.
    const at80 = provisionedCost(864_000, 300, dim, 1);
    expect(at80).toMatchObject({ capacity: 125, boundCapacity: 167, aboveMax: true });
    expect(at80.meanPerSecond).toBeCloseTo(100, 10);
    expect(at80.usdPerClub).toBeCloseTo((125 * 720) / 300, 10);
    expect(at80.boundUsdPerClub).toBeCloseTo((167 * 720) / 300, 10);
    const at50 = provisionedCost(864_000, 300, { ...dim, targetUtilizationPercent: 50, max: 1000 }, 1);
    expect(at50).toMatchObject({ capacity: 200, boundCapacity: 334, aboveMax: false });
    expect(at50.usdPerClub).toBeGreaterThan(at80.usdPerClub);
  });

  it('unitPrices: a unit costs its hour price / 3,600 at the target, provisioned; its request price on demand', () => {
    expect(unitPrices(benchDeployment())).toEqual({
      read: PRICES.dynamoReadUnit.usd,
      write: PRICES.dynamoWriteUnit.usd,
    });
    const p = unitPrices(withTable(provisioned));
    expect(p.read).toBeCloseTo(RCU_HOUR / 3600 / 0.7, 15);
    expect(p.write).toBeCloseTo(WCU_HOUR / 3600 / 0.7, 15);
  });
});

describe('readTableCapacity', () => {
  const synth = (build: (stack: Stack) => void) => {
    const stack = new Stack(new App(), 'Test');
    build(stack);
    return Template.fromStack(stack);
  };

  it('reads on demand, or the provisioned range and target from the scalable targets and their policies', () => {
    expect(readTableCapacity(synth((s) => new StateTable(s, 'State')))).toEqual({ mode: 'on-demand' });
    const template = synth(
      (s) =>
        new StateTable(s, 'State', {
          capacity: {
            mode: 'provisioned',
            targetUtilizationPercent: 65,
            read: { min: 40, max: 400 },
            write: { min: 12, max: 30 },
          },
        }),
    );
    expect(readTableCapacity(template)).toEqual({
      mode: 'provisioned',
      read: { provisioned: 40, min: 40, max: 400, targetUtilizationPercent: 65 },
      write: { provisioned: 12, min: 12, max: 30, targetUtilizationPercent: 65 },
      scalableTargets: 2,
    });
  });

  it('reads the state table beside another table (the webhooks table)', () => {
    const template = synth((s) => {
      new dynamodb.Table(s, 'Webhooks', {
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PROVISIONED,
      });
      new StateTable(s, 'State');
    });
    expect(readTableCapacity(template)).toEqual({ mode: 'on-demand' });
  });

  it('sums an index into the table and counts its scalable targets', () => {
    const template = synth((s) => {
      const table = new dynamodb.Table(s, 'T', {
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PROVISIONED,
        readCapacity: 5,
        writeCapacity: 2,
      });
      table.addGlobalSecondaryIndex({
        indexName: 'byX',
        partitionKey: { name: 'x', type: dynamodb.AttributeType.STRING },
        readCapacity: 3,
        writeCapacity: 1,
      });
      const scale = (a: dynamodb.IScalableTableAttribute) =>
        a.scaleOnUtilization({ targetUtilizationPercent: 70 });
      scale(table.autoScaleReadCapacity({ minCapacity: 5, maxCapacity: 50 }));
      scale(table.autoScaleWriteCapacity({ minCapacity: 2, maxCapacity: 20 }));
      scale(table.autoScaleGlobalSecondaryIndexReadCapacity('byX', { minCapacity: 3, maxCapacity: 30 }));
      scale(table.autoScaleGlobalSecondaryIndexWriteCapacity('byX', { minCapacity: 1, maxCapacity: 10 }));
    });
    expect(readTableCapacity(template)).toEqual({
      mode: 'provisioned',
      read: { provisioned: 8, min: 8, max: 80, targetUtilizationPercent: 70 },
      write: { provisioned: 3, min: 3, max: 30, targetUtilizationPercent: 70 },
      scalableTargets: 4,
    });
  });

  it('reads a TableV2 (GlobalTable) from its own auto scaling settings', () => {
    const template = synth(
      (s) =>
        new dynamodb.TableV2(s, 'T', {
          partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
          billing: dynamodb.Billing.provisioned({
            readCapacity: dynamodb.Capacity.autoscaled({
              minCapacity: 4,
              maxCapacity: 40,
              targetUtilizationPercent: 60,
            }),
            writeCapacity: dynamodb.Capacity.autoscaled({
              minCapacity: 2,
              maxCapacity: 20,
              targetUtilizationPercent: 60,
            }),
          }),
        }),
    );
    expect(readTableCapacity(template)).toMatchObject({
      mode: 'provisioned',
      read: { min: 4, max: 40, targetUtilizationPercent: 60 },
      write: { min: 2, max: 20, targetUtilizationPercent: 60 },
    });
    const onDemand = synth(
      (s) =>
        new dynamodb.TableV2(s, 'T', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } }),
    );
    expect(readTableCapacity(onDemand)).toEqual({ mode: 'on-demand' });
  });

  it('refuses a provisioned table without auto scaling, and a template without one table', () => {
    const fixed = synth(
      (s) =>
        new dynamodb.Table(s, 'T', {
          partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
          billingMode: dynamodb.BillingMode.PROVISIONED,
        }),
    );
    expect(() => readTableCapacity(fixed)).toThrow(TableCapacityError);
    expect(() => readTableCapacity(fixed)).toThrow(/no auto scaling on reads/);
    expect(() => readTableCapacity(synth((s) => new CfnWaitConditionHandle(s, 'NoTable')))).toThrow(
      /expected one state table in the template, found 0/,
    );
  });
});
