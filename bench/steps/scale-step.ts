/**
 * Step 3 of the bench: scale. The dispatcher over many clubs (in memory and on dynalite), a
 * simulated hour of a fleet through the poll path, and (once the cost model has priced a poll
 * invocation) the fleet of 5,000 clubs.
 */
import { pollConcurrencyFor } from '../../lib/stage-config';
import { CLUBS_PER_SECRET } from '../cost';
import type { DeploymentSettings } from '../deployment';
import type { BenchPlan } from '../plan';
import { say } from '../progress';
import type { BenchResults } from '../report/results';
import { type DispatchRun, dispatchInMemory, dispatchOnDynalite } from '../scale/dispatch';
import { type Fleet5000Result, fleet5000 } from '../scale/fleet-5000';
import { fleetHour } from '../scale/fleet-hour';
import { median } from '../stats';
import { startDynaliteHost } from '../throughput';
import type { CostFigures } from './cost-step';
import type { TypicalClubFigures } from './typical-club-step';

export type ScaleFigures = Omit<BenchResults['scale'], 'fleet5000'>;

export async function measureScale(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  typical: TypicalClubFigures,
): Promise<ScaleFigures> {
  const dispatchMemory = await dispatchInMemory(
    typical.templateCursors,
    typical.templateNowMs + 60_000,
    plan.dispatchClubs,
    plan.runs,
  );
  say(
    `dispatch of ${plan.dispatchClubs} clubs in memory: ${median(dispatchMemory.map((r) => r.wallMs)).toFixed(0)} ms`,
  );
  const db = await startDynaliteHost();
  let dispatchDynalite: { runs: DispatchRun[]; seedMs: number };
  try {
    dispatchDynalite = await dispatchOnDynalite(
      db,
      typical.templateCursors,
      typical.templateNowMs + 60_000,
      plan.dynaliteDispatchClubs,
      plan.runs,
    );
  } finally {
    await db.close();
  }
  say(
    `dispatch of ${plan.dynaliteDispatchClubs} clubs on dynalite: ${median(dispatchDynalite.runs.map((r) => r.wallMs)).toFixed(0)} ms`,
  );
  const fleet = await fleetHour({
    ...plan.fleet,
    workers: deployment.pollMaxConcurrency,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    seed: 9,
  });
  say(
    `fleet: ${fleet.clubs} clubs for ${fleet.minutes.length} simulated minutes: ${fleet.polls} polls in ${(fleet.wallMs / 1000).toFixed(1)} s`,
  );
  return { dispatchMemory, dispatchDynalite, fleet };
}

/** The fleet of `plan.dispatchClubs` clubs, with the poll side priced by the cost model. */
export async function measureFleet5000(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  typical: TypicalClubFigures,
  { costs, costRun }: CostFigures,
): Promise<Fleet5000Result> {
  const secretsPerSecond =
    (pollConcurrencyFor(plan.dispatchClubs, deployment.pollBatchSize) *
      Math.ceil(plan.dispatchClubs / CLUBS_PER_SECRET)) /
    1800;
  const fleetOf5000 = await fleet5000({
    template: typical.templateCursors,
    nowMs: typical.templateNowMs + 60_000,
    clubs: plan.dispatchClubs,
    dispatchMemoryMb: deployment.dispatch.memoryMb,
    dispatchTimeoutSeconds: deployment.dispatch.timeoutSec,
    batchSize: deployment.pollBatchSize,
    pollConcurrencyConfigured: pollConcurrencyFor(plan.dispatchClubs, deployment.pollBatchSize),
    pollInvocationSeconds: costs.default.pollBilledMsPerInvocation / 1000,
    putEventsRequestsPerClubMonth: costRun.monthly.putEventsRequests,
    getSecretValuePerSecond: secretsPerSecond,
  });
  say(
    `fleet of ${fleetOf5000.clubs}: dispatch ${fleetOf5000.dispatchSeconds.toFixed(1)} s of ${fleetOf5000.dispatchTimeoutSeconds} s at the CPU share; poll concurrency needed ${fleetOf5000.pollConcurrencyNeeded.toFixed(1)}, configured ${fleetOf5000.pollConcurrencyConfigured}`,
  );
  return fleetOf5000;
}
