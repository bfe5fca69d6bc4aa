/**
 * Step 3 of the bench: scale. The dispatcher over many clubs in memory (the cost model prices its
 * CPU), a simulated hour of a fleet through the poll path with the minute spread as deployed (the
 * per-second shape of the load), and (once the cost model has priced a poll invocation) the fleet
 * at scale: 50,000 clubs on dynalite, every shard the stage configures measured.
 */
import { spreadSecondsFor } from '../../lambdas/common/club-shard';
import { CLUBS_PER_SECRET } from '../cost';
import type { DeploymentSettings } from '../deployment';
import type { BenchPlan } from '../plan';
import { say } from '../progress';
import type { BenchResults } from '../report/results';
import { dispatchInMemory } from '../scale/dispatch';
import { type FleetAtScaleResult, fleetAtScale, stageAtScale } from '../scale/fleet-at-scale';
import { type FleetHourResult, fleetHour } from '../scale/fleet-hour';
import { median } from '../stats';
import type { CostFigures } from './cost-step';
import type { TypicalClubFigures } from './typical-club-step';

export type ScaleFigures = Omit<BenchResults['scale'], 'atScale'>;

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
  const fleet = await fleetHour({
    ...plan.fleet,
    workers: deployment.pollMaxConcurrency,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    seed: 9,
    spreadSeconds: spreadSecondsFor(deployment.scheduleRateMinutes * 60),
  });
  say(
    `fleet: ${fleet.clubs} clubs for ${fleet.minutes.length} simulated minutes: ${fleet.polls} polls in ${(fleet.wallMs / 1000).toFixed(1)} s; polls a second peak/mean ${fleet.minuteShape.polls.peakToMean.toFixed(2)}`,
  );
  return { dispatchMemory, fleet };
}

/** The bench fleet's share of clubs polled a minute and its measured load per poll. */
export function perPollOf(fleet: FleetHourResult) {
  const polls = Math.max(1, fleet.polls);
  return {
    polledShare: fleet.polls / Math.max(1, fleet.clubs * fleet.minutes.length),
    load: {
      readUnits: fleet.store.readUnits / polls,
      writeUnits: fleet.store.writeUnits / polls,
      putEventsRequests:
        (fleet.minuteShape.putEventsRequests.meanPerSecond * 60 * fleet.minutes.length) / polls,
    },
  };
}

/** The fleet of `plan.scaleClubs` clubs as the stage configures it, the poll side priced by the cost model. */
export async function measureFleetAtScale(
  plan: BenchPlan,
  typical: TypicalClubFigures,
  { costs, costRun }: CostFigures,
  fleet?: FleetHourResult,
): Promise<FleetAtScaleResult> {
  const clubs = plan.scaleClubs;
  const stage = stageAtScale(clubs);
  const containers = stage.pollMaxConcurrency;
  const result = await fleetAtScale({
    template: typical.templateCursors,
    nowMs: typical.templateNowMs + 60_000,
    clubs,
    stage,
    pollInvocationSeconds: costs.default.pollBilledMsPerInvocation / 1000,
    ...(costs.default.laneBilledMsPerInvocation === undefined
      ? {}
      : { laneInvocationSeconds: costs.default.laneBilledMsPerInvocation / 1000 }),
    putEventsRequestsPerClubMonth: costRun.monthly.putEventsRequests,
    getSecretValuePerSecond: (containers * Math.ceil(clubs / CLUBS_PER_SECRET)) / 1800,
    ...(fleet ? { perPoll: perPollOf(fleet) } : {}),
  });
  say(
    `fleet of ${result.clubs}: ${result.dispatchShards} shards, the slowest ${result.dispatchSeconds.toFixed(1)} s of ${result.dispatchTimeoutSeconds} s at ${stage.dispatchMemoryMb} MB; poll concurrency needed ${result.pollConcurrencyNeeded.toFixed(1)}, configured ${result.pollConcurrencyConfigured}`,
  );
  return result;
}
