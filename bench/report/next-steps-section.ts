/** Section 8 of the report: what this round fixed, and what would move the largest cost lines next. */
import { usd } from './format';
import type { BenchResults } from './results';

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
`;
}
