/** Section 6 of the report: the dispatcher in memory, an hour of a fleet and its minute, and the fleet at scale. */
import { CLUB_DIRECTORY_BUCKETS } from '../../lambdas/common/club-shard';
import { functionRuns, type InvocationMemory, type MemoryRun } from '../invocation-memory';
import type { DispatchRun } from '../scale/dispatch';
import type { LoadMetric, MetricShape } from '../scale/minute-shape';
import { median } from '../stats';
import { int, med, pct, secs, sig, table } from './format';
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
      `**${sig(big.pollConcurrencyNeeded)}** / ${int(big.pollConcurrencyConfigured)} (${int(Math.ceil(big.clubs / big.pollBatchSize))} invocations a minute × ${sig(big.pollInvocationSeconds)} s each${big.laneInvocationsPerMinute ? `, + ${int(big.laneInvocationsPerMinute)} fast-lane invocations a minute at the peak (every club's lane on at 15 s) × ${sig(big.laneInvocationSeconds ?? 0)} s each` : ''} / 60; configured = \`pollConcurrencyFor\`, at most 1,000 an event source)`,
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

/** Part of section 6: the per-second shape of the poll load over a minute, measured and at scale. */
const LABELS: Record<LoadMetric, string> = {
  polls: 'polls started',
  readUnits: 'DynamoDB read units',
  writeUnits: 'DynamoDB write units',
  putEventsRequests: 'PutEvents requests',
};

const row = (metric: LoadMetric, m: MetricShape) => [
  LABELS[metric],
  sig(m.meanPerSecond),
  sig(m.peakPerSecond),
  sig(m.peakToMean),
];

export function minuteShapePart(r: BenchResults): string {
  const f = r.scale.fleet;
  const shape = f.minuteShape;
  const big = r.scale.atScale.minuteShape;
  const metrics = Object.keys(shape) as LoadMetric[];
  const atScale = big
    ? `

At ${int(big.clubs)} clubs (\`scale.minuteShape.atScale\`): the phases of ${int(big.clubs)} club ids counted per second,
${sig(big.polledShare)} of the clubs polled in a minute (as above), each poll with the load measured above:

${table(
  ['a second', 'mean', 'peak (busiest second)', 'peak / mean'],
  [
    ['polls started', sig(big.meanPollsPerSecond), sig(big.peakPollsPerSecond), sig(big.peakToMean)],
    ['DynamoDB read units', sig(big.mean.readUnits), sig(big.peak.readUnits), sig(big.peakToMean)],
    ['DynamoDB write units', sig(big.mean.writeUnits), sig(big.peak.writeUnits), sig(big.peakToMean)],
    [
      'PutEvents requests',
      sig(big.mean.putEventsRequests),
      sig(big.peak.putEventsRequests),
      sig(big.peakToMean),
    ],
  ],
)}

Without the spread every one of these polls starts in the seconds the dispatch shards take to queue them: the whole
minute's load in its first few seconds.`
    : '';
  return `**The minute's shape** (\`scale.minuteShape.fleet\`): the same hour, second by second. The dispatcher spreads each
minute's polls over ${f.spreadSeconds} s (each club at its own second, the same every minute), and each second's polls,
DynamoDB units and PutEvents requests are counted, attributed to the second the poll started:

${table(
  ['a second', 'mean', 'peak (busiest second of the hour)', 'peak / mean'],
  metrics.map((m) => row(m, shape[m])),
)}

Polls started in each second of the minute (mean over the hour): ${shape.polls.bySecondOfMinute.map((n) => sig(n, 2)).join(' ')}.${atScale}`;
}

/** Part of section 6: the peak memory of poll invocations (bench/invocation-memory.ts). */
/** When the step ran apart from the rest of the report (`--memory-only`), on what, under what load. */
function measuredNote(m: InvocationMemory): string {
  if (!m.measured) return '';
  const [before, after] = m.measured.loadAverage.map((l) => l.toFixed(1));
  return `
Measured on ${m.measured.commit} (${m.measured.date.slice(0, 10)}), the machine's 1-minute load average
${before} before the step and ${after} after it (a loaded machine slows the runs; a long deadline
lets every club of the batch finish, so the peak is the whole batch's).`;
}

/** The budget the poll function's peaks are held to, and whether every run kept to it. */
function budgetNote(m: InvocationMemory): string {
  if (m.budgetMb === undefined) return '';
  const worst = Math.max(...functionRuns(m).map((r) => r.rssPeakMb));
  const kept = worst <= m.budgetMb ? 'every run kept to it' : `**not kept**: ${worst.toFixed(0)} MB`;
  return `

The budget is ${m.budgetMb} MB, three quarters of the function's memory: a quarter stays free for
what the bench does not see (docs/operations.md, "The poll function's memory"); ${kept}.`;
}

/** What the runs ran: the poll function's bundle (this release), or the CLI's (reports from before). */
function whatRan(m: InvocationMemory): string {
  const flags = `\`--max-old-space-size=${m.oldSpaceMb} --max-semi-space-size=${m.semiSpaceMb}\``;
  if (!m.runs.some((r) => r.bundle === 'function'))
    return `the CLI's \`poll --once\`
(every club side by side through \`pollClub\`, the poll function's path) bundled with esbuild as the
functions are, in a process with the heap flags Lambda's Node runtime gives a ${m.functionMb} MB function
(${flags})`;
  return `the poll function as Lambda runs it: its handler
(lambdas/handlers/poll.ts) bundled as the stack bundles it, invoked once with an SQS record holding
the batch as one group message, with the template's environment and the flags Lambda's Node runtime
gives a ${m.functionMb} MB function (${flags}, \`--expose-gc\`); its clubs in the
state table's registry, their credentials in Secrets Manager (local endpoints)`;
}

const heapCell = (run: MemoryRun) =>
  run.atPeak ? `${run.atPeak.heapTotalMb.toFixed(0)} MB (${run.atPeak.heapUsedMb.toFixed(0)} in use)` : 'n/a';

export function invocationMemoryPart(r: BenchResults): string {
  const m = r.scale.invocationMemory;
  if (!m) return '';
  const withCpu = m.runs.some((run) => run.cpuSec !== undefined);
  const withHeap = m.runs.some((run) => run.atPeak !== undefined);
  const rows = m.runs.map((run) => [
    run.name,
    int(run.clubs),
    int(run.records),
    `${run.rssPeakMb.toFixed(0)} MB`,
    `${((100 * run.rssPeakMb) / m.functionMb).toFixed(0)}%`,
    ...(withHeap ? [heapCell(run)] : []),
    `${run.wallSec.toFixed(1)} s`,
    ...(withCpu ? [run.cpuSec === undefined ? 'n/a' : `${run.cpuSec.toFixed(1)} s`] : []),
  ]);
  const header = [
    'run',
    'clubs',
    'records read',
    'RSS peak',
    `of ${m.functionMb} MB`,
    ...(withHeap ? ['V8 heap at the peak'] : []),
    'wall time',
    ...(withCpu ? ['CPU time'] : []),
  ];
  const larger = m.runs.some((run) => (run.recordScale ?? 1) > 1)
    ? `
The runs marked "records 2x" read a sandbox whose records are twice their size (\`recordScale\`:
fields the seed does not list, as a real API may add).`
    : '';
  const cli = m.runs.some((run) => run.bundle === 'cli')
    ? ` The run marked "the CLI" is the same first poll through the CLI's
\`poll --once\` bundled whole (what earlier reports measured), for comparison; the budget is the
function's.`
    : '';
  return `<a id="memory-of-a-poll-invocation"></a>**Memory of a poll invocation** (bench/invocation-memory.ts): ${whatRan(m)};
the sandbox and dynalite in processes of their own; its resident set sampled every 10 ms. The clubs have
${int(r.plan.memory.members)} members and ${r.plan.memory.historyDays} days of history each; a batch is \`pollBatchSize\` = ${m.batchSize}
clubs, and heavy polls (a first poll, a backfill, a lifecycle reading everything) run ${m.heavySlots} at a
time (lambdas/engine/club-poll/heavy-polls.ts). V8 collects late below its cap, so the resident
set, which Lambda's limit counts, is the figure to fit. The next poll of the batch comes after two
hours of the sandbox's activity (its tails read what changed, the sweeps that came due read their
windows).${larger}${cli}${measuredNote(m)}

${table(header, rows)}${budgetNote(m)}`;
}
