/**
 * The state table's lines, in the capacity mode the synthesized template has
 * (deployment-table.ts): on demand, each request unit at its price; provisioned, the capacity auto
 * scaling keeps for the fleet's mean load at the target utilization, never below the min, as
 * capacity-hours, plus the alarms target tracking creates (a fleet-wide cost). Storage and
 * point-in-time recovery are the same in both modes.
 *
 * Provisioned reads carry the model's read units over 1:1: one RCU serves a strongly consistent
 * read of 4 KB a second, or two eventually consistent ones, as on demand bills one unit or half.
 */
import { type CostLine, clubLine, fmt, GB, MONTH_MINUTES, type MonthlyClubCounts } from './cost-model';
import type { DeploymentSettings, ProvisionedDimension } from './deployment';
import { PRICES } from './prices';

/** Hours of the model's month (30 days, MONTH_MINUTES): the counts are per 30 days, so is the capacity. */
export const MONTH_HOURS = MONTH_MINUTES / 60;
const MONTH_SECONDS = MONTH_MINUTES * 60;
/**
 * CloudWatch alarms target tracking creates per DynamoDB scalable target (AlarmHigh, AlarmLow,
 * ProvisionedCapacityHigh, ProvisionedCapacityLow), each billed as a standard alarm.
 */
export const ALARMS_PER_SCALABLE_TARGET = 4;
/**
 * Target tracking scales a DynamoDB table in only when its utilization stays 20 points below the
 * target for 15 minutes (AlarmLow; AWS knowledge center "dynamodb-auto-scaling"): between that and
 * the target, the capacity stays. The model's error bound: capacity for the mean at target - 20.
 */
export const SCALE_IN_POINTS_BELOW_TARGET = 20;

/** One provisioned dimension priced for a fleet: the capacity kept and what it costs a club. */
export interface ProvisionedCost {
  /** The fleet's mean load, units a second. */
  readonly meanPerSecond: number;
  /** Capacity priced: max(mean / target, min), whole units. */
  readonly capacity: number;
  readonly usdPerClub: number;
  /** The error bound: capacity for the mean at the scale-in threshold (target - 20 points). */
  readonly boundCapacity: number;
  readonly boundUsdPerClub: number;
  /** The capacity priced is above the stage's max: the table would throttle (deploy with -c clubs=N). */
  readonly aboveMax: boolean;
}

/** `unitsPerClubMonth` for `fleetClubs` clubs on a provisioned dimension at `hourPrice` a unit-hour. */
export function provisionedCost(
  unitsPerClubMonth: number,
  fleetClubs: number,
  dim: ProvisionedDimension,
  hourPrice: number,
): ProvisionedCost {
  const meanPerSecond = (unitsPerClubMonth * fleetClubs) / MONTH_SECONDS;
  const at = (percent: number) =>
    percent > 0 ? Math.max(Math.ceil((meanPerSecond * 100) / percent), dim.min) : Number.POSITIVE_INFINITY;
  const capacity = at(dim.targetUtilizationPercent);
  const boundCapacity = at(dim.targetUtilizationPercent - SCALE_IN_POINTS_BELOW_TARGET);
  const perClub = (units: number) => (units * MONTH_HOURS * hourPrice) / fleetClubs;
  return {
    meanPerSecond,
    capacity,
    usdPerClub: perClub(capacity),
    boundCapacity,
    boundUsdPerClub: perClub(boundCapacity),
    aboveMax: capacity > dim.max,
  };
}

/** The table's mode, as the report and docs/benchmarks.json name it (absent settings: on demand). */
export function tableCapacityOf(d: DeploymentSettings): { mode: string; targetUtilization?: number } {
  const t = d.tableCapacity;
  if (t?.mode !== 'provisioned') return { mode: 'on-demand' };
  return { mode: 'provisioned', targetUtilization: t.read.targetUtilizationPercent };
}

/** USD of one read and one write unit in the table's mode (provisioned: at the target, above the min). */
export function unitPrices(d: DeploymentSettings): { read: number; write: number } {
  const t = d.tableCapacity;
  if (t?.mode !== 'provisioned')
    return { read: PRICES.dynamoReadUnit.usd, write: PRICES.dynamoWriteUnit.usd };
  const perUnit = (hourPrice: number, dim: ProvisionedDimension) =>
    hourPrice / 3600 / (dim.targetUtilizationPercent / 100);
  return {
    read: perUnit(PRICES.dynamoReadCapacityUnitHour.usd, t.read),
    write: perUnit(PRICES.dynamoWriteCapacityUnitHour.usd, t.write),
  };
}

/** Reads and writes in the table's mode, then storage and point-in-time recovery. */
export function dynamoLines(c: MonthlyClubCounts, d: DeploymentSettings, fleetClubs: number): CostLine[] {
  const storedGb = c.storedBytes / GB;
  return [
    ...requestLines(c, d, fleetClubs),
    clubLine(
      'dynamoStorage',
      'DynamoDB: storage',
      `${fmt(storedGb * 1000)} MB × $0.25/GB`,
      storedGb * PRICES.dynamoStorageGbMonth.usd,
    ),
    clubLine(
      'dynamoPitr',
      'DynamoDB: point-in-time recovery',
      d.fixed.tablePitr ? `${fmt(storedGb * 1000)} MB × $0.20/GB` : 'off',
      d.fixed.tablePitr ? storedGb * PRICES.dynamoPitrGbMonth.usd : 0,
    ),
  ];
}

function requestLines(c: MonthlyClubCounts, d: DeploymentSettings, fleetClubs: number): CostLine[] {
  const t = d.tableCapacity;
  if (t?.mode !== 'provisioned') {
    return [
      clubLine(
        'dynamoReads',
        'DynamoDB: reads (on demand)',
        `${fmt(c.readUnits)} RRU × $0.125/M`,
        c.readUnits * PRICES.dynamoReadUnit.usd,
      ),
      clubLine(
        'dynamoWrites',
        'DynamoDB: writes (on demand)',
        `${fmt(c.writeUnits)} WRU × $0.625/M`,
        c.writeUnits * PRICES.dynamoWriteUnit.usd,
      ),
    ];
  }
  const line = (key: string, what: 'reads' | 'writes', units: number, dim: ProvisionedDimension) => {
    const [unit, price] =
      what === 'reads'
        ? (['RCU', PRICES.dynamoReadCapacityUnitHour.usd] as const)
        : (['WCU', PRICES.dynamoWriteCapacityUnitHour.usd] as const);
    const p = provisionedCost(units, fleetClubs, dim, price);
    const target = dim.targetUtilizationPercent;
    const bound = target - SCALE_IN_POINTS_BELOW_TARGET;
    const above = p.aboveMax
      ? `; above its max: a fleet this size is deployed with -c clubs=${fleetClubs}`
      : '';
    const formula = `provisioned at ${target}%: max(${fmt(p.meanPerSecond)} ${unit}/s / ${target}%, min ${fmt(dim.min)}) = ${fmt(p.capacity)} ${unit} × ${MONTH_HOURS} h × $${price}, / ${fmt(fleetClubs)} clubs (the fleet's mean: ${fmt(units)} units a club × ${fmt(fleetClubs)} clubs / ${fmt(MONTH_SECONDS)} s; auto scaling ${fmt(dim.min)}..${fmt(dim.max)} ${unit}${above}); held at the scale-in threshold (${bound}%) instead: $${fmt(p.boundUsdPerClub)}`;
    return clubLine(key, `DynamoDB: ${what} (provisioned)`, formula, p.usdPerClub);
  };
  return [
    line('dynamoReads', 'reads', c.readUnits, t.read),
    line('dynamoWrites', 'writes', c.writeUnits, t.write),
  ];
}

/** The alarms target tracking creates on the table (and its indexes): 4 a scalable target, fleet-wide. */
export function autoScalingAlarmsLine(
  d: DeploymentSettings,
  line: (key: string, item: string, formula: string, usd: number) => CostLine,
): CostLine {
  const targets = d.tableCapacity?.mode === 'provisioned' ? d.tableCapacity.scalableTargets : 0;
  const alarms = targets * ALARMS_PER_SCALABLE_TARGET;
  return line(
    'tableAutoScalingAlarms',
    "CloudWatch: the table's auto scaling alarms (fleet)",
    targets > 0
      ? `${targets} scalable targets × ${ALARMS_PER_SCALABLE_TARGET} alarms target tracking creates × $0.10`
      : 'on demand: none',
    alarms * PRICES.cloudWatchAlarmMonth.usd,
  );
}
