/** The report's lifecycle section: what lifecycle events add to the typical club's month (issue 19). */
import { SCALE_IN_POINTS_BELOW_TARGET } from '../cost-dynamo-lines';
import type { LifecycleCostFigures } from '../lifecycle-cost';
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
${oneOffRow(l)}${unitRows(l)}
| DynamoDB storage (base and delta) | ${usd(l.usd.storage)} | |
| Lambda (the poll's extra time) | ${usd(l.usd.lambda)} | |
| EventBridge (events and archive) | ${usd(l.usd.events)} | two events per member a month: ${usd(l.usd.eventsBound)} |
| **everything billed** | **${usd(l.usd.total)}** | **${usd(l.usd.totalBound)}** |

Target at most ${usd(TARGET_USD)} a club-month everything billed: ${yes(l.usd.totalBound <= TARGET_USD)} (on the bound);
no added API request: ${yes(l.added.apiRequests === 0)}. ${pricedIn(l)} The bound covers what a short span cannot
show: members' lapses and returns come weeks after the baseline, and the delta is written when what
it holds changes, which a month of lapses does more often. An evaluation reads the lifecycle items,
the snapshots the polls noted and the seen entries since the base; every 12 hours it reads
everything and rewrites the base (docs/lifecycle.md, "What an evaluation reads").

Store calls the lifecycle evaluation adds, per club-month:

${table(['method', 'calls', 'read units', 'write units'], rows)}

${bigClubPart(r)}`;
}

/** The visit history the club's first evaluation reads: once a club, not a month. */
function oneOffRow(l: LifecycleCostFigures): string {
  if (!l.oneOff) return '';
  return `| visit history read at the first evaluation | ${int(l.oneOff.visitHistoryRequests)} API requests, **once a club** (not a month) | |
`;
}

/** The big club's one evaluation with every member due in the same hour (issue 33). */
function bigClubPart(r: BenchResults): string {
  const b = r.lifecycleBigClub;
  if (!b) return '### The big club\n\nNot measured in this run (a report from before the step).\n';
  const ops = Object.entries(b.byOperation)
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([op, o]) => [op.replace(/Command$/, ''), int(o.calls), int(o.items), int(o.bytes)]);
  return `### The big club

One evaluation of a club of ${int(b.members)} members and ${int(b.prospects)} prospects whose every
member comes due in the same hour (each lapses 14 days after a last visit in the hour before), in
the worst form it takes: its notes say nothing, so it reads every snapshot, finds the lapses, keeps
them pending, publishes them, rebases and empties the delta (bench/lifecycle-big-club.ts). The state
table is dynalite in a process of its own; the evaluation runs in a child under the heap flags
Lambda gives the poll function (${int(b.functionMb)} MB), its RSS sampled every 10 ms; the sink
validates and batches the events as the EventBridge sink does, without the network.

| | |
| --- | --- |
| members due in the hour | ${int(b.dueInOneHour)} |
| events published | ${int(b.eventsPublished)} (${int(b.putEventsRequests)} PutEvents requests) |
| evaluation | ${b.failed ? `**failed**: ${b.error ?? ''}` : `${sig(b.evaluationSeconds)} s, read ${b.read ?? 'n/a'}`} |
| peak RSS | ${sig(b.peakRssMb)} MB of ${int(b.functionMb)} MB |
| written | ${int(b.itemsWritten)} items, ${sig(b.bytesWritten / 1e6)} MB, about ${int(b.writeUnits)} write units |
| that hour's bill | ${usd(b.usd.total)}: DynamoDB writes ${usd(b.usd.dynamoWrites)}, events ${usd(b.usd.events)}, Lambda ${usd(b.usd.lambda)} |

Writes by operation:

${table(['operation', 'calls', 'items', 'bytes'], ops)}
`;
}

/** The DynamoDB reads and writes rows, in the table's mode the units were priced in. */
function unitRows(l: LifecycleCostFigures): string {
  const p = l.pricedAs;
  const writesBound = 'the base every 12 hours, the delta at every evaluation';
  if (p?.mode !== 'provisioned') {
    return `| DynamoDB reads | ${int(l.added.readUnits)} RRU: ${usd(l.usd.dynamoReads)} | |
| DynamoDB writes | ${int(l.added.writeUnits)} WRU: ${usd(l.usd.dynamoWrites)} | ${writesBound}: ${usd(l.usd.dynamoWritesBound)} |`;
  }
  const held = `held at ${p.targetUtilizationPercent - SCALE_IN_POINTS_BELOW_TARGET}%`;
  return `| DynamoDB reads | ${int(l.added.readUnits)} read units: +${int(p.addedCapacity.read)} RCU: ${usd(l.usd.dynamoReads)} | ${held}: ${usd(p.heldUsd.reads)} |
| DynamoDB writes | ${int(l.added.writeUnits)} write units: +${int(p.addedCapacity.write)} WCU: ${usd(l.usd.dynamoWrites)} | ${held}: ${usd(p.heldUsd.writes)}; ${writesBound}, ${held}: ${usd(l.usd.dynamoWritesBound)} |`;
}

/** How the added units were priced: the table's mode (reports from before the setting: on demand). */
function pricedIn(l: LifecycleCostFigures): string {
  const p = l.pricedAs;
  if (p?.mode !== 'provisioned')
    return "The added read and write units are priced on demand (the state table's mode), each at its price.";
  const target = p.targetUtilizationPercent;
  return `The state table is provisioned (the stage's template), so the added units are priced as the
capacity they add: they raise a fleet of ${int(p.fleetClubs)} clubs' mean units a second, and their cost is the
capacity-hours with them minus without them at ${target}% utilization, never below the table's min
(bench/cost-dynamo-lines.ts, \`provisionedCost\`, as section 5 prices the club's units), shared by
the fleet's clubs. The bound holds that capacity at the scale-in threshold
(${target - SCALE_IN_POINTS_BELOW_TARGET}%), as the cost section's does.`;
}
