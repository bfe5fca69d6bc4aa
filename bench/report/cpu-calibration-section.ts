/**
 * The CPU calibration's section (issue 37): how a CPU-second measured on the bench machine maps to
 * Lambda's arm64 (bench/cpu-calibration.ts), the published figures it rests on, and the range of
 * the Lambda lines and of everything billed, priced at the top.
 */
import { PUBLISHED_LAMBDA_ARM64, REFERENCE_CORE } from '../cpu-anchors';
import { BOUNDS, type CpuCalibration } from '../cpu-calibration';
import { sig, table, usd, yes } from './format';
import type { BenchResults } from './results';

/** Everything billed per club-month at 1,000 clubs, issue 37's target. */
export const ISSUE_37_TARGET_USD = 0.3;

const WORKLOAD_NAMES = {
  sha256Chain: 'SHA-256 chained 500,000 times',
  float64Sort: '100 MB Float64Array filled and sorted',
} as const;

function anchorTable(c: CpuCalibration): string {
  return table(
    ['published workload (Node)', 'Lambda arm64, 1,769 MB (mean warm)', 'reference core', 'ratio', 'source'],
    c.ratios.map((x) => [
      `${WORKLOAD_NAMES[x.workload]} (Node ${x.node})${x.workload === 'sha256Chain' && x.node === c.pinnedNode ? ': **the anchor**' : ''}`,
      `${sig(x.lambdaMs, 4)} ms`,
      `${sig(x.referenceCoreMs, 4)} ms`,
      sig(x.ratio),
      PUBLISHED_LAMBDA_ARM64.find((p) => p.workload === x.workload && p.node === x.node)?.source ?? '',
    ]),
  );
}

function rangeTable(c: CpuCalibration): string {
  const costAt = c.costAt;
  return table(
    [
      'bound',
      'Lambda arm64 CPU-s per reference-core s',
      'Lambda ms per ms measured here',
      'Lambda compute lines',
      'everything billed',
    ],
    BOUNDS.map((b) => [
      b === c.pricedAt ? `**${b}** (priced)` : b,
      sig(c.lambdaCpuPerRefSecond[b]),
      sig(c.lambdaMsPerBenchMs[b]),
      costAt ? usd(costAt[b].lambdaUsd) : '-',
      costAt ? usd(costAt[b].totalUsd) : '-',
    ]),
  );
}

/** The method's paragraph (also the Method section's bullet): how the mapping is made. */
export function cpuCalibrationMethod(c: CpuCalibration): string {
  return `The Lambda lines are priced from CPU measured on the bench machine, mapped to Lambda's arm64 in
two steps (bench/cpu-calibration.ts). First, the bench runs a reference workload at start
(bench/reference-workload.ts: the poll's own code paths on seeded pages, a fixed amount of work: JSON
pages parsed and validated with the project's zod schemas, visits fingerprinted and built into events,
members snapshotted and diffed, the club state item's cursors gzipped); its time here against its time
on the reference core under Node ${c.pinnedNode}, Lambda's runtime, turns a measured CPU ms into reference-core ms
(× ${sig(c.benchToReference)} on this run). Second, published Lambda arm64 durations at 1,769 MB (one vCPU:
CPU is proportional to memory) of workloads the bench reimplements exactly, over their times on the
reference core, give Lambda CPU-seconds per reference-core second: the anchor (the SHA-256 chain under
Node ${c.pinnedNode}) gives the middle; no published workload is the poll, and two unlike workloads map up to
${sig(c.gap)} apart, so the range is the anchor widened by that largest gap either way. The cost lines keep
\`cpuStretch\` (1,769 MB / the function's memory) and are priced at the ${c.pricedAt} of the range.`;
}

export function cpuCalibrationSection(r: BenchResults): string {
  const c = r.cpuCalibration;
  if (!c) return '';
  const top = c.costAt?.top.totalUsd;
  const target =
    top === undefined
      ? ''
      : `\n\nTarget: everything billed at most $${ISSUE_37_TARGET_USD.toFixed(2)} a club-month at 1,000 clubs at the top of the range (issue 37): ${yes(top <= ISSUE_37_TARGET_USD)} (${usd(top)}).`;
  return `## CPU calibration: the bench machine's CPU as Lambda arm64's

The reference workload took **${sig(c.referenceMs, 4)} ms** here (Node ${c.node}, the fastest of its warm runs); on
the reference core (${REFERENCE_CORE.cpuModel}, pinned ${REFERENCE_CORE.pinnedOn}) it takes ${sig(c.pinnedReferenceMs, 4)} ms under Node ${c.pinnedNode}:
a CPU ms measured here is **${sig(c.benchToReference)} reference-core ms**.

${anchorTable(c)}

${rangeTable(c)}${target}

${cpuCalibrationMethod(c)}

Limits: the published figures are one account's, one region's and one month's means (Graviton2,
us-east-2, November 2025); the reference core is a shared virtual machine, its times the fastest of
repeated runs; the poll's own CPU on Lambda has not been measured. Pin the reference core again with
\`npx tsx bench/cpu-calibrate.ts --anchors\` (and under Node 22) when the reference workload changes.
`;
}
