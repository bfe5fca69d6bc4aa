/**
 * Cost per club per month, everything AWS bills, computed from what the simulations counted (never
 * from guesses about volumes) at the deployed settings read from lib/ (the synthesized template:
 * memory, batch size, concurrency, alarms, dashboards, keys, retention, point-in-time recovery),
 * with the prices of prices.ts. Fleet-wide fixed costs (dispatcher, scheduler, alarms, dashboard,
 * metrics, keys, idle SQS receives, the shared secrets) are divided over the fleet's clubs.
 * Three things need more than counts, each stated in its formula: the Lambda duration (the measured
 * local poll time at the function's CPU share, plus the stated latency of each network call,
 * LATENCY_ASSUMPTIONS_MS), the bytes out (measured at the client's sockets plus the stated model of
 * bytes-out.ts; REQUEST_BYTES_OUT a request only for reports older than that), and the platform's
 * log lines per invocation (PLATFORM_LOG_BYTES). The lines themselves: cost-club-lines.ts (growing
 * with each club) and cost-fleet-lines.ts (fleet-wide); shapes and units: cost-model.ts.
 */
import { MAX_PROBES_PER_MESSAGE } from '../lambdas/common/deployment-contract';
import { PROBE_GROUP_SPAN_MS } from '../lambdas/common/poll-queue';
import { MINUTE_MS } from '../lambdas/common/time-units';
import { clubLines, pollModel } from './cost-club-lines';
import { fixedLines } from './cost-fleet-lines';
import type { ClubCost, DispatchShare, MonthlyClubCounts } from './cost-model';
import type { DeploymentSettings } from './deployment';
import { LATENCY_ASSUMPTIONS_MS } from './prices';

export {
  CLUBS_PER_SECRET,
  type ClubCost,
  type CostLine,
  type DispatchShare,
  type MonthlyClubCounts,
  PLATFORM_LOG_BYTES,
  REQUEST_BYTES_OUT,
} from './cost-model';

export function clubCost(
  c: MonthlyClubCounts,
  deployment: DeploymentSettings,
  dispatch: DispatchShare,
  fleetClubs: number,
  /** `lambdaMsPerBenchMs`: Lambda arm64 ms per measured CPU ms (cpu-calibration.ts). @default 1 */
  options: { gymApiRequest?: number; lambdaMsPerBenchMs?: number } = {},
): ClubCost {
  const { lambdaMsPerBenchMs: cpu = 1, ...latency } = options;
  const L = { ...LATENCY_ASSUMPTIONS_MS, ...latency };
  const d = deployment;
  const model = pollModel(c, d, L, cpu);
  // The lane's invocations hold probes only: its own counts and samples, none of the minute's, as
  // many a message as the fleet's spread puts within a group's span (laneBatch).
  const { pollWork: _minuteWork, ...minuteless } = c;
  const laneModel = c.lane
    ? pollModel({ ...minuteless, ...c.lane }, { ...d, pollBatchSize: laneBatch(d, fleetClubs) }, L, cpu)
    : undefined;
  const variable = clubLines(c, d, L, model, fleetClubs, laneModel);
  const fixed = fixedLines(d, dispatch, fleetClubs, model.gbPrice, L, cpu);
  const lines = [...variable, ...fixed];
  const total = lines.reduce((a, l) => a + l.usd, 0);
  const variableTotal = variable.reduce((a, l) => a + l.usd, 0);
  return {
    lines,
    total,
    variableTotal,
    fleetFixedUsd: fixed.reduce((a, l) => a + l.usd, 0) * fleetClubs,
    fleetClubs,
    pollGbSeconds: model.pollGbSeconds,
    pollBilledMsPerInvocation: (model.pollMs * model.batch) / Math.max(1, c.pollInvocations),
    pollBilledMsPerClubPoll: model.pollMs / Math.max(1, c.pollInvocations),
    ...(laneModel && c.lane
      ? {
          laneBilledMsPerInvocation:
            (laneModel.pollMs * laneModel.batch) / Math.max(1, c.lane.pollInvocations),
        }
      : {}),
  };
}
/**
 * Probes a fast-lane message carries in a fleet of `fleetClubs`: the clubs whose moments fall
 * within PROBE_GROUP_SPAN_MS of the spread minute (common/poll-queue.ts), at most
 * MAX_PROBES_PER_MESSAGE.
 */
export function laneBatch(d: DeploymentSettings, fleetClubs: number): number {
  const spreadMs = d.scheduleRateMinutes * MINUTE_MS;
  const within = Math.floor((fleetClubs * PROBE_GROUP_SPAN_MS) / spreadMs);
  return Math.max(1, Math.min(MAX_PROBES_PER_MESSAGE, within));
}

/** `costPerClubMonthUsd.byLine`: one key per line. */
export function byLine(cost: ClubCost): Record<string, number> {
  return Object.fromEntries(cost.lines.map((l) => [l.key, l.usd]));
}
