/**
 * What the cost section says of the state table's capacity: the mode priced (read from the
 * template, docs/benchmarks.json `deployment.tableCapacity`), the assumption it is priced under and
 * that assumption's error bound. Reports from before the setting were priced on demand.
 */
import { provisionedCost, SCALE_IN_POINTS_BELOW_TARGET } from '../cost-dynamo-lines';
import type { TableCapacitySettings } from '../deployment';
import { PRICES } from '../prices';
import type { TypicalClubRun } from '../typical-club';
import { int, usd } from './format';
import type { BenchResults } from './results';

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
