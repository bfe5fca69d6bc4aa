/**
 * Step 4 of the bench: the cost per club at the default schedule (the median run), its latency
 * sensitivity, the unconfirmed zone, and the costs of fleets of three sizes, each priced with the
 * stage's template for its own club count (`-c clubs=N`: the state table's capacity, the poll
 * function's concurrency and the dispatch shards sized for N, lib/fleet-sizing.ts).
 */

import { type ClubCost, clubCost, type DispatchShare } from '../cost';
import { COST_FLEET_CLUBS } from '../cost-model';
import { type BOUNDS, type CpuCalibration, lambdaMsPerBenchMs } from '../cpu-calibration';
import { type DeploymentSettings, readDeploymentSettings } from '../deployment';
import type { BenchPlan } from '../plan';
import type { BenchResults, FleetSizeSettings } from '../report/results';
import type { DispatchRun } from '../scale/dispatch';
import { median, medianRun } from '../stats';
import type { TypicalClubRun } from '../typical-club';
import type { TypicalClubFigures } from './typical-club-step';

/** Fleets the report prices, each with its own template. */
export const FLEET_SIZES = [100, 1000, 5000] as const;

/** The stage's deployment settings for a fleet of `clubs` clubs (its template synthesized for them). */
export type SettingsForFleet = (clubs: number) => DeploymentSettings;

export interface CostFigures {
  readonly costs: BenchResults['cost'];
  /** The calibration the Lambda lines were priced with, and what they and the total are at each bound. */
  readonly cpuCalibration?: CpuCalibration;
  /** The run the cost lines come from. */
  readonly costRun: TypicalClubRun;
}

/** What the report says of a fleet size's template: the settings that vary with the club count. */
function fleetSizeSettings(d: DeploymentSettings): FleetSizeSettings {
  const t = d.tableCapacity;
  return {
    pollMaxConcurrency: d.pollMaxConcurrency,
    dispatchShards: d.dispatchShards ?? 1,
    ...(t?.mode === 'provisioned' ? { tableMin: { read: t.read.min, write: t.write.min } } : {}),
  };
}

/** The Lambda compute lines (poll, fast lane, dispatcher): those the CPU calibration moves. */
export const LAMBDA_COMPUTE_LINES = ['lambdaPollCompute', 'lambdaFastLaneCompute', 'lambdaDispatch'];

/** What the Lambda compute lines and everything billed come to at each bound of the calibration. */
export function costAtBounds(
  calibration: CpuCalibration,
  costAt: (lambdaMsPerBenchMs: number) => ClubCost,
): NonNullable<CpuCalibration['costAt']> {
  const at = (bound: (typeof BOUNDS)[number]) => {
    const cost = costAt(calibration.lambdaMsPerBenchMs[bound]);
    const lambdaUsd = cost.lines
      .filter((l) => LAMBDA_COMPUTE_LINES.includes(l.key))
      .reduce((a, l) => a + l.usd, 0);
    return { lambdaUsd, totalUsd: cost.total };
  };
  return { low: at('low'), middle: at('middle'), top: at('top') };
}

/**
 * `deployment` is the stage's own template (its clubs: prod's 1,000, COST_FLEET_CLUBS); the fleet
 * sizes are priced with `settingsFor(clubs)`, by default the same stage synthesized with `clubs`.
 * The Lambda lines are priced at `calibration`'s bound (its top; none: the bench machine's CPU as
 * Lambda's, as reports before it did).
 */
export function measureCosts(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  typical: TypicalClubFigures,
  dispatchMemory: readonly DispatchRun[],
  settingsFor: SettingsForFleet = (clubs) => readDeploymentSettings(deployment.stage, { clubs }),
  calibration?: CpuCalibration,
): CostFigures {
  const dispatchShare: DispatchShare = {
    cpuMsPerClub: median(dispatchMemory.map((r) => r.cpuMs)) / plan.dispatchClubs,
    requestsPerClub: 1 / 100,
    logBytesPerRun: 600,
  };
  const costFor = (
    run: TypicalClubRun,
    options: { apiMs?: number; clubs?: number; settings?: DeploymentSettings; cpu?: number } = {},
  ): ClubCost =>
    clubCost(run.monthly, options.settings ?? deployment, dispatchShare, options.clubs ?? COST_FLEET_CLUBS, {
      lambdaMsPerBenchMs: options.cpu ?? lambdaMsPerBenchMs(calibration),
      ...(options.apiMs === undefined ? {} : { gymApiRequest: options.apiMs }),
    });
  const costRun = medianRun(typical.runs, (r) => costFor(r).total);
  const byFleet = FLEET_SIZES.map((clubs) => {
    const settings = settingsFor(clubs);
    return { clubs, cost: costFor(costRun, { clubs, settings }), settings: fleetSizeSettings(settings) };
  });
  const costs = {
    default: costFor(costRun),
    noLatency: costFor(costRun, { apiMs: 0 }),
    slowApi: costFor(costRun, { apiMs: 1000 }),
    unconfirmedZone: costFor(typical.unconfirmedZone),
    // The same seed's run with the lane off: what the fast lane adds is the difference.
    ...(typical.laneOff
      ? {
          laneOff: costFor(typical.laneOff),
          laneOn: costFor(typical.runs.find((r) => r.seed === typical.laneOff?.seed) ?? costRun),
        }
      : {}),
    byFleet,
    perRun: typical.runs.map((r) => ({ seed: r.seed, total: costFor(r).total })),
    seed: costRun.seed,
  };
  const cpuCalibration = calibration && {
    ...calibration,
    costAt: costAtBounds(calibration, (cpu) => costFor(costRun, { cpu })),
  };
  return { costs, costRun, ...(cpuCalibration ? { cpuCalibration } : {}) };
}
