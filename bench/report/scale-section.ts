/** Section 6 of the report: the dispatcher in memory, an hour of a fleet and its minute, and the fleet at scale. */
import { CLUB_DIRECTORY_BUCKETS } from '../../lambdas/common/club-shard';
import type { DispatchRun } from '../scale/dispatch';
import { median } from '../stats';
import { int, med, pct, secs, sig, table } from './format';
import { invocationMemoryPart } from './memory-section';
import { minuteShapePart } from './minute-shape-section';
import type { BenchResults } from './results';

export function scaleSection(r: BenchResults): string {
  return `## 6. Scale

${dispatchPart(r)}

${fleetHourPart(r)}

${minuteShapePart(r)}

${atScalePart(r)}

${invocationMemoryPart(r)}

What breaks first, and at how many clubs: [scale.md](scale.md).
`;
}

function dispatchRow(label: string, runs: readonly DispatchRun[]): string[] {
  return [
    label,
    int(runs[0]?.clubs ?? 0),
    `${sig(med(runs, (x) => x.wallMs))} ms`,
    `${sig(med(runs, (x) => x.cpuMs))} ms`,
    int(med(runs, (x) => x.messages)),
    int(med(runs, (x) => x.sendMessageBatchRequests)),
    int(med(runs, (x) => x.tableReads)),
    int(med(runs, (x) => x.readUnits)),
  ];
}

/** `dispatchDueClubs` in memory: its CPU is what the cost model prices. */
function dispatchPart(r: BenchResults): string {
  const mem = r.scale.dispatchMemory;
  return `**Dispatch in memory** (the real \`dispatchDueClubs\`, MemoryClubRegistry + MemoryStateStore, one shard):
${int(mem[0]?.clubs ?? 0)} clubs whose 8 cursors are copies of the typical club's at the end of a simulated run, each
club last polled 0 to 14 minutes before; the cost model prices this CPU.

${table(
  ['', 'clubs', 'time (median)', 'CPU', 'SQS messages', 'SendMessageBatch', 'table reads', 'RRU'],
  [dispatchRow('in memory', mem)],
)}`;
}

/** A simulated hour of typical clubs through the poll path. */
function fleetHourPart(r: BenchResults): string {
  const f = r.scale.fleet;
  return `**A simulated hour of ${f.clubs} typical clubs** (${int(r.plan.fleet.members)} members, ~${int(r.plan.fleet.visitsPerDay)} visits a day
each, one sandbox process serving all of them) through the poll path, ${f.workers} workers (the prod
maximum concurrency of the poll Lambda, from lib/), dispatch every simulated minute:

${table(
  ['', 'value'],
  [
    ['poll invocations in the hour', int(f.polls)],
    [
      'per minute (median / max)',
      `${int(median(f.minutes.map((m) => m.messages)))} / ${int(Math.max(...f.minutes.map((m) => m.messages)))}`,
    ],
    ['API requests / rows / events', `${int(f.requests)} / ${int(f.rows)} / ${int(f.events)}`],
    ['poll time, local (median / p95)', `${sig(f.pollWallMsMedian)} ms / ${sig(f.pollWallMsP95)} ms`],
    [
      "time to drain a minute's messages (median / max)",
      `${sig(median(f.minutes.map((m) => m.drainWallMs)))} ms / ${sig(Math.max(...f.minutes.map((m) => m.drainWallMs)))} ms`,
    ],
    [
      'bridge CPU for the hour',
      `${sig(f.cpuMs / 1000)} s (${sig(f.cpuMs / Math.max(1, f.polls))} ms per poll)`,
    ],
    ['sandbox CPU for the hour', `${sig(f.sandboxCpuMs / 1000)} s`],
    ['failures', int(f.failures)],
    ['baseline of all clubs (once, before the hour)', secs(f.baselineWallMs / 1000)],
  ],
)}`;
}

/** How the fleet at scale was measured, and how its time at the CPU share is counted. */
function atScaleIntro(r: BenchResults): string {
  const big = r.scale.atScale;
  const d = big.dispatch;
  return `**The fleet of ${int(big.clubs)} clubs, measured** (\`scale.*\` in benchmarks.json): the stage configuration for
${int(big.clubs)} clubs (lib/stage-config.ts) gives ${big.dispatchShards} dispatch shards at ${d.memoryMb} MB (${sig(d.cpuShare)} of a
vCPU), a ${d.timeoutSeconds} s timeout and the polls spread over ${d.spreadSeconds} s. The clubs' directory entries and state
items are on dynalite (${int(d.seedItems)} items seeded in ${sig(d.seedMs / 1000)} s, not part of any figure); each shard
runs the real \`dispatchDueClubs\` alone, through the real \`DynamoDbClubRegistry\` (its directory buckets), the real
\`DynamoDbStateStore\` and the real \`SqsPollQueue\` over \`@aws-sdk/client-sqs\` to an SQS-compatible endpoint in its
own process (AWS JSON 1.0, MD5 of each body, ${d.shardRuns[0]?.failedEntriesResubmitted ?? 0} entries of each shard failed and
resubmitted). **Time at the share = wall + CPU × (1/share − 1)**: the CPU stretched to the function's share, plus
everything the run waited for, as if no wait overlapped its CPU (an upper bound; max(CPU / share, wall) is the lower
one). The waits are dynalite's and the endpoint's on this machine, shared with the bench's other processes.`;
}

/** The fleet at scale: every shard measured, the poll side, account quotas. */
function atScalePart(r: BenchResults): string {
  const big = r.scale.atScale;
  const d = big.dispatch;
  return `${atScaleIntro(r)}

${table(
  [
    'shard',
    'clubs',
    'messages',
    'wall',
    'CPU',
    'at the share (upper / lower)',
    'table reads',
    'SendMessageBatch',
  ],
  d.shardRuns.map((s) => [
    String(s.shard),
    int(s.clubs),
    int(s.messages),
    `${sig(s.wallMs / 1000)} s`,
    `${sig(s.cpuMs / 1000)} s`,
    `**${sig(s.secondsAtShare)} s** / ${sig(s.secondsAtShareLow)} s`,
    int(s.tableReads),
    int(s.sendMessageBatchRequests),
  ]),
)}

${table(
  ['', 'value'],
  [
    [
      'the slowest shard / its timeout',
      `**${sig(big.dispatchSeconds)} s** of ${big.dispatchTimeoutSeconds} s (${pct(big.dispatchSeconds / big.dispatchTimeoutSeconds)})`,
    ],
    [
      'poll concurrency needed / configured for this many clubs',
      `**${sig(big.pollConcurrencyNeeded)}** / ${int(big.pollConcurrencyConfigured)} (${int(Math.ceil(big.clubs / big.pollBatchSize))} invocations a minute × ${sig(big.pollInvocationSeconds)} s each / 60; configured = \`pollConcurrencyFor\`, at most 1,000 an event source)`,
    ],
    [
      'PutEvents requests a second / account quota',
      `${sig(big.rates.putEventsRequestsPerSecond)} / ${int(big.rates.putEventsQuotaPerSecond)} (us-east-1 default; lower in smaller regions: docs/deploy.md)`,
    ],
    [
      'GetSecretValue a second / quota',
      `${sig(big.rates.getSecretValuePerSecond)} / ${int(big.rates.getSecretValueQuotaPerSecond)}`,
    ],
    [
      'most requests one DynamoDB key gets a minute',
      `${big.maxRequestsPerKeyPerMinute} (a club's state item: read by its shard, opened and closed by its poll); the directory is ${CLUB_DIRECTORY_BUCKETS} partitions, each read by one shard a minute`,
    ],
  ],
)}`;
}
