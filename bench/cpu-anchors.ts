/**
 * Published Lambda arm64 figures for workloads the bench can run itself, and the same workloads
 * timed on the reference core: the two ends of the CPU calibration (cpu-calibration.ts).
 *
 * Lambda gives a function CPU in proportion to its memory, one vCPU's worth at 1,769 MB (AWS Lambda
 * Developer Guide, "Configuring Lambda function memory": "At 1,769 MB, a function has the
 * equivalent of one vCPU (one vCPU-second of credits per second)";
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). A single-threaded
 * workload's duration at 1,769 MB is therefore its time on one arm64 vCPU, the unit the cost
 * model's `cpuStretch` (1,769 MB / the function's memory) starts from.
 */

/** A published workload the bench reimplements exactly (cpu-timing.ts). */
export type AnchorWorkload = 'sha256Chain' | 'float64Sort';

/** A published Lambda figure: mean warm duration on arm64 (Graviton2) at `memoryMb`. */
export interface PublishedLambdaFigure {
  readonly workload: AnchorWorkload;
  /** The Lambda runtime's Node major version (nodejs20.x, nodejs22.x). */
  readonly node: 20 | 22;
  readonly memoryMb: number;
  readonly meanWarmMs: number;
  readonly source: string;
}

const EBERT_REPO = 'github.com/cebert/aws-lambda-performance-benchmarks';
const EBERT_TABLES = `https://${EBERT_REPO}/blob/HEAD/published-results/december-2025/tables`;
const EBERT_POST =
  'chrisebert.net/comparing-aws-lambda-arm64-vs-x86_64-performance-across-multiple-runtimes-in-late-2025';

/**
 * Chris Ebert's AWS Lambda benchmarks, December 2025 run (November 30, 2025, us-east-2; 300 warm
 * invocations a configuration, the mean of their REPORT durations; commit c8c9c66), described in
 * his post of late 2025. Workloads (lambdas/nodejs/*): `cpu-intensive` chains SHA-256 500,000
 * times (scripts/benchmark_utils.py CPU_INTENSIVE_ITERATIONS); `memory-intensive` fills and sorts
 * a 100 MB Float64Array. The SHA-256 chain is the anchor: almost all of its time is the runtime's
 * own work per call (a Hash object, a Buffer, a native call for 32 bytes), as the poll's is.
 */
export const PUBLISHED_LAMBDA_ARM64: readonly PublishedLambdaFigure[] = [
  {
    workload: 'sha256Chain',
    node: 22,
    memoryMb: 1769,
    meanWarmMs: 1472.09,
    source: `${EBERT_TABLES}/cpu-intensive/warm.md (nodejs22, 1769 MB, ARM64 Duration); ${EBERT_POST}`,
  },
  {
    workload: 'sha256Chain',
    node: 20,
    memoryMb: 1769,
    meanWarmMs: 1561.16,
    source: `${EBERT_TABLES}/cpu-intensive/warm.md (nodejs20, 1769 MB, ARM64 Duration)`,
  },
  {
    workload: 'float64Sort',
    node: 22,
    memoryMb: 1769,
    meanWarmMs: 2499.6,
    source: `${EBERT_TABLES}/memory-intensive/warm.md (nodejs22, 1769 MB, ARM64 Duration)`,
  },
  {
    workload: 'float64Sort',
    node: 20,
    memoryMb: 1769,
    meanWarmMs: 2439.08,
    source: `${EBERT_TABLES}/memory-intensive/warm.md (nodejs20, 1769 MB, ARM64 Duration)`,
  },
];

/** The anchor: the published figure the middle of the range comes from (the deployed runtime's). */
export const ANCHOR = { workload: 'sha256Chain', node: 22 } as const;

/** One Node version's times on the reference core (ms, the fastest of the warm runs: cpu-timing.ts). */
export interface PinnedTimes {
  readonly node: string;
  readonly sha256ChainMs: number;
  readonly float64SortMs: number;
  readonly referenceMs: number;
}

/** The machine the calibration was pinned on, and its times by Node major version. */
export interface ReferenceCore {
  readonly cpuModel: string;
  readonly cores: number;
  readonly pinnedOn: string;
  /** The reference workload's digest when pinned (reference-workload.ts). */
  readonly referenceDigest: string;
  readonly byNode: { readonly 20: PinnedTimes; readonly 22: PinnedTimes };
}

/**
 * Printed by `npx tsx bench/cpu-calibrate.ts --anchors` (Node 20.20.2) and `npx -y node@22 --import
 * tsx bench/cpu-calibrate.ts --anchors` (Node 22.23.3) on the reference core, a 2-core virtual
 * machine other sessions shared: three sittings each (5, 7 and 12 timed runs of each anchor, 9 of
 * the reference), the fastest run of all kept, as for a single sitting (cpu-timing.ts). The
 * sittings' medians were 15% to 90% above their fastest runs as the machine's load rose from 1.7 to 8.
 */
export const REFERENCE_CORE: ReferenceCore = {
  cpuModel: 'AMD EPYC (family 25, model 1), 2 vCPUs under KVM',
  cores: 2,
  pinnedOn: '2026-11-30',
  referenceDigest: 'c6fa6a2943ed13589071de253f67d2f9d26b62810f3b0bfc6fbcbaf5e5ffab5e',
  byNode: {
    20: { node: 'v20.20.2', sha256ChainMs: 1268.7, float64SortMs: 2248.1, referenceMs: 226.8 },
    22: { node: 'v22.23.3', sha256ChainMs: 1023.5, float64SortMs: 2239.2, referenceMs: 182 },
  },
};
