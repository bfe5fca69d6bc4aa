/**
 * The CPU calibration from a terminal.
 *
 *   npx tsx bench/cpu-calibrate.ts                 # this machine: reference time and the range
 *   npx tsx bench/cpu-calibrate.ts --anchors       # the figures to pin in cpu-anchors.ts
 *   npx -y node@22 --import tsx bench/cpu-calibrate.ts --anchors   # the same under Node 22
 *
 * `--anchors` times the published anchor workloads (reimplemented exactly: cpu-timing.ts) and the
 * reference workload under the running Node, and prints them as `REFERENCE_CORE.byNode` entries.
 * Run it on the reference core only when the reference workload or the anchors change.
 */
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { calibrate, nodeMajor } from './cpu-calibration';
import { ANCHOR_RUNS, float64Sort, measureReferenceMs, sha256Chain, timeWork } from './cpu-timing';

const round1 = (ms: number) => Math.round(ms * 10) / 10;

function anchors(): void {
  const major = nodeMajor(process.version);
  const say = (text: string) => process.stderr.write(`${text}\n`);
  say(`${cpus()[0]?.model.trim() ?? 'unknown'}, ${availableParallelism()} cores, Node ${process.version}`);
  const sha = timeWork(() => sha256Chain(), ANCHOR_RUNS);
  say(`sha256 chain: ${sha.samples.map(round1).join(', ')} ms`);
  const sort = timeWork(() => float64Sort(), ANCHOR_RUNS);
  say(`float64 sort: ${sort.samples.map(round1).join(', ')} ms`);
  const reference = measureReferenceMs();
  say(`reference: ${reference.samples.map(round1).join(', ')} ms (digest ${reference.digest})`);
  const entry = {
    node: process.version,
    sha256ChainMs: round1(sha.ms),
    float64SortMs: round1(sort.ms),
    referenceMs: round1(reference.ms),
  };
  process.stdout.write(`${major}: ${JSON.stringify(entry, null, 2)},\n`);
}

function thisMachine(): void {
  const reference = measureReferenceMs();
  const c = calibrate(reference.ms, process.version);
  const r = (x: number) => x.toFixed(3);
  process.stdout.write(
    `reference workload: ${round1(reference.ms)} ms (Node ${process.version}; the reference core: ${c.pinnedReferenceMs} ms under Node ${c.pinnedNode})\n` +
      `Lambda arm64 CPU-seconds per reference-core second: ${r(c.lambdaCpuPerRefSecond.low)} / ${r(c.lambdaCpuPerRefSecond.middle)} / ${r(c.lambdaCpuPerRefSecond.top)}\n` +
      `Lambda ms (one vCPU) per ms measured here: ${r(c.lambdaMsPerBenchMs.low)} / ${r(c.lambdaMsPerBenchMs.middle)} / ${r(c.lambdaMsPerBenchMs.top)} (low / middle / top)\n`,
  );
}

const { values } = parseArgs({ options: { anchors: { type: 'boolean' } }, strict: true });
if (values.anchors) anchors();
else thisMachine();
