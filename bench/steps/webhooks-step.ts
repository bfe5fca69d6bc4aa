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
import type { BenchPlan } from '../plan';
import { say } from '../progress';
import { percentile } from '../stats';
import { captureClubEvents } from '../webhooks/club-events';
import {
  addedPerClubMonth,
  WEBHOOK_ASSUMPTIONS,
  type WebhookCost,
  webhookCost,
} from '../webhooks/webhook-cost';
import { type LoadResult, runLoad } from '../webhooks/webhook-load';
import { startWebhookRig } from '../webhooks/webhook-rig';

/** The fleet the club figure spreads the fixed costs over (as the cost per club: 1,000 clubs). */
export const WEBHOOK_FLEET_CLUBS = 1000;

/** A load run as the report keeps it: the per-invocation and per-attempt arrays summarised. */
export type RunSummary = Omit<LoadResult, 'window'> & {
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
  };
};

export interface WebhookFigures {
  /** The keys compared run to run (docs/benchmarks.json `webhooks.*`). */
  readonly endpoints: number;
  readonly costPerMillionUsd: number;
  readonly p95Seconds: number;
  readonly p95SecondsWithDeadEndpoints: number;
  readonly addedCostPerClubMonthUsd: number;
  /** What they were made from. */
  readonly deliveriesPerSecond: number;
  readonly deadEndpoints: number;
  /** The template's webhook functions, as measured. */
  readonly deployment: WebhookDeploymentSettings;
  readonly assumptions: typeof WEBHOOK_ASSUMPTIONS;
  readonly pool: { events: number; hours: number; byType: Record<string, number> };
  readonly healthy: RunSummary;
  readonly dead: RunSummary;
  readonly cost: WebhookCost;
  /** The same priced from the run with dead endpoints (their timeouts billed). */
  readonly costWithDeadEndpoints: WebhookCost;
  readonly club: ReturnType<typeof addedPerClubMonth> & { readonly eventsPerDay: number };
  readonly wallSec: number;
}

function summarise(r: LoadResult): RunSummary {
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
      },
    };
  };
  return {
    ...r,
    window: { ...r.window, fanOut: fn(r.window.fanOut), deliver: fn(r.window.deliver) },
    loadAverage: loadavg(),
  };
}

/** `eventsPerDay`: the typical club's events a day (its simulation, section 3 of the report). */
export async function measureWebhooks(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  eventsPerDay: number,
): Promise<WebhookFigures> {
  const t0 = performance.now();
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
    const common = {
      deliveriesPerSecond: w.deliveriesPerSecond,
      busToQueueMs: WEBHOOK_ASSUMPTIONS.busToQueueMs,
    };
    const healthy = await runLoad(rig, pool, {
      ...common,
      warmupSec: w.warmupSec,
      measureSec: w.measureSec,
      drainSec: 60,
      dead: [],
      seed: 1,
    });
    say(
      `webhooks: ${healthy.delivered} of ${healthy.due} delivered, p95 ${healthy.latency.p95.toFixed(2)} s (load ${loadavg()[0]!.toFixed(1)})`,
    );
    const deadIndexes = rig.endpoints
      .map((e) => e.index)
      .filter((i) => i % 10 === 3)
      .slice(0, w.dead);
    const dead = await runLoad(rig, pool, {
      ...common,
      warmupSec: 0,
      measureSec: w.deadMeasureSec,
      drainSec: 60,
      dead: deadIndexes,
      seed: 2,
    });
    say(
      `webhooks, ${deadIndexes.length} dead: ${dead.delivered} of ${dead.due} delivered, p95 ${dead.latency.p95.toFixed(2)} s`,
    );
    const cost = webhookCost(healthy.window, d);
    const club = { ...addedPerClubMonth(cost, eventsPerDay * 30, WEBHOOK_FLEET_CLUBS), eventsPerDay };
    return {
      endpoints: w.endpoints,
      costPerMillionUsd: cost.perMillion.total,
      p95Seconds: healthy.latency.p95,
      p95SecondsWithDeadEndpoints: dead.latency.p95,
      addedCostPerClubMonthUsd: club.totalUsd,
      deliveriesPerSecond: w.deliveriesPerSecond,
      deadEndpoints: deadIndexes.length,
      deployment: d,
      assumptions: WEBHOOK_ASSUMPTIONS,
      pool: { events: pool.events.length, hours: pool.hours, byType: pool.byType },
      healthy: summarise(healthy),
      dead: summarise(dead),
      cost,
      costWithDeadEndpoints: webhookCost(dead.window, d),
      club,
      wallSec: (performance.now() - t0) / 1000,
    };
  } finally {
    await rig.close();
  }
}
