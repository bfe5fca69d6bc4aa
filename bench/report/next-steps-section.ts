/** Section 8 of the report: what this round fixed, and what would move the largest cost lines next. */
import type { TypicalClubRun } from '../typical-club';
import { costRun } from './cost-section';
import { usd } from './format';
import type { BenchResults } from './results';

/**
 * Where the minute poll's CPU goes, from the cost lines' run: a poll's fixed part, a row's part, and
 * the share of payment history's rows (its deep sweep) in the poll line. Empty for older reports.
 */
function pollCpuParagraph(r: BenchResults): string {
  const run: TypicalClubRun | undefined = r.typical.runs.length > 0 ? costRun(r) : undefined;
  const cpu = run?.pollCpu;
  const line = r.cost.default.lines.find((l) => l.key === 'lambdaPollCompute');
  if (!run || !cpu || !line || cpu.polls === 0) return '';
  const rows = Object.values(run.bySource).reduce((n, s) => n + s.rows, 0);
  const paymentRows = run.bySource.paymentHistory?.rows ?? 0;
  const paymentShare = ((paymentRows / cpu.polls) * cpu.perRowMs) / cpu.meanMs;
  return `
**Where the minute poll's CPU goes** (seed ${run.seed}, ${cpu.polls.toLocaleString('en-US')} polls, CPU on this
machine): ${cpu.meanMs.toFixed(1)} ms a poll on average, which a line through each poll's CPU and
rows splits into ${cpu.fixedMs.toFixed(1)} ms whatever the poll reads (its requests, the state item,
its log line) and ${(cpu.perRowMs * 1000).toFixed(0)} µs a row read. Payment history's rows are
${((100 * paymentRows) / Math.max(1, rows)).toFixed(0)}% of the rows read (its sweeps: 6 days every few minutes on the unused quota, 10 days hourly),
so about ${(100 * paymentShare).toFixed(0)}% of the poll's CPU: about ${usd(paymentShare * line.usd)} of the poll line's ${usd(line.usd)}.
`;
}

export function nextStepsSection(r: BenchResults): string {
  const c = r.cost.default;
  const top = [...c.lines].sort((a, b) => b.usd - a.usd).slice(0, 4);
  return `## 8. Fixed here, and what to fix next

Fixed in this round (the previous full report: $0.257 a club-month everything billed):

- **Row marks** (docs/state.md, "Rows the last scan committed"): a state source's cursor keeps
  8-byte marks of the rows its last completed scan wrote or skipped, so a member or prospect that
  comes back the same in its tail needs no snapshot read (\`getSnapshots\` in section 5).
- **A message per batch of clubs**: 20 clubs a poll message and one message an invocation, a
  twentieth of the SQS requests (the SQS line).

Built in earlier rounds and measured here: one state item per club (two writes a poll, the lease
write returning the item), packed seen entries, 20 clubs an invocation with page and heavy-poll
slots, no read for the stale-message check, shared secrets, one INFO line and one EMF document per
invocation, sweeps paid by the unused quota, seen digests, tail probes, provisioned capacity over a
spread minute, pages asked for ahead, compressed answers.

The largest lines now: ${top.map((l) => `${l.item} (${usd(l.usd)})`).join(', ')}. What would move them
(docs/scale.md, "Cost per club", with estimates): EventBridge's events are the product. Data out is
mostly the requests themselves, a real API's JWT on every one: HTTP/2 would send it once a
connection, against an API that speaks it. DynamoDB writes are the state item twice a poll, then
seen entries and snapshots: one write a poll needs another way to learn that a poll stopped
without its closing write (the lease's write tells the lifecycle and the row marks today).
${pollCpuParagraph(r)}`;
}
