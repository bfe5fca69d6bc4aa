/**
 * The webhook step of the bench (issue 35): the deployed delivery path on this machine
 * (bench/webhooks/webhook-rig.ts) with 1,000 endpoints, each covering its club, fed the typical
 * club's events at 100 deliveries a second; first with every receiver answering, then with 100 of
 * them dead (they accept a connection and never answer). Measured: publish to 2xx (p95, live
 * endpoints), and everything each AWS endpoint was asked, priced per million deliveries and for
 * one endpoint subscribed to everything at the typical club (bench/webhooks/webhook-cost.ts).
 *
 *   npm run bench -- --only webhooks        # this step alone, into the existing report
 */
import { loadavg } from 'node:os';
import type { DeploymentSettings, WebhookDeploymentSettings } from '../deployment';
import { type MachineInfo, machineInfo } from '../machine';
import type { BenchPlan } from '../plan';
import { say } from '../progress';
import { percentile } from '../stats';
import type { EventPool } from '../webhooks/club-events';
import { captureClubEvents } from '../webhooks/club-events';
import {
  addedPerClubMonth,
  WEBHOOK_ASSUMPTIONS,
  type WebhookCost,
  webhookCost,
} from '../webhooks/webhook-cost';
import { type LoadOptions, type LoadResult, runLoad } from '../webhooks/webhook-load';
import { startWebhookRig, type WebhookRig } from '../webhooks/webhook-rig';

/** The fleet the club figure spreads the fixed costs over (as the cost per club: 1,000 clubs). */
export const WEBHOOK_FLEET_CLUBS = 1000;

/** A load run as the report keeps it: the per-invocation and per-attempt arrays summarised. */
export type RunSummary = Omit<LoadResult, 'window' | 'latencySamples'> & {
  readonly window: Omit<LoadResult['window'], 'fanOut' | 'deliver'> & {
    readonly fanOut: Summarised;
    readonly deliver: Summarised;
  };
  /** The machine's load average (1, 5, 15 min) at the run's end. */
  readonly loadAverage: readonly number[];
};

type Summarised = Omit<LoadResult['window']['deliver'], 'durationsMs' | 'attempts'> & {
  readonly durationMs: { p50: number; p95: number; max: number };
  readonly attempts: {
    n: number;
    p50Ms: number;
    p95Ms: number;
    batches: number;
    endpoints: number;
    longestChains: number;
    heldMs: number;
  };
};

export interface WebhookFigures {
  /** The keys compared run to run (docs/benchmarks.json `webhooks.*`). */
  readonly endpoints: number;
  readonly costPerMillionUsd: number;
  /** p95 publish to 2xx at `deliveriesPerSecond`, at the functions' CPU share (`latency`). */
  readonly p95Seconds: number;
  readonly p95SecondsWithDeadEndpoints: number;
  readonly addedCostPerClubMonthUsd: number;
  /** The rate measured: the plan's, or lower when this machine could not keep up (`attempts`). */
  readonly deliveriesPerSecond: number;
  readonly plannedDeliveriesPerSecond: number;
  /** Each try of the healthy run: its rate, whether the machine kept up, the cores it needed. */
  readonly attempts: readonly {
    rate: number;
    kept: boolean;
    due: number;
    delivered: number;
    p95: number;
    cores: number;
  }[];
  readonly deadEndpoints: number;
  /** The template's webhook functions, as measured. */
  readonly deployment: WebhookDeploymentSettings;
  readonly assumptions: typeof WEBHOOK_ASSUMPTIONS;
  readonly pool: { events: number; hours: number; byType: Record<string, number> };
  readonly healthy: RunSummary;
  readonly dead: RunSummary;
  /**
   * The p95s as measured here, and what the functions' CPU share adds to a delivery (s): one the
   * fan-out made (its invocation's), one the delivery function made (the fan-out's and its own).
   */
  readonly latency: {
    healthyP95: number;
    deadP95: number;
    cpuShareAddsSec: { readonly fanOut: number; readonly deliver: number };
  };
  readonly cost: WebhookCost;
  /** The same priced from the run with dead endpoints (their timeouts billed). */
  readonly costWithDeadEndpoints: WebhookCost;
  readonly club: ReturnType<typeof addedPerClubMonth> & { readonly eventsPerDay: number };
  /** Where and when this step was measured (with `--only webhooks`, apart from the rest). */
  readonly machine: MachineInfo;
  /** The machine's load average (1, 5, 15 min) when the step began. */
  readonly loadAverageAtStart: readonly number[];
  readonly wallSec: number;
}

function summarise({ latencySamples: _, ...r }: LoadResult): RunSummary {
  const fn = (f: LoadResult['window']['deliver']): Summarised => {
    const { durationsMs, attempts, ...rest } = f;
    return {
      ...rest,
      durationMs: {
        p50: percentile(durationsMs, 50),
        p95: percentile(durationsMs, 95),
        max: durationsMs.length ? Math.max(...durationsMs) : 0,
      },
      attempts: {
        n: attempts.ms.length,
        p50Ms: percentile(attempts.ms, 50),
        p95Ms: percentile(attempts.ms, 95),
        batches: attempts.batches,
        endpoints: attempts.endpoints,
        longestChains: attempts.longestChains,
        heldMs: attempts.heldMs,
      },
    };
  };
  return {
    ...r,
    window: { ...r.window, fanOut: fn(r.window.fanOut), deliver: fn(r.window.deliver) },
    loadAverage: loadavg(),
  };
}

/** The machine kept up: the window's deliveries done in it (most), no growing backlog. */
const keptUp = (r: LoadResult) => r.window.delivered >= 0.85 * r.window.due && r.latency.p95 < 10;
const cores = (r: LoadResult) =>
  Object.values(r.window.cpuMs).reduce((a, b) => a + b, 0) / 1000 / r.window.seconds;

/**
 * What the functions' CPU share adds to a delivery: a 256 MB function has 256/1769 of a vCPU, so
 * its CPU takes 6.9 times as long as here. A delivery the fan-out made waited for (at most) the
 * fan-out's work on its batch of events (its event source's, or one it received itself); one the
 * delivery function made, for that and the delivery invocation's (their CPU per batch, the event
 * source's polling included: an upper bound).
 */
function cpuShareAddsSec(cost: WebhookCost): { fanOut: number; deliver: number } {
  const { fanOut, deliver } = cost.duration;
  const fan = ((fanOut.cpuShare - 1) * fanOut.cpuPerBatchMs) / 1000;
  return { fanOut: fan, deliver: fan + ((deliver.cpuShare - 1) * deliver.cpuPerBatchMs) / 1000 };
}

/** The p95 of publish to 2xx with each delivery's CPU share added, by the function that made it. */
function p95WithCpuShare(r: LoadResult, adds: { fanOut: number; deliver: number }): number {
  const { fanOut, deliver } = r.latencySamples;
  return percentile([...fanOut.map((s) => s + adds.fanOut), ...deliver.map((s) => s + adds.deliver)], 95);
}

type Load = Omit<LoadOptions, 'deliveriesPerSecond' | 'seed'>;

/** The healthy run at the plan's rate, halved while this machine cannot keep up. */
async function healthyRun(rig: WebhookRig, pool: EventPool, w: BenchPlan['webhooks'], load: Load) {
  const attempts: WebhookFigures['attempts'][number][] = [];
  for (let rate = w.deliveriesPerSecond; ; rate /= 2) {
    const run = await runLoad(rig, pool, { ...load, deliveriesPerSecond: rate, seed: 1 });
    const kept = keptUp(run);
    attempts.push({
      rate,
      kept,
      due: run.window.due,
      delivered: run.window.delivered,
      p95: run.latency.p95,
      cores: cores(run),
    });
    say(
      `webhooks at ${rate}/s: ${run.delivered} of ${run.due} delivered, p95 ${run.latency.p95.toFixed(2)} s, the emulation used ${cores(run).toFixed(2)} cores (load ${loadavg()[0]!.toFixed(1)})${kept ? '' : ': the machine did not keep up'}`,
    );
    if (kept || rate / 2 < w.minDeliveriesPerSecond) return { run, rate, attempts };
    await rig.restartFunctions(undefined, true);
  }
}

/** `eventsPerDay`: the typical club's events a day (its simulation, section 3 of the report). */
export async function measureWebhooks(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  eventsPerDay: number,
): Promise<WebhookFigures> {
  const t0 = performance.now();
  const loadAverageAtStart = loadavg();
  const w = plan.webhooks;
  const d = deployment.webhooks;
  if (!d) throw new Error('the template has no webhook functions: nothing to measure');
  const pool = await captureClubEvents(plan, deployment, w.poolHours);
  say(`webhooks: ${pool.events.length} events of the typical club (${w.poolHours} h) to deliver`);
  const rig = await startWebhookRig(d, {
    endpoints: w.endpoints,
    receiverAnswerMs: WEBHOOK_ASSUMPTIONS.receiverAnswerMs,
    sqsRequestMs: WEBHOOK_ASSUMPTIONS.sqsRequestMs,
  });
  try {
    const load = { busToQueueMs: WEBHOOK_ASSUMPTIONS.busToQueueMs, drainSec: 60, dead: [] };
    const steady = { ...load, warmupSec: w.warmupSec, measureSec: w.measureSec };
    const { run: healthy, rate, attempts } = await healthyRun(rig, pool, w, steady);
    const deadIndexes = rig.endpoints
      .map((e) => e.index)
      .filter((i) => i % 10 === 3)
      .slice(0, w.dead);
    const dead = await runLoad(rig, pool, {
      ...load,
      deliveriesPerSecond: rate,
      warmupSec: w.deadWarmupSec,
      measureSec: w.deadMeasureSec,
      dead: deadIndexes,
      seed: 2,
    });
    say(
      `webhooks, ${deadIndexes.length} dead: p95 ${dead.latency.p95.toFixed(2)} s (as they died: ${dead.latencyWarmup.p95.toFixed(2)} s)`,
    );
    return {
      ...figures({ w, d, pool, eventsPerDay, rate, attempts, healthy, dead, deadIndexes, t0 }),
      machine: machineInfo(),
      loadAverageAtStart,
    };
  } finally {
    await rig.close();
  }
}

interface Measured {
  readonly w: BenchPlan['webhooks'];
  readonly d: WebhookDeploymentSettings;
  readonly pool: EventPool;
  readonly eventsPerDay: number;
  readonly rate: number;
  readonly attempts: WebhookFigures['attempts'];
  readonly healthy: LoadResult;
  readonly dead: LoadResult;
  readonly deadIndexes: readonly number[];
  readonly t0: number;
}

function figures(m: Measured): Omit<WebhookFigures, 'machine' | 'loadAverageAtStart'> {
  const cost = webhookCost(m.healthy.window, m.d, m.w.endpoints);
  const adds = cpuShareAddsSec(cost);
  const club = {
    ...addedPerClubMonth(cost, m.eventsPerDay * 30, WEBHOOK_FLEET_CLUBS),
    eventsPerDay: m.eventsPerDay,
  };
  return {
    endpoints: m.w.endpoints,
    costPerMillionUsd: cost.perMillion.total,
    p95Seconds: p95WithCpuShare(m.healthy, adds),
    p95SecondsWithDeadEndpoints: p95WithCpuShare(m.dead, adds),
    addedCostPerClubMonthUsd: club.totalUsd,
    deliveriesPerSecond: m.rate,
    plannedDeliveriesPerSecond: m.w.deliveriesPerSecond,
    attempts: m.attempts,
    deadEndpoints: m.deadIndexes.length,
    deployment: m.d,
    assumptions: WEBHOOK_ASSUMPTIONS,
    pool: { events: m.pool.events.length, hours: m.pool.hours, byType: m.pool.byType },
    healthy: summarise(m.healthy),
    dead: summarise(m.dead),
    latency: { healthyP95: m.healthy.latency.p95, deadP95: m.dead.latency.p95, cpuShareAddsSec: adds },
    cost,
    costWithDeadEndpoints: webhookCost(m.dead.window, m.d, m.w.endpoints - m.deadIndexes.length),
    club,
    wallSec: (performance.now() - m.t0) / 1000,
  };
}
