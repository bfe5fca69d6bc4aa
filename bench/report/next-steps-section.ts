/** Section 8 of the report: what this round fixed, and what would move the largest cost lines next. */
import { usd } from './format';
import type { BenchResults } from './results';

export function nextStepsSection(r: BenchResults): string {
  const c = r.cost.default;
  const top = [...c.lines].sort((a, b) => b.usd - a.usd).slice(0, 4);
  return `## 8. Fixed here, and what to fix next

Fixed in this round (the previous full report: $0.337 a club-month everything billed):

- **Pages asked for ahead** (docs/client.md): a sweep asks for its next pages side by side once its
  first came back, so payments' 10-day sweep (every 7 minutes) waits for about 2 responses instead
  of 6; an invocation lasts as long as its slowest club, and that club was the sweeping one.
- **Compressed answers**: the client offers gzip and the sandbox gzips (as most HTTP front ends
  do), so the ACKs the client sends for the answers shrink with them; section 5 states the bound
  of an API that never compresses.

Built in earlier rounds and measured here: one state item per club (two writes a poll, the lease
write returning the item), shared secrets, ten clubs an invocation, one INFO line and one EMF
document per invocation, sweeps paid by the unused quota, seen digests, tail probes, provisioned
capacity over a spread minute.

The largest lines now: ${top.map((l) => `${l.item} (${usd(l.usd)})`).join(', ')}. What would move them
(docs/scale.md, "Cost per club", with estimates): EventBridge's events are the product. Data out is
mostly the requests themselves, a real API's JWT on every one: HTTP/2 would send it once a
connection, against an API that speaks it. DynamoDB writes are the state item twice a poll, then
seen entries and snapshots: one write a poll needs another way to learn that a poll stopped
without its closing write (the lease's write tells the lifecycle today). DynamoDB reads are a third
snapshots of members and prospects re-read in their tails: a digest of the rows the last scan
compared, kept in the cursor, would skip the unchanged ones.
`;
}
