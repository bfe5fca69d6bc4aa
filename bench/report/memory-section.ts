/** Part of section 6: the peak memory of poll invocations (bench/invocation-memory.ts). */
import { int, table } from './format';
import type { BenchResults } from './results';

export function invocationMemoryPart(r: BenchResults): string {
  const m = r.scale.invocationMemory;
  if (!m) return '';
  const rows = m.runs.map((run) => [
    run.name,
    int(run.clubs),
    int(run.records),
    `${run.rssPeakMb.toFixed(0)} MB`,
    `${((100 * run.rssPeakMb) / m.functionMb).toFixed(0)}%`,
    `${run.wallSec.toFixed(1)} s`,
  ]);
  return `<a id="memory-of-a-poll-invocation"></a>**Memory of a poll invocation** (bench/invocation-memory.ts): the CLI's \`poll --once\`
(every club side by side through \`pollClub\`, the poll function's path) bundled with esbuild as the
functions are, in a process with the heap flags Lambda's Node runtime gives a ${m.functionMb} MB function
(\`--max-old-space-size=${m.oldSpaceMb} --max-semi-space-size=${m.semiSpaceMb}\`), against the sandbox and
dynalite in processes of their own; its resident set sampled every 10 ms. The clubs have
${int(r.plan.memory.members)} members and ${r.plan.memory.historyDays} days of history each; a batch is \`pollBatchSize\` = ${m.batchSize}
clubs, and heavy polls (a first poll, a backfill, a lifecycle reading everything) run ${m.heavySlots} at a
time (lambdas/engine/club-poll/heavy-polls.ts). V8 collects late below its cap, so the resident
set, which Lambda's limit counts, is the figure to fit; the CLI bundle holds more code than the poll
function's. The next poll of the batch comes after two hours of the sandbox's activity (its tails
read what changed, the sweeps that came due read their windows).

${table(['run', 'clubs', 'records read', 'RSS peak', `of ${m.functionMb} MB`, 'wall time'], rows)}`;
}
