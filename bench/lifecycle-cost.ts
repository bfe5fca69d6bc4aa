/**
 * What lifecycle events add to the typical club's month (issue 19; target: at most $0.03 everything
 * billed, no API request). The typical club is simulated twice over the same span and seed, its
 * lifecycle events on (the default) and off: the differences in API requests and in DynamoDB
 * requests and units are measured, the evaluations' time, count and events come from the polls'
 * reports, and all of it is priced as the cost model prices the rest (prices.ts).
 *
 * Two lines depend on a month longer than the span: lifecycle events (no member lapses within a few
 * simulated days of the baseline) and the delta's writes (written when what it holds changes).
 * Both are stated measured and as a bound: the base rewritten every 12 hours and the delta at
 * every evaluation, at their sizes at the end of the span; every member has two lifecycle events a
 * month (a lapse and a return).
 *
 * The added read and write units are priced in the state table's mode (the template's,
 * deployment-table.ts): on demand, each unit at its price; provisioned, as cost-dynamo-lines.ts
 * prices the club's units (`provisionedCost`): the added units raise the fleet's mean units a
 * second, and their cost is the difference of the capacity-hours with and without them at the
 * target (never below the min), for the fleet the cost is quoted for (COST_FLEET_CLUBS). The bound holds that capacity at
 * the scale-in threshold (target - 20 points), as the cost section's bound does.
 */
import { DAY_MS } from '../lambdas/common/time-units';
import { type ClubSimulationResult, simulateClub } from './club-simulation';
import { provisionedCost } from './cost-dynamo-lines';
import { COST_FLEET_CLUBS, LAMBDA_FULL_VCPU_MB } from './cost-model';
import type { DeploymentSettings } from './deployment';
import { LATENCY_ASSUMPTIONS_MS, PRICES } from './prices';
import type { ClubSimulationOptions } from './typical-club-rig';

const MONTH_DAYS = 30;
const HOURS_A_MONTH = MONTH_DAYS * 24;
/** Bytes of one lifecycle event as PutEvents bills and the archive stores it (examples: ~0.6 KB). */
const EVENT_BYTES = 700;

export interface LifecycleCostFigures {
  readonly seed: number;
  readonly simulatedDays: number;
  readonly members: number;
  readonly evaluations: number;
  readonly waitingPolls: number;
  readonly published: number;
  readonly msPerEvaluation: number;
  readonly docBytes: number;
  /** The delta item's bytes gzipped at the end. */
  readonly deltaBytes: number;
  /** Per month, lifecycle on minus off. */
  readonly added: {
    readonly apiRequests: number;
    readonly storeRequests: number;
    readonly readUnits: number;
    readonly writeUnits: number;
    /** Store calls and units by method, per month. */
    readonly byMethod: Record<string, { calls: number; readUnits: number; writeUnits: number }>;
  };
  /**
   * Once a club, not a month: the API requests of the visit history its first evaluation reads
   * (docs/lifecycle.md, "The visit history"). Absent in reports from before it.
   */
  readonly oneOff?: { readonly visitHistoryRequests: number };
  /** The table's mode the added units were priced in (absent in reports from before: on demand). */
  readonly pricedAs?: LifecycleTablePricing;
  readonly usd: {
    readonly dynamoReads: number;
    readonly dynamoWrites: number;
    readonly dynamoWritesBound: number;
    readonly storage: number;
    readonly lambda: number;
    readonly events: number;
    readonly eventsBound: number;
    readonly total: number;
    /** With the base written every 12 hours, the delta at every evaluation, and two events per member a month. */
    readonly totalBound: number;
  };
}

/** How the added units were priced: on demand, or as capacity the fleet adds at the target. */
export type LifecycleTablePricing =
  | { readonly mode: 'on-demand' }
  | {
      readonly mode: 'provisioned';
      readonly fleetClubs: number;
      readonly targetUtilizationPercent: number;
      /** Capacity units the fleet's added load needs at the target. */
      readonly addedCapacity: { readonly read: number; readonly write: number };
      /** The measured units' USD with the capacity held at the scale-in threshold (the bound). */
      readonly heldUsd: { readonly reads: number; readonly writes: number };
    };

/** What `added` units a club-month cost on top of `base`, in the table's mode. */
export interface AddedUnitsCost {
  readonly usd: number;
  /** Provisioned: with the capacity held at the scale-in threshold; on demand: `usd`. */
  readonly heldUsd: number;
  /** Provisioned: capacity units the fleet adds at the target; on demand: 0. */
  readonly capacity: number;
}

const HOUR_PRICE = {
  read: PRICES.dynamoReadCapacityUnitHour.usd,
  write: PRICES.dynamoWriteCapacityUnitHour.usd,
};
const UNIT_PRICE = { read: PRICES.dynamoReadUnit.usd, write: PRICES.dynamoWriteUnit.usd };

/**
 * `added` read or write units a club-month on top of the club's `base`, in `deployment`'s table
 * mode, for a fleet of `fleetClubs`; provisioned, as the cost section prices the club's units
 * (never below the min: a fleet whose load, with the added units or without, stays under the
 * table's floor adds nothing to the bill; the floor is half the steady mean, lib/fleet-sizing.ts).
 */
export function addedUnitsCost(
  base: number,
  added: number,
  kind: 'read' | 'write',
  deployment: DeploymentSettings,
  fleetClubs: number,
): AddedUnitsCost {
  const t = deployment.tableCapacity;
  if (t?.mode !== 'provisioned') {
    const usd = added * UNIT_PRICE[kind];
    return { usd, heldUsd: usd, capacity: 0 };
  }
  const without = provisionedCost(base, fleetClubs, t[kind], HOUR_PRICE[kind]);
  const withAdded = provisionedCost(base + added, fleetClubs, t[kind], HOUR_PRICE[kind]);
  return {
    usd: withAdded.usdPerClub - without.usdPerClub,
    heldUsd: withAdded.boundUsdPerClub - without.boundUsdPerClub,
    capacity: withAdded.capacity - without.capacity,
  };
}

type Counts = ClubSimulationResult['pollStore'];

function byMethodDiff(on: Counts, off: Counts, perMonth: number) {
  const out: LifecycleCostFigures['added']['byMethod'] = {};
  for (const method of new Set([...Object.keys(on.byMethod), ...Object.keys(off.byMethod)])) {
    const a = on.byMethod[method] ?? { items: 0, readUnits: 0, writeUnits: 0 };
    const b = off.byMethod[method] ?? { items: 0, readUnits: 0, writeUnits: 0 };
    const calls = ((on.calls[method] ?? 0) - (off.calls[method] ?? 0)) * perMonth;
    const readUnits = (a.readUnits - b.readUnits) * perMonth;
    const writeUnits = (a.writeUnits - b.writeUnits) * perMonth;
    if (calls !== 0 || readUnits !== 0 || writeUnits !== 0) out[method] = { calls, readUnits, writeUnits };
  }
  return out;
}

type RunLifecycle = ClubSimulationResult['lifecycle'];
type OnRun = Pick<ClubSimulationResult, 'requests' | 'pollStore' | 'options'> & {
  readonly lifecycle: Omit<RunLifecycle, 'historyRequests' | 'historyRequestsOnce'> &
    Partial<Pick<RunLifecycle, 'historyRequests' | 'historyRequestsOnce'>>;
};
type OffRun = Pick<ClubSimulationResult, 'requests' | 'pollStore'>;

/** The fleet the units are priced for and the table they are priced in. */
interface TableContext {
  readonly deployment: DeploymentSettings;
  readonly fleetClubs: number;
  readonly perMonth: number;
  /** Lambda arm64 ms per CPU ms measured on the bench machine (cpu-calibration.ts). */
  readonly lambdaMsPerBenchMs: number;
}

/**
 * The added units in the table's mode: reads and writes measured, the writes' bound (the base
 * every 12 hours, the delta at every evaluation, `writesBound` units a month), and how they were priced.
 */
function tableDollars(
  on: OnRun,
  off: OffRun,
  { deployment, fleetClubs, perMonth }: TableContext,
  writesBound: number,
) {
  const base = { read: off.pollStore.readUnits * perMonth, write: off.pollStore.writeUnits * perMonth };
  const readUnits = (on.pollStore.readUnits - off.pollStore.readUnits) * perMonth;
  const writeUnits = (on.pollStore.writeUnits - off.pollStore.writeUnits) * perMonth;
  const reads = addedUnitsCost(base.read, readUnits, 'read', deployment, fleetClubs);
  const writes = addedUnitsCost(base.write, writeUnits, 'write', deployment, fleetClubs);
  const bound = addedUnitsCost(base.write, writesBound, 'write', deployment, fleetClubs);
  const t = deployment.tableCapacity;
  const pricedAs: LifecycleTablePricing =
    t?.mode === 'provisioned'
      ? {
          mode: 'provisioned',
          fleetClubs,
          targetUtilizationPercent: t.read.targetUtilizationPercent,
          addedCapacity: { read: reads.capacity, write: writes.capacity },
          heldUsd: { reads: reads.heldUsd, writes: writes.heldUsd },
        }
      : { mode: 'on-demand' };
  return { readUnits, writeUnits, reads, writes, writesBoundUsd: bound.heldUsd, pricedAs };
}

/** The monthly dollars of the added units, time, document and events. */
function dollars(on: OnRun, off: OffRun, table: TableContext) {
  const { deployment, perMonth, lambdaMsPerBenchMs } = table;
  const l = on.lifecycle;
  const storeRequests = (on.pollStore.apiRequests - off.pollStore.apiRequests) * perMonth;
  const msPerEvaluation = l.evaluations > 0 ? l.ms / l.evaluations : 0;
  // The poll Lambda's model (cost-club-lines.ts): CPU at the function's share of a vCPU, plus the
  // evaluation's store waits shared by the batch of clubs an invocation polls side by side.
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / deployment.poll.memoryMb);
  const waitMs =
    (storeRequests * LATENCY_ASSUMPTIONS_MS.dynamoRequest) / Math.max(1, deployment.pollBatchSize);
  const cpuMs = l.evaluations * perMonth * msPerEvaluation * lambdaMsPerBenchMs * cpuStretch;
  const gbSeconds = ((cpuMs + waitMs) / 1000) * (deployment.poll.memoryMb / 1024);
  const gbPrice =
    deployment.poll.architecture === 'arm64' ? PRICES.lambdaArmGbSecond.usd : PRICES.lambdaX86GbSecond.usd;
  const eventUsd = (n: number) =>
    n * (PRICES.eventBridgeEvent.usd + (EVENT_BYTES / 1e9) * PRICES.eventBridgeArchiveGb.usd);
  const units = (bytes: number) => Math.ceil(Math.max(1, bytes) / 1024);
  const writesBound = (HOURS_A_MONTH / 12) * units(l.docBytes) + HOURS_A_MONTH * units(l.deltaBytes);
  const db = tableDollars(on, off, table, writesBound);
  const storedGbPrice =
    PRICES.dynamoStorageGbMonth.usd + (deployment.fixed.tablePitr ? PRICES.dynamoPitrGbMonth.usd : 0);
  const usd = {
    dynamoReads: db.reads.usd,
    dynamoWrites: db.writes.usd,
    dynamoWritesBound: db.writesBoundUsd,
    storage: ((l.docBytes + l.deltaBytes) / 1e9) * storedGbPrice,
    lambda: gbSeconds * gbPrice,
    events: eventUsd(l.published * perMonth),
    eventsBound: eventUsd(2 * on.options.members),
  };
  const total = usd.dynamoReads + usd.dynamoWrites + usd.storage + usd.lambda + usd.events;
  const totalBound =
    db.reads.heldUsd +
    Math.max(db.writes.heldUsd, usd.dynamoWritesBound) +
    usd.storage +
    usd.lambda +
    Math.max(usd.events, usd.eventsBound);
  const { readUnits, writeUnits, pricedAs } = db;
  return {
    readUnits,
    writeUnits,
    storeRequests,
    msPerEvaluation,
    pricedAs,
    usd: { ...usd, total, totalBound },
  };
}

/**
 * Prices the on/off pair (pure: the tests give it made-up runs), the units for a fleet of
 * `fleetClubs` when the table is provisioned.
 */
export function lifecycleCost(
  on: OnRun,
  off: OffRun,
  deployment: DeploymentSettings,
  fleetClubs: number = COST_FLEET_CLUBS,
  lambdaMsPerBenchMs = 1,
): LifecycleCostFigures {
  const days = on.options.spanMs / DAY_MS;
  const perMonth = MONTH_DAYS / days;
  const l = on.lifecycle;
  const d = dollars(on, off, { deployment, fleetClubs, perMonth, lambdaMsPerBenchMs });
  return {
    seed: on.options.seed,
    simulatedDays: days,
    members: on.options.members,
    evaluations: l.evaluations,
    waitingPolls: l.waiting,
    published: l.published,
    msPerEvaluation: d.msPerEvaluation,
    docBytes: l.docBytes,
    deltaBytes: l.deltaBytes,
    added: {
      // Data requests (token requests follow the wall clock the bench caches tokens on, not the club),
      // but the visit history's: read once a club, at its first evaluation (`oneOff`).
      apiRequests: (on.requests.data - off.requests.data - (l.historyRequests ?? 0)) * perMonth,
      storeRequests: d.storeRequests,
      readUnits: d.readUnits,
      writeUnits: d.writeUnits,
      byMethod: byMethodDiff(on.pollStore, off.pollStore, perMonth),
    },
    oneOff: { visitHistoryRequests: l.historyRequestsOnce ?? 0 },
    pricedAs: d.pricedAs,
    usd: d.usd,
  };
}

/** The typical club simulated with lifecycle events on and off over the same span and seed. */
export async function measureLifecycleCost(
  options: Omit<ClubSimulationOptions, 'lifecycle'>,
  deployment: DeploymentSettings,
  fleetClubs: number = COST_FLEET_CLUBS,
  lambdaMsPerBenchMs = 1,
): Promise<LifecycleCostFigures> {
  const run = async (lifecycle: boolean) => {
    const sim = await simulateClub({ ...options, lifecycle });
    await sim.host.close();
    return sim;
  };
  const on = await run(true);
  const off = await run(false);
  return lifecycleCost(on, off, deployment, fleetClubs, lambdaMsPerBenchMs);
}
