/**
 * How a CPU-second measured on the bench machine maps to Lambda's arm64: a range, low / middle /
 * top, and the cost lines priced at its top (issue 37: "the target holds at its top").
 *
 * Two steps, each with what it rests on:
 * 1. Bench machine -> reference core. The bench runs the reference workload (reference-workload.ts:
 *    the poll's own code paths, a fixed amount of work) and compares its time with the reference
 *    core's, pinned under Node 22, the deployed runtime (cpu-anchors.ts). A poll's CPU measured
 *    here, times `benchToReference`, is its CPU on the reference core under Node 22: a slower
 *    machine, or an older Node, measures more and is scaled down by as much.
 * 2. Reference core -> Lambda arm64, one vCPU (1,769 MB). Published Lambda durations of workloads
 *    the bench reimplements exactly, over their time on the reference core, give Lambda
 *    CPU-seconds per reference-core second. The anchor (the SHA-256 chain under Node 22) gives the
 *    middle. No published workload is the poll: workloads unlike each other map differently (the
 *    published ones, a chain of small native calls and a large typed-array sort, under Node 20 and
 *    22, give ratios up to `gap` apart), and the poll's mix of JSON, zod, hashing, event building
 *    and gzip can sit anywhere among them. So the range is the anchor's ratio widened by the
 *    largest gap between two published Node workloads' ratios, either way: low = middle - gap,
 *    top = middle + gap.
 *
 * The cost model keeps `cpuStretch` (the function's fraction of a vCPU, 1,769 MB / its memory):
 * Lambda ms of a poll = measured ms × lambdaMsPerBenchMs × cpuStretch.
 */

import { LAMBDA_FULL_VCPU_MB } from './cost-model';
import {
  ANCHOR,
  PUBLISHED_LAMBDA_ARM64,
  type PublishedLambdaFigure,
  REFERENCE_CORE,
  type ReferenceCore,
} from './cpu-anchors';

export type Bound = 'low' | 'middle' | 'top';
export const BOUNDS: readonly Bound[] = ['low', 'middle', 'top'];

export interface CpuRange {
  readonly low: number;
  readonly middle: number;
  readonly top: number;
}

/** A published workload's Lambda time at one vCPU over its time on the reference core. */
export interface AnchorRatio {
  readonly workload: PublishedLambdaFigure['workload'];
  readonly node: PublishedLambdaFigure['node'];
  readonly lambdaMs: number;
  readonly referenceCoreMs: number;
  readonly ratio: number;
}

/** What the bench priced its Lambda lines with, and the range they and the total move in. */
export interface CpuCalibration {
  /** The reference workload on this machine, ms (the fastest of the warm runs), under `node`. */
  readonly referenceMs: number;
  readonly node: string;
  /** The reference workload on the reference core under Node `pinnedNode`, ms. */
  readonly pinnedReferenceMs: number;
  readonly pinnedNode: number;
  /** Reference-core ms per ms measured here: pinnedReferenceMs / referenceMs. */
  readonly benchToReference: number;
  readonly ratios: readonly AnchorRatio[];
  /** The largest gap between two published workloads' ratios. */
  readonly gap: number;
  /** Lambda arm64 CPU-seconds (one vCPU) per reference-core second. */
  readonly lambdaCpuPerRefSecond: CpuRange;
  /** Lambda ms (one vCPU) per CPU ms measured on this machine: benchToReference × the above. */
  readonly lambdaMsPerBenchMs: CpuRange;
  /** The bound the report's cost lines are priced at. */
  readonly pricedAt: Bound;
  /** The Lambda compute lines and everything billed at each bound (cost step; absent before it). */
  readonly costAt?: Readonly<Record<Bound, { readonly lambdaUsd: number; readonly totalUsd: number }>>;
}

/** The major version of a `process.version` string ('v20.20.2' -> 20). */
export function nodeMajor(version: string): number {
  return Number.parseInt(version.replace(/^v/, ''), 10);
}

/** Each published figure over the same workload on the reference core, same Node major. */
export function anchorRatios(
  core: ReferenceCore = REFERENCE_CORE,
  published: readonly PublishedLambdaFigure[] = PUBLISHED_LAMBDA_ARM64,
): AnchorRatio[] {
  return published.map((p) => {
    const pinned = core.byNode[p.node];
    const referenceCoreMs = p.workload === 'sha256Chain' ? pinned.sha256ChainMs : pinned.float64SortMs;
    // Below 1,769 MB a CPU-bound duration is stretched by 1,769 / memory: back to one vCPU.
    const lambdaMs = p.meanWarmMs * Math.min(1, p.memoryMb / LAMBDA_FULL_VCPU_MB);
    return {
      workload: p.workload,
      node: p.node,
      lambdaMs,
      referenceCoreMs,
      ratio: lambdaMs / referenceCoreMs,
    };
  });
}

/** The anchor's ratio, widened either way by the largest gap between two ratios. */
export function lambdaCpuRange(
  ratios: readonly AnchorRatio[],
  anchor: { readonly workload: string; readonly node: number } = ANCHOR,
): { range: CpuRange; gap: number } {
  const middle = ratios.find((r) => r.workload === anchor.workload && r.node === anchor.node)?.ratio;
  if (middle === undefined)
    throw new RangeError(`no published figure for the anchor ${anchor.workload}, Node ${anchor.node}`);
  const values = ratios.map((r) => r.ratio);
  const gap = Math.max(...values) - Math.min(...values);
  return { range: { low: Math.max(0, middle - gap), middle, top: middle + gap }, gap };
}

/** Each bound of `range` times `factor`. */
export const scaleRange = (range: CpuRange, factor: number): CpuRange => ({
  low: range.low * factor,
  middle: range.middle * factor,
  top: range.top * factor,
});

/** The calibration of a machine whose reference workload took `referenceMs` under `node`. */
export function calibrate(
  referenceMs: number,
  node: string,
  core: ReferenceCore = REFERENCE_CORE,
  pricedAt: Bound = 'top',
): CpuCalibration {
  if (!(referenceMs > 0))
    throw new RangeError(`the reference workload's time must be positive, got ${referenceMs}`);
  const ratios = anchorRatios(core);
  const { range, gap } = lambdaCpuRange(ratios);
  const pinnedReferenceMs = core.byNode[ANCHOR.node].referenceMs;
  const benchToReference = pinnedReferenceMs / referenceMs;
  return {
    referenceMs,
    node,
    pinnedReferenceMs,
    pinnedNode: ANCHOR.node,
    benchToReference,
    ratios,
    gap,
    lambdaCpuPerRefSecond: range,
    lambdaMsPerBenchMs: scaleRange(range, benchToReference),
    pricedAt,
  };
}

/**
 * Lambda ms (one vCPU) per measured CPU ms the cost lines use: the calibration's bound, or 1 when
 * there is none (reports from before it priced the bench machine's CPU as Lambda's).
 */
export function lambdaMsPerBenchMs(
  c: CpuCalibration | undefined,
  bound: Bound = c?.pricedAt ?? 'top',
): number {
  return c ? c.lambdaMsPerBenchMs[bound] : 1;
}
