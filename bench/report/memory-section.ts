/** Part of section 6: the peak memory of poll invocations (bench/invocation-memory.ts). */
import { functionRuns, type InvocationMemory, type MemoryRun } from '../invocation-memory';
import { int, table } from './format';
import type { BenchResults } from './results';

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
