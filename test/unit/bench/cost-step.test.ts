/**
 * The bench's cost step (bench/steps/cost-step.ts): each fleet size is priced with the stage's
 * template synthesized for its own club count, so a small fleet pays its own table's min capacity,
 * not the floor of a table sized for 1,000 clubs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { MonthlyClubCounts } from '../../../bench/cost';
import { type DeploymentSettings, readDeploymentSettings } from '../../../bench/deployment';
import { QUICK_PLAN } from '../../../bench/plan';
import { PRICES } from '../../../bench/prices';
import type { DispatchRun } from '../../../bench/scale/dispatch';
import { type CostFigures, FLEET_SIZES, measureCosts } from '../../../bench/steps/cost-step';
import type { TypicalClubFigures } from '../../../bench/steps/typical-club-step';
import type { TypicalClubRun } from '../../../bench/typical-club';
import { DEFAULT_TABLE_TARGET_UTILIZATION, tableCapacityFor } from '../../../lib/fleet-sizing';

// 0.05 read units and 0.02 write units a club a second: at 100 clubs, below the 100-club table's min.
const monthly: MonthlyClubCounts = {
  pollInvocations: 43_200,
  pollLocalMs: 1e6,
  apiRequests: 100_000,
  criticalApiRequests: 50_000,
  tokenRequests: 720,
  pollStoreRequests: 200_000,
  putEventsRequests: 40_000,
  secretsCalls: 1440,
  readUnits: 129_600,
  writeUnits: 51_840,
  billedEvents: 90_000,
  eventBytes: 5e7,
  sqsMessages: 43_200,
  emfBytes: 3e6,
  logBytes: 3e6,
  perClubMetrics: 0,
  storedBytes: 2e6,
};
const run = { seed: 5, monthly } as unknown as TypicalClubRun;
const typical = { runs: [run], unconfirmedZone: run } as unknown as TypicalClubFigures;
const dispatchMemory = [{ cpuMs: 500 }] as DispatchRun[];
const RCU_HOUR = PRICES.dynamoReadCapacityUnitHour.usd;
const WCU_HOUR = PRICES.dynamoWriteCapacityUnitHour.usd;

describe('measureCosts by fleet size', () => {
  let prod: DeploymentSettings;
  let figures: CostFigures;
  const synthesized: number[] = [];

  beforeAll(() => {
    // Prepare: the prod stage's own template (1,000 clubs), and each size's as the step reads it.
    prod = readDeploymentSettings('prod');
    // Act
    figures = measureCosts(QUICK_PLAN, prod, typical, dispatchMemory, (clubs) => {
      synthesized.push(clubs);
      return readDeploymentSettings('prod', { clubs });
    });
  }, 120_000);

  it('prices the 100-club row with a table sized for 100 clubs: its min capacity, not the 1,000-club min', () => {
    // Assess
    expect(synthesized).toEqual([...FLEET_SIZES]);
    const sized = tableCapacityFor(100, DEFAULT_TABLE_TARGET_UTILIZATION);
    const row = figures.costs.byFleet.find((f) => f.clubs === 100)!;
    expect(row.settings?.tableMin).toEqual({ read: sized.read.min, write: sized.write.min });
    const line = (key: string) => row.cost.lines.find((l) => l.key === key)!;
    // 100 clubs x 0.05 RCU/s / 70% = 8 RCU, below the 100-club min: the min is priced.
    expect(line('dynamoReads').formula).toContain(`min ${sized.read.min})`);
    expect(sized.read.min).toBeGreaterThan(8);
    expect(line('dynamoReads').usd).toBeCloseTo((sized.read.min * 720 * RCU_HOUR) / 100, 10);
    expect(line('dynamoWrites').usd).toBeCloseTo((sized.write.min * 720 * WCU_HOUR) / 100, 10);
    // The stage's own template (1,000 clubs) would have charged its floor to 100 clubs.
    const prodTable = prod.tableCapacity;
    if (prodTable?.mode !== 'provisioned') throw new Error('prod is expected to be provisioned');
    expect(prodTable.read.min).toBeGreaterThan(sized.read.min);
    expect(line('dynamoReads').usd).toBeLessThan((prodTable.read.min * 720 * RCU_HOUR) / 100 / 2);
  });

  it("records each size's template: the 5,000-club row has its own poll concurrency and table min", () => {
    const row = (clubs: number) => figures.costs.byFleet.find((f) => f.clubs === clubs)!;
    const big = tableCapacityFor(5000, DEFAULT_TABLE_TARGET_UTILIZATION);
    expect(row(5000).settings?.tableMin).toEqual({ read: big.read.min, write: big.write.min });
    expect(row(5000).settings!.pollMaxConcurrency).toBeGreaterThan(row(100).settings!.pollMaxConcurrency);
    // 1,000 clubs is prod's own size: the same table as the stage's template and the same total.
    expect(row(1000).settings?.pollMaxConcurrency).toBe(prod.pollMaxConcurrency);
    expect(row(1000).cost.total).toBeCloseTo(figures.costs.default.total, 12);
  });
});
