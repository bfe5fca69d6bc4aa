/**
 * Timing fixed amounts of CPU work on this machine: the reference workload (reference-workload.ts)
 * and the anchor workloads whose Lambda arm64 times are published (cpu-anchors.ts), reimplemented
 * exactly as the published benchmark ran them.
 *
 * A run's time is the lower of its process CPU time and its wall time, as the bench times a poll
 * (bench/typical-club.ts `workOf`): CPU counts GC and pool threads too, a wall time alone grows
 * with whatever else the machine runs. Of the runs after the warm-up ones (JIT compiled, as a warm
 * Lambda container is), the fastest is kept: the machine's own speed, as free of other processes'
 * load as the runs got (a shared 2-core machine's medians moved by a quarter between minutes; its
 * fastest runs by a few percent). The pinned times and the bench's measurement use the same rule.
 */
import { createHash } from 'node:crypto';
import { type CpuCalibration, calibrate } from './cpu-calibration';
import { referenceInputs, runReferenceWorkload } from './reference-workload';
import { cpuMsSince, median } from './stats';

/** Runs of a timing: the first `warmups` are thrown away, the fastest of the rest is kept. */
export interface TimingRuns {
  readonly warmups: number;
  readonly runs: number;
}

/** Enough for a stable median of the reference workload (about 0.3 s a run) in a few seconds. */
export const REFERENCE_RUNS: TimingRuns = { warmups: 3, runs: 9 };
export const ANCHOR_RUNS: TimingRuns = { warmups: 1, runs: 12 };

/** Local on-CPU time of `work`, ms: the fastest run's min(CPU, wall); the median beside it. */
export function timeWork(
  work: () => unknown,
  runs: TimingRuns,
): { ms: number; medianMs: number; samples: number[] } {
  const samples: number[] = [];
  for (let i = 0; i < runs.warmups + runs.runs; i++) {
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    work();
    const wallMs = performance.now() - wall0;
    const cpuMs = cpuMsSince(cpu0);
    if (i >= runs.warmups) samples.push(Math.min(wallMs, cpuMs));
  }
  return { ms: Math.min(...samples), medianMs: median(samples), samples };
}

/** The reference workload's time on this machine under this Node, and its digest. */
export function measureReferenceMs(runs: TimingRuns = REFERENCE_RUNS): {
  ms: number;
  medianMs: number;
  samples: number[];
  digest: string;
} {
  const inputs = referenceInputs();
  let digest = '';
  const timing = timeWork(() => {
    digest = runReferenceWorkload(inputs);
  }, runs);
  return { ...timing, digest };
}

/** The published CPU-intensive workload's iterations (its orchestrator's CPU_INTENSIVE_ITERATIONS). */
export const SHA256_CHAIN_ITERATIONS = 500_000;

/**
 * The published CPU-intensive workload (cebert/aws-lambda-performance-benchmarks,
 * lambdas/nodejs/cpu-intensive/handler.ts `cpuIntensiveWorkload`): SHA-256 chained over its own
 * digest, starting from the handler's fixed text. Returns the last digest, hex.
 */
export function sha256Chain(iterations: number = SHA256_CHAIN_ITERATIONS): string {
  let data = Buffer.from('benchmark data for Lambda ARM vs x86 performance testing');
  for (let i = 0; i < iterations; i++) {
    data = createHash('sha256').update(data).digest();
  }
  return data.toString('hex');
}

/** The published memory-intensive workload's array, MB (its FIXED_ARRAY_SIZE_MB). */
export const FLOAT64_SORT_MB = 100;

/**
 * The published memory-intensive workload (same repository, lambdas/nodejs/memory-intensive/
 * handler.ts `memoryIntensiveWorkload`): a Float64Array of 100 MB filled with Math.random integers
 * below 2^30, sorted, its first 1,000 values hashed. Math.random as published: the sort's time
 * does not depend on which uniform values it gets.
 */
export function float64Sort(sizeMb: number = FLOAT64_SORT_MB): string {
  const size = Math.floor((sizeMb * 1024 * 1024) / 8);
  const values = new Float64Array(size);
  for (let i = 0; i < size; i++) values[i] = Math.floor(Math.random() * 1_073_741_824);
  values.sort();
  const sample = JSON.stringify(values.slice(0, 1000));
  return createHash('sha256').update(sample).digest('hex');
}

/** This machine's calibration (cpu-calibration.ts): the reference workload timed under this Node. */
export function measureCpuCalibration(runs: TimingRuns = REFERENCE_RUNS): CpuCalibration {
  return calibrate(measureReferenceMs(runs).ms, process.version);
}
