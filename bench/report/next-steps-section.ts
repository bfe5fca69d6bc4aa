/** Section 8 of the report: what this round fixed, and what would move the largest cost lines next. */
import { usd } from './format';
import type { BenchResults } from './results';

export function nextStepsSection(r: BenchResults): string {
  const c = r.cost.default;
  const top = [...c.lines].sort((a, b) => b.usd - a.usd).slice(0, 4);
  return `## 8. Fixed here, and what to fix next

Fixed in this round (the previous full report: $0.285 a club-month everything billed):

- **Packed seen entries** (docs/state.md): a poll's seen entries of one hour are one item, not one
  each, so a poll that files two visits writes one unit.
- **20 clubs an invocation**, made safe by page slots (a page past 128 KB holds one of the
  process's 48) and heavy polls 10 at a time (a first poll, a backfill, a lifecycle reading
  everything): section 6 measures the memory of a batch of first polls under Lambda's heap flags.
- **No read for the stale-message check**: judged on the cursors the lease write returns.

Built in earlier rounds and measured here: one state item per club (two writes a poll, the lease
write returning the item), shared secrets, one INFO line and one EMF document per invocation,
sweeps paid by the unused quota, seen digests, tail probes, provisioned capacity over a spread
minute, pages asked for ahead, compressed answers.

The largest lines now: ${top.map((l) => `${l.item} (${usd(l.usd)})`).join(', ')}. What would move them
(docs/scale.md, "Cost per club", with estimates): EventBridge's events are the product. Data out is
mostly the requests themselves, a real API's JWT on every one: HTTP/2 would send it once a
connection, against an API that speaks it. DynamoDB writes are the state item twice a poll, then
seen entries and snapshots: one write a poll needs another way to learn that a poll stopped
without its closing write (the lease's write tells the lifecycle today). DynamoDB reads are a third
snapshots of members and prospects re-read in their tails: a digest of the rows the last scan
compared, kept in the cursor, would skip the unchanged ones. SQS is a message per club a minute:
a message per batch of clubs would take a tenth of the requests.
`;
}
