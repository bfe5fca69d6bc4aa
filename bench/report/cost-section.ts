/** Section 5 of the report: everything AWS bills per club per month, its counts, model and prices. */
import { provisionedCost, SCALE_IN_POINTS_BELOW_TARGET, unitPrices } from '../cost-dynamo-lines';
import type { DeploymentSettings, TableCapacitySettings } from '../deployment';
import { LATENCY_ASSUMPTIONS_MS, PRICE_DATE, PRICE_REGION, PRICES } from '../prices';
import type { TypicalClubRun } from '../typical-club';
import { ISSUE_37_TARGET_USD } from './cpu-calibration-section';
import { int, sig, table, usd, yes } from './format';
import type { BenchResults, FleetSizeSettings } from './results';

export function costSection(r: BenchResults): string {
  return `## 5. Cost per club per month: everything AWS bills

${deployedSettings(r)}

![Cost per club](charts/cost-per-club.svg)

${costLines(r)}

${tableCapacityParagraph(r, costRun(r))}

${fleetSizes(r)}

${monthlyCounts(r)}

${durationModel(r)}

DynamoDB request units by store call (per month, the same run; USD in the table's mode${r.deployment.tableCapacity?.mode === 'provisioned' ? ', a unit at its share of an hour of capacity at the target' : ''}):

${storeCallTable(costRun(r), r.deployment)}

${moneyAndPrices(r)}`;
}

/** The typical-club run the cost lines come from. */
export function costRun(r: BenchResults): TypicalClubRun {
  return r.typical.runs.find((x) => x.seed === r.cost.seed) ?? r.typical.runs[0]!;
}

function deployedSettings(r: BenchResults): string {
  const c = r.cost.default;
  const d = r.deployment;
  return `Computed from the counts of the typical-club runs (the run with the median total; per run:
${r.cost.perRun.map((p) => `seed ${p.seed} ${usd(p.total)}`).join(', ')}), at the deployed settings
read from the CDK app (lib/, stage prod, synthesized in memory): poll Lambda ${d.poll.memoryMb} MB
${d.poll.architecture}, ${d.pollBatchSize} clubs an invocation, max concurrency ${d.pollMaxConcurrency};
dispatch Lambda ${d.dispatch.memoryMb} MB every ${d.scheduleRateMinutes} min; ${d.fixed.alarms} alarms,
${d.fixed.dashboards} dashboard, ${d.fixed.kmsKeys} customer KMS key, point-in-time recovery
${d.fixed.tablePitr ? 'on' : 'off'}, ${tableCapacityWords(r)}, archive kept ${d.fixed.archiveRetentionDays} days, logs kept
${d.fixed.logRetentionDays} days. Fleet-wide costs are divided over ${int(c.fleetClubs)} clubs.${d.handlersPresent ? '' : " (The handler files were not there when this ran: stand-in entries were synthesized; the settings are the stack's.)"}`;
}

/** Every line with its formula, the total, and whether the target is met. */
function costLines(r: BenchResults): string {
  const c = r.cost.default;
  return `${table(
    ['line', 'formula (per club per month)', 'USD'],
    c.lines.map((l) => [l.fixed ? `*${l.item}*` : l.item, l.formula, usd(l.usd)]),
  )}
| **everything billed** | typical club, fleet of ${int(c.fleetClubs)} | **${usd(c.total)}** |

Target: everything billed at most $0.30 per club per month at 1,000 clubs with the fast lane
(issue 37): ${yes(c.total <= ISSUE_37_TARGET_USD)} (${usd(c.total)}; of which the fast lane's own invocations
${usd(laneLambda(c))}; before the lane the bar was $0.25, issue 20).`;
}

/** What the fast lane's own invocations cost (its other units are in their lines). */
function laneLambda(c: {
  readonly lines: readonly { readonly key: string; readonly usd: number }[];
}): number {
  return c.lines.filter((l) => l.key.startsWith('lambdaFastLane')).reduce((a, l) => a + l.usd, 0);
}

function fleetSizes(r: BenchResults): string {
  const perSize = r.cost.byFleet.every((f) => f.settings);
  const fleetRows = r.cost.byFleet.map(({ clubs, cost, settings }) => [
    int(clubs),
    ...(perSize ? [fleetSizeWords(settings)] : []),
    usd(cost.fleetFixedUsd),
    usd(cost.total - cost.variableTotal),
    usd(cost.variableTotal),
    `**${usd(cost.total)}**`,
  ]);
  const head = [
    'clubs',
    ...(perSize ? ['its template (-c clubs=N)'] : []),
    'fleet-wide USD a month',
    'its share per club',
    'per club, growing with each',
    'everything billed per club',
  ];
  return `The fleet-wide costs (dispatcher, schedule, idle SQS long polls, metrics, alarms, dashboard, key,
dispatcher logs) divided over fleets of three sizes (the shared secrets are in the per-club lines:
one per ${int(600)} clubs)${perSize ? fleetTemplatesNote(r.deployment) : smallFleetNote(r.deployment)}:

${table(head, fleetRows)}`;
}

/** A fleet size's template in a few words: its poll concurrency, shards and table min. */
function fleetSizeWords(s: FleetSizeSettings | undefined): string {
  if (!s) return '';
  const shards = `${s.dispatchShards} shard${s.dispatchShards === 1 ? '' : 's'}`;
  const min = s.tableMin ? `, table min ${int(s.tableMin.read)} RCU / ${int(s.tableMin.write)} WCU` : '';
  return `poll concurrency ${int(s.pollMaxConcurrency)}, ${shards}${min}`;
}

function monthlyCounts(r: BenchResults): string {
  const d = r.deployment;
  const m = costRun(r);
  return `Counts per club per month (from ${sig(m.simulatedDays)} simulated days × ${sig(30 / m.simulatedDays)}):
${int(m.monthly.pollInvocations)} club polls (${int(m.monthly.pollInvocations / d.pollBatchSize)} invocations),
${int(m.monthly.apiRequests)} API requests, ${int(m.monthly.pollStoreRequests)} DynamoDB requests in polls,
${int(m.monthly.readUnits)} RRU, ${int(m.monthly.writeUnits)} WRU, ${int(m.monthly.billedEvents)} billed
events (${sig(m.monthly.eventBytes / 1e6)} MB) in ${int(m.monthly.putEventsRequests)} PutEvents requests,
${int(m.monthly.sqsMessages)} SQS messages, ${m.monthly.perClubMetrics} CloudWatch metrics carrying the
club's \`ClubId\` as a dimension (counted from the EMF the real metric helpers write),
${sig((m.monthly.emfBytes + m.monthly.logBytes) / 1e6)} MB of poll logs and EMF.`;
}

/** How a poll invocation's billed time is modelled, and how the total moves with the latencies. */
function durationModel(r: BenchResults): string {
  const c = r.cost.default;
  const d = r.deployment;
  const m = costRun(r);
  return `Lambda duration model: an invocation lasts as long as the slowest club of its batch. The clubs
of a batch are polled side by side on one event loop: their waits on the network overlap, their CPU
does not (it shares the function's fraction of a vCPU, ${d.poll.memoryMb} MB of 1,769). So invocations are
simulated (bench/lambda-batches.ts): ${d.pollBatchSize} polls drawn from a seeded sample of the measured ones,
each its on-CPU time (median ${sig(m.poll.cpuMsMedian)} ms on a whole core${r.cpuCalibration ? ` here, × ${sig(r.cpuCalibration.lambdaMsPerBenchMs[r.cpuCalibration.pricedAt])} as Lambda arm64's at the ${r.cpuCalibration.pricedAt} of the CPU calibration` : ''}) stretched by that fraction, in
bursts between its waits, ${LATENCY_ASSUMPTIONS_MS.gymApiRequest} ms per gym API request on the critical path (an API in another
region or cloud), ${LATENCY_ASSUMPTIONS_MS.dynamoRequest} ms per DynamoDB request, ${LATENCY_ASSUMPTIONS_MS.putEventsRequest} ms per PutEvents (stated assumptions: the
sandbox and dynalite answer on this machine within a millisecond); the bursts of all clubs share the loop. An
invocation of ${d.pollBatchSize} clubs bills ${sig(c.pollBilledMsPerInvocation)} ms on average. Sensitivity: with no network time at all everything
costs ${usd(r.cost.noLatency.total)}; with the API at 1 s a request, ${usd(r.cost.slowApi.total)}. A club
whose unstated zone is not confirmed (longer lookbacks) costs ${usd(r.cost.unconfirmedZone.total)}.`;
}

/** Each size priced with the stage's template for its own clubs. */
function fleetTemplatesNote(d: DeploymentSettings): string {
  const floor =
    d.tableCapacity?.mode === 'provisioned'
      ? "; a provisioned\ntable's min capacity is sized from its own fleet's steady load, so a small fleet pays no larger\nfleet's floor"
      : '';
  return `, each priced with the stage's template synthesized for its own clubs (\`-c clubs=N\`: the poll
function's concurrency, the dispatch shards and the state table's capacity sized for N${floor})`;
}

/** Reports from before the sizes had their own templates: a smaller fleet paid the stage's table min. */
function smallFleetNote(d: DeploymentSettings): string {
  const t = d.tableCapacity;
  if (t?.mode !== 'provisioned') return '';
  return `; the stage's template is the same for all three, its table's min capacity (${int(t.read.min)} RCU, ${int(t.write.min)} WCU)
sized for its own clubs: a smaller fleet on it pays that floor, a larger one the capacity its load needs
(deployed with \`-c clubs=N\`, its min is sized for N)`;
}

function storeCallTable(m: TypicalClubRun, d: DeploymentSettings): string {
  const price = unitPrices(d);
  return table(
    ['store call', 'items', 'RRU', 'WRU', 'USD'],
    Object.entries(m.storeByMethodMonthly)
      .map(([k, v]) => [k, v, v.readUnits * price.read + v.writeUnits * price.write] as const)
      .sort((a, b) => b[2] - a[2])
      .map(([k, v, cost]) => ['`' + k + '`', int(v.items), int(v.readUnits), int(v.writeUnits), usd(cost)]),
  );
}

/** The largest lines, what a poll writes and reads, and the prices used. */
function moneyAndPrices(r: BenchResults): string {
  const c = r.cost.default;
  const priceRows = Object.values(PRICES).map((p) => [
    p.unit,
    `$${p.usd < 0.001 ? p.usd.toExponential(4) : p.usd}`,
    p.source,
  ]);
  return `Where the money goes: the largest lines are ${[...c.lines]
    .sort((a, b) => b.usd - a.usd)
    .slice(0, 3)
    .map((l) => `**${l.item}** (${usd(l.usd)})`)
    .join(', ')}. A poll writes the club state item twice (\`openClub\`, \`closeClub\`: about 1 KB, one
unit each) and a seen entry or a snapshot per new record; it reads the seen set's time ranges and
the state sources' snapshots (eventually consistent).

Prices (${PRICE_REGION}, list prices checked ${PRICE_DATE}, no reserved capacity or savings plans;
DynamoDB's request units apply to a table on demand, its capacity-hours to a provisioned one; the account-wide free
tiers applied are the Scheduler's 14 M invocations and the first 100 GB out to the internet; the
first 3 dashboards are free but counted as paid):

${table(['unit', 'USD', 'source'], priceRows)}
`;
}

/**
 * What the cost section says of the state table's capacity: the mode priced (read from the
 * template, docs/benchmarks.json `deployment.tableCapacity`), the assumption it is priced under and
 * that assumption's error bound. Reports from before the setting were priced on demand.
 */
/** A few words for the deployed settings: "provisioned, 329..1,429 RCU / 115..229 WCU at 70%" or "on demand". */
export function tableCapacityWords(r: BenchResults): string {
  const t = r.deployment.tableCapacity;
  if (t?.mode !== 'provisioned') return 'state table on demand';
  return `state table provisioned, ${autoScaling(t)}`;
}

const autoScaling = (t: Extract<TableCapacitySettings, { mode: 'provisioned' }>) =>
  `auto scaled ${int(t.read.min)}..${int(t.read.max)} RCU / ${int(t.write.min)}..${int(t.write.max)} WCU at ${t.read.targetUtilizationPercent}% utilization`;

/** The mode priced, its assumption and its bound, for the cost run at the quoted fleet. */
export function tableCapacityParagraph(r: BenchResults, run: TypicalClubRun): string {
  const t = r.deployment.tableCapacity;
  const c = r.cost.default;
  if (t?.mode !== 'provisioned') {
    return `**State table priced on demand** (the template's billing mode, or a report from before the
capacity setting): every read and write request unit at its price, whatever the load's shape;
nothing is assumed of the capacity.`;
  }
  const line = (key: string) => c.lines.find((l) => l.key === key)?.usd ?? 0;
  const reads = provisionedCost(
    run.monthly.readUnits,
    c.fleetClubs,
    t.read,
    PRICES.dynamoReadCapacityUnitHour.usd,
  );
  const writes = provisionedCost(
    run.monthly.writeUnits,
    c.fleetClubs,
    t.write,
    PRICES.dynamoWriteCapacityUnitHour.usd,
  );
  const target = t.read.targetUtilizationPercent;
  const bound = target - SCALE_IN_POINTS_BELOW_TARGET;
  const boundTotal =
    c.total - line('dynamoReads') - line('dynamoWrites') + reads.boundUsdPerClub + writes.boundUsdPerClub;
  const onDemand =
    run.monthly.readUnits * PRICES.dynamoReadUnit.usd + run.monthly.writeUnits * PRICES.dynamoWriteUnit.usd;
  return `**State table priced provisioned** (the stage's template: ${autoScaling(t)}; ${t.scalableTargets}
scalable targets, ${t.scalableTargets * 4} alarms of target tracking in the fleet's lines). Assumption: auto scaling
keeps the capacity at the fleet's mean load / ${target}%, never below the min: ${int(reads.capacity)} RCU and
${int(writes.capacity)} WCU for ${int(c.fleetClubs)} clubs, ${usd(line('dynamoReads') + line('dynamoWrites'))} a club-month (on demand the
same units cost ${usd(onDemand)}). The load is flat over the minute (the polls are spread, peak/mean 1.06:
docs/scale.md); the model's units are the month's mean, eventually consistent reads at half a unit
in both modes. Error bound: target tracking scales in only after 15 minutes ${SCALE_IN_POINTS_BELOW_TARGET} points below the
target, so the capacity may stay at the mean / ${bound}%: ${int(reads.boundCapacity)} RCU and ${int(writes.boundCapacity)} WCU, everything billed
${usd(boundTotal)} instead of ${usd(c.total)}. Busier hours than the mean (the min is the mean at the
target) push the capacity above it for their hours only; a new fleet's first hour needs up to the max.`;
}
