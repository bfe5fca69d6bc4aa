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
 */
import { type ClubSimulationOptions, type ClubSimulationResult, simulateClub } from './club-simulation';
import { LAMBDA_FULL_VCPU_MB } from './cost-model';
import type { DeploymentSettings } from './deployment';
import { LATENCY_ASSUMPTIONS_MS, PRICES } from './prices';

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

type OnRun = Pick<ClubSimulationResult, 'requests' | 'pollStore' | 'lifecycle' | 'options'>;
type OffRun = Pick<ClubSimulationResult, 'requests' | 'pollStore'>;

/** The monthly dollars of the added units, time, document and events. */
function dollars(on: OnRun, off: OffRun, deployment: DeploymentSettings, perMonth: number) {
  const l = on.lifecycle;
  const readUnits = (on.pollStore.readUnits - off.pollStore.readUnits) * perMonth;
  const writeUnits = (on.pollStore.writeUnits - off.pollStore.writeUnits) * perMonth;
  const storeRequests = (on.pollStore.apiRequests - off.pollStore.apiRequests) * perMonth;
  const msPerEvaluation = l.evaluations > 0 ? l.ms / l.evaluations : 0;
  // The poll Lambda's model (cost-club-lines.ts): CPU at the function's share of a vCPU, plus the
  // evaluation's store waits shared by the batch of clubs an invocation polls side by side.
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / deployment.poll.memoryMb);
  const waitMs =
    (storeRequests * LATENCY_ASSUMPTIONS_MS.dynamoRequest) / Math.max(1, deployment.pollBatchSize);
  const cpuMs = l.evaluations * perMonth * msPerEvaluation * cpuStretch;
  const gbSeconds = ((cpuMs + waitMs) / 1000) * (deployment.poll.memoryMb / 1024);
  const gbPrice =
    deployment.poll.architecture === 'arm64' ? PRICES.lambdaArmGbSecond.usd : PRICES.lambdaX86GbSecond.usd;
  const eventUsd = (n: number) =>
    n * (PRICES.eventBridgeEvent.usd + (EVENT_BYTES / 1e9) * PRICES.eventBridgeArchiveGb.usd);
  const units = (bytes: number) => Math.ceil(Math.max(1, bytes) / 1024);
  const writesBound = (HOURS_A_MONTH / 12) * units(l.docBytes) + HOURS_A_MONTH * units(l.deltaBytes);
  const storedGbPrice =
    PRICES.dynamoStorageGbMonth.usd + (deployment.fixed.tablePitr ? PRICES.dynamoPitrGbMonth.usd : 0);
  const usd = {
    dynamoReads: readUnits * PRICES.dynamoReadUnit.usd,
    dynamoWrites: writeUnits * PRICES.dynamoWriteUnit.usd,
    dynamoWritesBound: writesBound * PRICES.dynamoWriteUnit.usd,
    storage: ((l.docBytes + l.deltaBytes) / 1e9) * storedGbPrice,
    lambda: gbSeconds * gbPrice,
    events: eventUsd(l.published * perMonth),
    eventsBound: eventUsd(2 * on.options.members),
  };
  const total = usd.dynamoReads + usd.dynamoWrites + usd.storage + usd.lambda + usd.events;
  const totalBound =
    usd.dynamoReads +
    Math.max(usd.dynamoWrites, usd.dynamoWritesBound) +
    usd.storage +
    usd.lambda +
    Math.max(usd.events, usd.eventsBound);
  return { readUnits, writeUnits, storeRequests, msPerEvaluation, usd: { ...usd, total, totalBound } };
}

/** Prices the on/off pair (pure: the tests give it made-up runs). */
export function lifecycleCost(on: OnRun, off: OffRun, deployment: DeploymentSettings): LifecycleCostFigures {
  const days = on.options.spanMs / 86_400_000;
  const perMonth = MONTH_DAYS / days;
  const l = on.lifecycle;
  const d = dollars(on, off, deployment, perMonth);
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
      // Data requests (token requests follow the wall clock the bench caches tokens on, not the club).
      apiRequests: (on.requests.data - off.requests.data) * perMonth,
      storeRequests: d.storeRequests,
      readUnits: d.readUnits,
      writeUnits: d.writeUnits,
      byMethod: byMethodDiff(on.pollStore, off.pollStore, perMonth),
    },
    usd: d.usd,
  };
}

/** The typical club simulated with lifecycle events on and off over the same span and seed. */
export async function measureLifecycleCost(
  options: Omit<ClubSimulationOptions, 'lifecycle'>,
  deployment: DeploymentSettings,
): Promise<LifecycleCostFigures> {
  const run = async (lifecycle: boolean) => {
    const sim = await simulateClub({ ...options, lifecycle });
    await sim.host.close();
    return sim;
  };
  const on = await run(true);
  const off = await run(false);
  return lifecycleCost(on, off, deployment);
}
