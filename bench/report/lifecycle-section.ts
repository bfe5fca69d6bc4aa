/** The report's lifecycle section: what lifecycle events add to the typical club's month (issue 19). */
import { int, sig, table, usd, yes } from './format';
import type { BenchResults } from './results';

const TARGET_USD = 0.03;

export function lifecycleSection(r: BenchResults): string {
  const l = r.lifecycle;
  if (!l) return '## Lifecycle events\n\nNot measured in this run (a report from before lifecycle events).\n';
  const rows = Object.entries(l.added.byMethod)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([method, m]) => [method, int(m.calls), int(m.readUnits), int(m.writeUnits)]);
  return `## Lifecycle events

What the six lifecycle events (docs/lifecycle.md) add to the typical club's month: the typical
club (seed ${l.seed}, ${int(l.members)} members) simulated twice over the same ${sig(l.simulatedDays)} days,
its lifecycle events on (the default) and off; API requests and DynamoDB requests and units are the
difference between the two runs, scaled to 30 days; the evaluations' time and events come from the
polls' reports. ${int(l.evaluations)} evaluations (${int(l.waitingPolls)} polls waited for a source to be
current), ${sig(l.msPerEvaluation)} ms each in process, ${int(l.published)} lifecycle events; the
club's lifecycle base was ${int(l.docBytes)} bytes gzipped at the end, its delta ${int(l.deltaBytes ?? 0)}.

| per club-month | measured | bound |
| --- | --- | --- |
| added API requests | **${int(l.added.apiRequests)}** (target: none) | |
| DynamoDB reads | ${int(l.added.readUnits)} RRU: ${usd(l.usd.dynamoReads)} | |
| DynamoDB writes | ${int(l.added.writeUnits)} WRU: ${usd(l.usd.dynamoWrites)} | the base every 12 hours, the delta at every evaluation: ${usd(l.usd.dynamoWritesBound)} |
| DynamoDB storage (base and delta) | ${usd(l.usd.storage)} | |
| Lambda (the poll's extra time) | ${usd(l.usd.lambda)} | |
| EventBridge (events and archive) | ${usd(l.usd.events)} | two events per member a month: ${usd(l.usd.eventsBound)} |
| **everything billed** | **${usd(l.usd.total)}** | **${usd(l.usd.totalBound)}** |

Target at most ${usd(TARGET_USD)} a club-month everything billed: ${yes(l.usd.totalBound <= TARGET_USD)} (on the bound);
no added API request: ${yes(l.added.apiRequests === 0)}. The bound covers what a short span cannot
show: members' lapses and returns come weeks after the baseline, and the delta is written when what
it holds changes, which a month of lapses does more often. An evaluation reads the lifecycle items,
the snapshots the polls noted and the seen entries since the base; every 12 hours it reads
everything and rewrites the base (docs/lifecycle.md, "What an evaluation reads").

Store calls the lifecycle evaluation adds, per club-month:

${table(['method', 'calls', 'read units', 'write units'], rows)}
`;
}
