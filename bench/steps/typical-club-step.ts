/**
 * Step 2 of the bench: the typical club over simulated days, one run per seed (API efficiency,
 * freshness, the counts the cost model prices) with the naive poller on the same sandbox, and the
 * same club before its zone reading is confirmed. Every simulation polls into the real DynamoDB
 * adapter, a table of its own on dynalite in another process: a poll's CPU holds the AWS SDK's work,
 * as the poll Lambda's does (against the in-memory store a minute poll's measured CPU was about 60%
 * of that, a probe's about a third), and not the server's. The events go to a counting sink in
 * memory: PutEvents' own SDK work is not in it.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { Cursor } from '../../lambdas/state/store';
import { simulateClub } from '../club-simulation';
import type { DeploymentSettings } from '../deployment';
import { measureLifecycleCost } from '../lifecycle-cost';
import { runNaivePoller } from '../naive-poller';
import type { BenchPlan } from '../plan';
import { say } from '../progress';
import { type DynaliteContext, startDynaliteHost, stateTables } from '../throughput';
import { summariseRun, type TypicalClubRun } from '../typical-club';
import type { ClubSimulationOptions } from '../typical-club-rig';

export interface TypicalClubFigures {
  readonly runs: TypicalClubRun[];
  readonly unconfirmedZone: TypicalClubRun;
  /** The first seed's club with the fast lane off: what the lane adds is the difference. */
  readonly laneOff?: TypicalClubRun;
  /** The first run's cursors at its end: the steady state the scale benchmarks copy. */
  readonly templateCursors: Cursor[];
  readonly templateNowMs: number;
}

export async function measureTypicalClub(
  plan: BenchPlan,
  deployment: DeploymentSettings,
): Promise<TypicalClubFigures> {
  const db = await startDynaliteHost();
  try {
    return await measureTypicalRuns(plan, deployment, db);
  } finally {
    await db.close();
  }
}

async function measureTypicalRuns(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  db: DynaliteContext,
): Promise<TypicalClubFigures> {
  const runs: TypicalClubRun[] = [];
  let templateCursors: Cursor[] = [];
  let templateNowMs = 0;
  for (const seed of plan.simSeeds) {
    const sim = await simulateClub({
      ...simulationOptions(plan, deployment, seed, db),
      spanMs: plan.simDays * DAY_MS,
      stepMs: deployment.scheduleRateMinutes * MINUTE_MS,
    });
    try {
      const naive = await runNaivePoller(
        sim.host,
        sim.club,
        plan.naiveCycles,
        deployment.scheduleRateMinutes * MINUTE_MS,
        sim.lastSeq,
      );
      const run = summariseRun(sim, naive, seed);
      runs.push(run);
      if (templateCursors.length === 0) {
        templateCursors = sim.cursors;
        templateNowMs = sim.endSimMs;
      }
      say(
        `typical club, seed ${seed}: ${plan.simDays} days in ${(sim.wallMs / 1000).toFixed(0)} s; p95 freshness ${run.freshness.p95.toFixed(0)} s, ${(run.quotaShareBasic * 100).toFixed(1)}% of Basic, ${run.rowsPerChange.toFixed(0)} rows/change (naive ${run.naive?.rowsPerChange.toFixed(0)})`,
      );
    } finally {
      await sim.host.close();
    }
  }
  const unconfirmedZone = await measureUnconfirmedZone(plan, deployment, db);
  const laneOff = await measureLaneOff(plan, deployment, db);
  return { runs, unconfirmedZone, laneOff, templateCursors, templateNowMs };
}

/** The options every typical-club simulation shares, bar its span and step. */
function simulationOptions(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  seed: number,
  db: DynaliteContext,
) {
  return {
    seed,
    stateStore: stateTables(db),
    ...plan.typicalClub,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    pollBatchSize: deployment.pollBatchSize,
    startTime: '2026-03-02T00:00:00Z',
  } satisfies Partial<ClubSimulationOptions>;
}

/** Lifecycle events' share of the typical club's month: the same club with them on and off. */
export async function measureLifecycle(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  /** Lambda arm64 ms per CPU ms measured here (cpu-calibration.ts), the bound the report prices at. */
  lambdaMsPerBenchMs = 1,
) {
  const seed = plan.simSeeds[0]!;
  const db = await startDynaliteHost();
  try {
    const figures = await measureLifecycleCost(
      {
        ...simulationOptions(plan, deployment, seed, db),
        spanMs: plan.lifecycleDays * DAY_MS,
        stepMs: deployment.scheduleRateMinutes * MINUTE_MS,
      },
      deployment,
      undefined,
      lambdaMsPerBenchMs,
    );
    say(
      `lifecycle events, seed ${seed}: ${figures.evaluations} evaluations in ${plan.lifecycleDays} days, ${figures.msPerEvaluation.toFixed(0)} ms each, +${figures.added.apiRequests} API requests, +$${figures.usd.total.toFixed(4)} a club-month (bound $${figures.usd.totalBound.toFixed(4)})`,
    );
    return figures;
  } finally {
    await db.close();
  }
}

/** The club before its reading of the API's unstated zone is confirmed (longer lookbacks). */
async function measureUnconfirmedZone(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  db: DynaliteContext,
): Promise<TypicalClubRun> {
  const alt = await simulateClub({
    ...simulationOptions(plan, deployment, plan.simSeeds[0]!, db),
    spanMs: plan.altScheduleHours * HOUR_MS,
    stepMs: 60_000,
    zoneConfirmed: false,
  });
  await alt.host.close();
  const altRun = summariseRun(alt, undefined, plan.simSeeds[0]!);
  say(
    `zone reading not confirmed: p95 ${altRun.freshness.p95.toFixed(0)} s at ${(altRun.quotaShareBasic * 100).toFixed(1)}% of Basic`,
  );
  return altRun;
}

/** The first seed's club with the fast lane off (as before it): the same days, visits every minute. */
async function measureLaneOff(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  db: DynaliteContext,
): Promise<TypicalClubRun> {
  const seed = plan.simSeeds[0]!;
  const sim = await simulateClub({
    ...simulationOptions(plan, deployment, seed, db),
    spanMs: plan.simDays * DAY_MS,
    stepMs: deployment.scheduleRateMinutes * MINUTE_MS,
    fastLane: false,
  });
  await sim.host.close();
  const run = summariseRun(sim, undefined, seed);
  say(
    `fast lane off, seed ${seed}: visits p95 ${run.freshnessByType['Member Visit Recorded']?.p95.toFixed(0)} s, ${(run.quotaShareBasic * 100).toFixed(1)}% of Basic`,
  );
  return run;
}
