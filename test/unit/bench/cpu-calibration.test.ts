import { describe, expect, it } from 'vitest';
import { clubCost } from '../../../bench/cost';
import type { ReferenceCore } from '../../../bench/cpu-anchors';
import { REFERENCE_CORE } from '../../../bench/cpu-anchors';
import { anchorRatios, calibrate, lambdaCpuRange, lambdaMsPerBenchMs } from '../../../bench/cpu-calibration';
import { sha256Chain } from '../../../bench/cpu-timing';
import { PRICES } from '../../../bench/prices';
import { REFERENCE_WORK, referenceInputs, runReferenceWorkload } from '../../../bench/reference-workload';
import { cpuCalibrationSection } from '../../../bench/report/cpu-calibration-section';
import type { BenchResults } from '../../../bench/report/results';
import { costAtBounds } from '../../../bench/steps/cost-step';
import { benchDeployment, SAMPLE_CLUB_COUNTS, SAMPLE_SHARE } from '../../support/bench-deployment';

/** A reference core whose times make every ratio easy to check by hand. */
const core: ReferenceCore = {
  cpuModel: 'test',
  cores: 1,
  pinnedOn: '2026-01-01',
  referenceDigest: '',
  byNode: {
    // Published (cpu-anchors.ts): SHA-256 chain 1,561.16 / 1,472.09 ms, sort 2,439.08 / 2,499.6 ms.
    20: { node: 'v20', sha256ChainMs: 1561.16, float64SortMs: 2439.08 / 0.8, referenceMs: 300 },
    22: { node: 'v22', sha256ChainMs: 1472.09 / 1.5, float64SortMs: 2499.6, referenceMs: 200 },
  },
};

describe('the reference workload', () => {
  it('ends in the pinned digest, run after run (a fixed amount of work on seeded data)', () => {
    // Prepare
    const inputs = referenceInputs();
    // Act
    const first = runReferenceWorkload(inputs);
    const again = runReferenceWorkload(referenceInputs());
    // Assess: the digest the reference core was pinned with (cpu-anchors.ts), whatever the run.
    expect(first).toBe(REFERENCE_CORE.referenceDigest);
    expect(again).toBe(first);
  });

  it('gives another digest for other data, so the digest does see the work', () => {
    const other = runReferenceWorkload(referenceInputs({ ...REFERENCE_WORK, seed: REFERENCE_WORK.seed + 1 }));
    expect(other).not.toBe(REFERENCE_CORE.referenceDigest);
  });
});

describe('the anchor workload', () => {
  it('chains SHA-256 over its own digest from the published text', () => {
    // Zero iterations: the text itself; one: its SHA-256 (computed independently of the chain).
    expect(Buffer.from(sha256Chain(0), 'hex').toString()).toBe(
      'benchmark data for Lambda ARM vs x86 performance testing',
    );
    expect(sha256Chain(1)).toBe('6b6e548e594e53ce566337aea06fedd1256f903086920dd30ab88ddd089b4cf9');
  });
});

describe('the mapping', () => {
  it('is the anchor ratio widened by the largest gap between two published ratios', () => {
    // Act
    const ratios = anchorRatios(core);
    const { range, gap } = lambdaCpuRange(ratios);
    // Assess: ratios 1 (sha, 20), 1.5 (sha, 22: the anchor), 0.8 (sort, 20), 1 (sort, 22).
    expect(ratios.map((r) => r.ratio)).toEqual([
      expect.closeTo(1.5, 9),
      expect.closeTo(1, 9),
      expect.closeTo(1, 9),
      expect.closeTo(0.8, 9),
    ]);
    expect(gap).toBeCloseTo(0.7, 9);
    expect(range.low).toBeCloseTo(0.8, 9);
    expect(range.middle).toBeCloseTo(1.5, 9);
    expect(range.top).toBeCloseTo(2.2, 9);
  });

  it('scales a measured ms by the reference core over this machine, under the anchor Node', () => {
    // A machine twice as slow as the reference core under Node 22 (400 ms for 200 ms).
    const c = calibrate(400, 'v20.0.0', core);
    expect(c.benchToReference).toBeCloseTo(0.5, 9);
    expect(c.lambdaMsPerBenchMs.middle).toBeCloseTo(0.75, 9);
    expect(c.lambdaMsPerBenchMs.top).toBeCloseTo(1.1, 9);
    expect(c.pricedAt).toBe('top');
    expect(lambdaMsPerBenchMs(c)).toBeCloseTo(1.1, 9);
    // No calibration (reports from before it): the bench machine's CPU priced as Lambda's.
    expect(lambdaMsPerBenchMs(undefined)).toBe(1);
    expect(() => calibrate(0, 'v20.0.0', core)).toThrow(RangeError);
  });

  it('pins figures whose range is ordered and whose top is above the anchor', () => {
    const c = calibrate(REFERENCE_CORE.byNode[22].referenceMs, 'v22', REFERENCE_CORE);
    const r = c.lambdaCpuPerRefSecond;
    expect(c.benchToReference).toBe(1);
    expect(r.low).toBeGreaterThan(0);
    expect(r.low).toBeLessThan(r.middle);
    expect(r.middle).toBeLessThan(r.top);
  });
});

const counts = SAMPLE_CLUB_COUNTS;
const share = SAMPLE_SHARE;

describe('the cost lines at the bounds', () => {
  const deployment = benchDeployment();
  const cost = (cpu: number) =>
    clubCost(counts, deployment, share, 100, { gymApiRequest: 100, lambdaMsPerBenchMs: cpu });
  const line = (c: ReturnType<typeof cost>, key: string) => c.lines.find((l) => l.key === key)!.usd;

  it('moves only the Lambda compute lines, by the CPU part of their time', () => {
    // Act
    const low = cost(0.8);
    const top = cost(2.2);
    // Assess: 5 s of CPU x 1769/memory more or less, the waits the same.
    const stretch = 1769 / deployment.poll.memoryMb;
    const gb = deployment.poll.memoryMb / 1024;
    const pollDelta = 5 * (2.2 - 0.8) * stretch * gb * PRICES.lambdaArmGbSecond.usd;
    expect(line(top, 'lambdaPollCompute') - line(low, 'lambdaPollCompute')).toBeCloseTo(pollDelta, 10);
    expect(line(top, 'lambdaDispatch')).toBeGreaterThan(line(low, 'lambdaDispatch'));
    for (const key of ['eventBridgeEvents', 'sqs', 'logsIngestion', 'lambdaPollRequests']) {
      expect(line(top, key)).toBe(line(low, key));
    }
    expect(top.total).toBeGreaterThan(low.total);
  });

  it('reports the Lambda lines and the total at each bound of a calibration', () => {
    // Prepare
    const c = calibrate(400, 'v20.0.0', core);
    // Act
    const at = costAtBounds(c, cost);
    // Assess: the total at a bound is that bound's cost; the bounds are ordered.
    expect(at.top.totalUsd).toBe(cost(c.lambdaMsPerBenchMs.top).total);
    expect(at.low.lambdaUsd).toBeLessThan(at.middle.lambdaUsd);
    expect(at.middle.lambdaUsd).toBeLessThan(at.top.lambdaUsd);
    expect(at.top.totalUsd - at.low.totalUsd).toBeCloseTo(at.top.lambdaUsd - at.low.lambdaUsd, 12);
  });
});

describe('the report section', () => {
  it('shows the range of the Lambda lines and of the total, and the target at the top', () => {
    // Prepare: a calibration whose top total is over the target, its middle under it.
    const c = calibrate(400, 'v20.0.0', core);
    const costAt = {
      low: { lambdaUsd: 0.01, totalUsd: 0.25 },
      middle: { lambdaUsd: 0.02, totalUsd: 0.29 },
      top: { lambdaUsd: 0.04, totalUsd: 0.31 },
    };
    // Act
    const text = cpuCalibrationSection({ cpuCalibration: { ...c, costAt } } as unknown as BenchResults);
    // Assess
    expect(text).toContain('| **top** (priced) | 2.2 | 1.1 | $0.040 | $0.310 |');
    expect(text).toContain('| low | 0.8 | 0.4 | $0.010 | $0.250 |');
    expect(text).toContain('**not met** ($0.310)');
    expect(cpuCalibrationSection({} as BenchResults)).toBe('');
  });
});
