/**
 * The lifecycle line of the bench (bench/lifecycle-cost.ts): the on/off difference scaled to a
 * month and priced, the bound that covers what a short span cannot show.
 */
import { describe, expect, it } from 'vitest';
import { emptyStoreCounts } from '../../../bench/counting-store';
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
      requests: { data: 1000, token: 9, reauth401: 0, dataWallMs: 0, bySource: {} },
      pollStore: store(1000 + 144, 500 + 36, { getLifecycle: 72, putSnapshots: 40 }),
      lifecycle: { evaluations: 72, published: 6, ms: 72 * 20, waiting: 3, docBytes: 3000, deltaBytes: 500 },
    };
    const off = {
      requests: { data: 1000, token: 7, reauth401: 0, dataWallMs: 0, bySource: {} },
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
});
