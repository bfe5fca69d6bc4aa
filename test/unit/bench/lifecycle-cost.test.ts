/**
 * The lifecycle line of the bench (bench/lifecycle-cost.ts): the on/off difference scaled to a
 * month and priced, the bound that covers what a short span cannot show.
 */
import { describe, expect, it } from 'vitest';
import { emptyStoreCounts } from '../../../bench/counting-store';
import type { TableCapacitySettings } from '../../../bench/deployment';
import { lifecycleCost } from '../../../bench/lifecycle-cost';
import { PRICES } from '../../../bench/prices';
import { benchDeployment } from '../../support/bench-deployment';

const deployment = benchDeployment({ poll: { memoryMb: 1769 }, fixed: { tablePitr: false } });

const store = (readUnits: number, writeUnits: number, calls: Record<string, number>) => ({
  ...emptyStoreCounts(),
  readUnits,
  writeUnits,
  apiRequests: Object.values(calls).reduce((a, b) => a + b, 0),
  calls,
  byMethod: Object.fromEntries(
    Object.keys(calls).map((m) => [
      m,
      { items: 0, readUnits: m === 'getLifecycle' ? readUnits / 10 : 0, writeUnits: 0 },
    ]),
  ),
});

describe('lifecycleCost', () => {
  it('prices what lifecycle-on adds over lifecycle-off, per 30-day month, and bounds writes and events', () => {
    // Prepare: 3 days; on adds 48 reads and 12 writes a day of units, 72 evaluations of 20 ms.
    const days = 3;
    const on = {
      options: { seed: 5, members: 3000, spanMs: days * 86_400_000 } as never,
      requests: { data: 1000, token: 9, reauth401: 0, dataWallMs: 0, bySource: {}, aheadBySource: {} },
      pollStore: store(1000 + 144, 500 + 36, { getLifecycle: 72, putSnapshots: 40 }),
      lifecycle: { evaluations: 72, published: 6, ms: 72 * 20, waiting: 3, docBytes: 3000, deltaBytes: 500 },
    };
    const off = {
      requests: { data: 1000, token: 7, reauth401: 0, dataWallMs: 0, bySource: {}, aheadBySource: {} },
      pollStore: store(1000, 500, { putSnapshots: 40 }),
    };
    // Act
    const cost = lifecycleCost(on, off, deployment);
    // Assess
    expect(cost.added.apiRequests).toBe(0); // token requests are the wall clock's, not counted
    expect(cost.added.readUnits).toBeCloseTo(144 * 10);
    expect(cost.added.writeUnits).toBeCloseTo(36 * 10);
    expect(cost.added.byMethod).toEqual({
      getLifecycle: { calls: 720, readUnits: expect.any(Number), writeUnits: 0 },
    });
    expect(cost.usd.dynamoReads).toBeCloseTo(1440 * PRICES.dynamoReadUnit.usd);
    expect(cost.usd.dynamoWritesBound).toBeCloseTo(720 * 3 * PRICES.dynamoWriteUnit.usd); // 3 KB: 3 units
    // 720 evaluations x 20 ms at a full vCPU, plus 72 x 10 store calls x 5 ms, at 1769 MB.
    const gbSeconds = ((720 * 20 + 720 * 5) / 1000) * (1769 / 1024);
    expect(cost.usd.lambda).toBeCloseTo(gbSeconds * PRICES.lambdaArmGbSecond.usd);
    expect(cost.usd.eventsBound).toBeGreaterThan(cost.usd.events);
    expect(cost.usd.totalBound).toBeGreaterThan(cost.usd.total);
    expect(cost.msPerEvaluation).toBe(20);
  });

  it('counts the visit history the first evaluation reads once a club, never as a monthly request', () => {
    // Prepare: one day; lifecycle on read 40 pages of visit history at its first evaluation.
    const on = {
      options: { seed: 5, members: 3000, spanMs: 86_400_000 } as never,
      requests: { data: 1040, token: 9, reauth401: 0, dataWallMs: 0, bySource: {}, aheadBySource: {} },
      pollStore: store(1000, 500, { putSnapshots: 40 }),
      lifecycle: {
        evaluations: 24,
        published: 0,
        ms: 24 * 20,
        waiting: 0,
        docBytes: 3000,
        deltaBytes: 0,
        historyRequests: 40,
        historyRequestsOnce: 40,
      },
    };
    const off = {
      requests: { data: 1000, token: 7, reauth401: 0, dataWallMs: 0, bySource: {}, aheadBySource: {} },
      pollStore: store(1000, 500, { putSnapshots: 40 }),
    };
    // Act
    const cost = lifecycleCost(on, off, deployment);
    // Assess
    expect(cost.added.apiRequests).toBe(0);
    expect(cost.oneOff).toEqual({ visitHistoryRequests: 40 });
  });

  it('prices the added units in a provisioned table as the capacity they add at the target, the bound held at the scale-in threshold', () => {
    // Prepare: 3 days (x10 a month); lifecycle on adds 25,920 reads and 3,000 writes a club-month.
    const provisioned: TableCapacitySettings = {
      mode: 'provisioned',
      // Floors below the fleet's load with the added units and without (half its steady mean).
      read: { provisioned: 40, min: 40, max: 1429, targetUtilizationPercent: 70 },
      write: { provisioned: 10, min: 10, max: 229, targetUtilizationPercent: 70 },
      scalableTargets: 2,
    };
    const days = 3;
    const on = {
      options: { seed: 5, members: 3000, spanMs: days * 86_400_000 } as never,
      requests: { data: 1000, token: 9, reauth401: 0, dataWallMs: 0, bySource: {}, aheadBySource: {} },
      pollStore: store(14_400 + 2_592, 2_600 + 300, { getLifecycle: 72, putSnapshots: 40 }),
      lifecycle: {
        evaluations: 72,
        published: 6,
        ms: 72 * 20,
        waiting: 3,
        docBytes: 60_000,
        deltaBytes: 500,
      },
    };
    const off = {
      requests: { data: 1000, token: 7, reauth401: 0, dataWallMs: 0, bySource: {}, aheadBySource: {} },
      pollStore: store(14_400, 2_600, { putSnapshots: 40 }),
    };
    const onDemand = lifecycleCost(on, off, deployment, 1000);
    // Act
    const cost = lifecycleCost(on, off, { ...deployment, tableCapacity: provisioned }, 1000);
    // Assess: base 144,000 reads a club-month (55.6 a second for 1,000 clubs / 70% = 80 RCU), with
    // the lifecycle 169,920 (65.6 / 70% = 94 RCU): 14 RCU over 720 h, shared by 1,000 clubs.
    const RCU = PRICES.dynamoReadCapacityUnitHour.usd;
    const WCU = PRICES.dynamoWriteCapacityUnitHour.usd;
    expect(cost.added.readUnits).toBeCloseTo(25_920);
    expect(cost.usd.dynamoReads).toBeCloseTo((14 * 720 * RCU) / 1000, 12);
    // Writes: 26,000 -> 29,000 a club-month, 10.03 -> 11.19 a second: 15 -> 16 WCU.
    expect(cost.usd.dynamoWrites).toBeCloseTo((1 * 720 * WCU) / 1000, 12);
    expect(cost.pricedAs).toEqual({
      mode: 'provisioned',
      fleetClubs: 1000,
      targetUtilizationPercent: 70,
      addedCapacity: { read: 14, write: 1 },
      // Held at 50%: 112 -> 132 RCU (20), 21 -> 23 WCU (2).
      heldUsd: {
        reads: expect.closeTo((20 * 720 * RCU) / 1000, 12),
        writes: expect.closeTo((2 * 720 * WCU) / 1000, 12),
      },
    });
    // The writes' bound: the base (59 units) x 60 + the delta (1 unit) x 720 = 4,260 a club-month,
    // held at 50%: 26,000 -> 30,260 a club-month, 21 -> 24 WCU; above the measured writes held (2).
    expect(cost.usd.dynamoWritesBound).toBeCloseTo((3 * 720 * WCU) / 1000, 12);
    const held = (20 * 720 * RCU + 3 * 720 * WCU) / 1000;
    const rest = cost.usd.storage + cost.usd.lambda + Math.max(cost.usd.events, cost.usd.eventsBound);
    expect(cost.usd.totalBound).toBeCloseTo(held + rest, 12);
    expect(cost.usd.totalBound).toBeGreaterThan(cost.usd.total);
    // On demand the same units cost their request prices; the rest is the same in both modes.
    expect(onDemand.pricedAs).toEqual({ mode: 'on-demand' });
    expect(onDemand.usd.dynamoReads).toBeCloseTo(25_920 * PRICES.dynamoReadUnit.usd, 12);
    expect(cost.usd.dynamoReads).toBeLessThan(onDemand.usd.dynamoReads);
    expect(cost.usd.lambda).toBe(onDemand.usd.lambda);
    // A floor above the load with the added reads and without (200 RCU > 94, and > 132 at 50%): the
    // floor is paid either way, the added reads cost nothing.
    const floored = { ...provisioned, read: { ...provisioned.read, provisioned: 200, min: 200 } };
    const underFloor = lifecycleCost(on, off, { ...deployment, tableCapacity: floored }, 1000);
    expect(underFloor.usd.dynamoReads).toBe(0);
    expect(underFloor.pricedAs).toMatchObject({ addedCapacity: { read: 0 }, heldUsd: { reads: 0 } });
    expect(underFloor.usd.dynamoWrites).toBeCloseTo(cost.usd.dynamoWrites, 15);
  });
});
