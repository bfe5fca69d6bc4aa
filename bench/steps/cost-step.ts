/**
 * Step 4 of the bench: the cost per club at the default schedule (the median run), its latency
 * sensitivity, the unconfirmed zone, and the fleet-wide costs divided over fleets of three sizes.
 */
import { type ClubCost, clubCost, type DispatchShare } from '../cost';
import type { DeploymentSettings } from '../deployment';
import type { BenchPlan } from '../plan';
import type { BenchResults } from '../report/results';
import type { DispatchRun } from '../scale/dispatch';
import { median, medianRun } from '../stats';
import type { TypicalClubRun } from '../typical-club';
import type { TypicalClubFigures } from './typical-club-step';

/** The fleet the cost per club is quoted for (docs/benchmarks.json `costPerClubMonthUsd`). */
const COST_FLEET_CLUBS = 1000;
/** Fleets the fixed costs are divided over in the report. */
const FLEET_SIZES = [100, 1000, 5000] as const;

export interface CostFigures {
  readonly costs: BenchResults['cost'];
  /** The run the cost lines come from. */
  readonly costRun: TypicalClubRun;
}

export function measureCosts(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  typical: TypicalClubFigures,
  dispatchMemory: readonly DispatchRun[],
): CostFigures {
  const dispatchShare: DispatchShare = {
    cpuMsPerClub: median(dispatchMemory.map((r) => r.cpuMs)) / plan.dispatchClubs,
    requestsPerClub: 1 / 100,
    logBytesPerRun: 600,
  };
  const costFor = (run: TypicalClubRun, options: { apiMs?: number; clubs?: number } = {}): ClubCost =>
    clubCost(
      run.monthly,
      deployment,
      dispatchShare,
      options.clubs ?? COST_FLEET_CLUBS,
      options.apiMs === undefined ? {} : { gymApiRequest: options.apiMs },
    );
  const costRun = medianRun(typical.runs, (r) => costFor(r).total);
  const costs = {
    default: costFor(costRun),
    noLatency: costFor(costRun, { apiMs: 0 }),
    slowApi: costFor(costRun, { apiMs: 1000 }),
    unconfirmedZone: costFor(typical.unconfirmedZone),
    byFleet: FLEET_SIZES.map((clubs) => ({ clubs, cost: costFor(costRun, { clubs }) })),
    perRun: typical.runs.map((r) => ({ seed: r.seed, total: costFor(r).total })),
    seed: costRun.seed,
  };
  return { costs, costRun };
}
