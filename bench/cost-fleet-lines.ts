/**
 * What the fleet pays whatever its size (dispatcher, scheduler, idle SQS receives, metrics, alarms,
 * the table's auto scaling alarms, dashboard, keys, the dispatcher's logs), each line divided over
 * the fleet's clubs.
 */
import { METRIC } from '../lambdas/common/deployment-contract';
import { autoScalingAlarmsLine } from './cost-dynamo-lines';
import {
  type CostLine,
  type DispatchShare,
  fmt,
  GB,
  IDLE_RECEIVES,
  LAMBDA_FULL_VCPU_MB,
  MONTH_MINUTES,
  PLATFORM_LOG_BYTES,
} from './cost-model';
import type { DeploymentSettings } from './deployment';
import { FREE_TIERS, PRICES } from './prices';

type FleetLine = (key: string, item: string, formula: string, usd: number) => CostLine;

/** What every fleet-wide line is computed from. */
interface FleetContext {
  readonly d: DeploymentSettings;
  readonly dispatch: DispatchShare;
  /** Dispatcher runs a month. */
  readonly runs: number;
  /** A line divided over the fleet's clubs. */
  readonly line: FleetLine;
}

/** What the fleet pays whatever its size, each line divided over `clubs`. */
export function fixedLines(
  d: DeploymentSettings,
  dispatch: DispatchShare,
  clubs: number,
  gbPrice: number,
  L: { readonly dynamoRequest: number },
  /** Lambda arm64 ms per CPU ms measured on the bench machine (cpu-calibration.ts). */
  lambdaMsPerBenchMs = 1,
): CostLine[] {
  const line: FleetLine = (key, item, formula, usd) => ({
    key,
    item,
    formula: `${formula}, / ${fmt(clubs)} clubs`,
    usd: usd / clubs,
    fixed: true,
  });
  const fleet: FleetContext = { d, dispatch, runs: MONTH_MINUTES / d.scheduleRateMinutes, line };
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / d.dispatch.memoryMb);
  const dispatchMs =
    clubs *
    (dispatch.cpuMsPerClub * lambdaMsPerBenchMs * cpuStretch + dispatch.requestsPerClub * L.dynamoRequest);
  return [...dispatcherLines(fleet, dispatchMs, gbPrice), ...monitoringLines(fleet)];
}

/** The dispatcher's compute and requests (`dispatchMs` a run), its schedule, the idle receives of the poll queue. */
function dispatcherLines({ d, runs, line }: FleetContext, dispatchMs: number, gbPrice: number): CostLine[] {
  const dispatchGbS = ((runs * dispatchMs) / 1000) * (d.dispatch.memoryMb / 1024);
  return [
    line(
      'lambdaDispatch',
      'Lambda dispatch: requests and compute (fleet)',
      `${fmt(runs)} runs × (${fmt(dispatchMs)} ms × ${d.dispatch.memoryMb / 1024} GB + a request)`,
      dispatchGbS * gbPrice + runs * PRICES.lambdaRequest.usd,
    ),
    line(
      'scheduler',
      'EventBridge Scheduler (fleet)',
      `${fmt(runs)} invocations a month, inside the ${fmt(FREE_TIERS.schedulerInvocations)} free`,
      Math.max(0, runs - FREE_TIERS.schedulerInvocations) * PRICES.schedulerInvocation.usd,
    ),
    line(
      'sqsIdleReceives',
      'SQS: idle receives of the event source (fleet)',
      `${fmt(IDLE_RECEIVES)} long polls × $0.40/M`,
      IDLE_RECEIVES * PRICES.sqsRequest.usd,
    ),
  ];
}

/** Metrics, alarms (the stack's and the table's auto scaling's), the dashboard, the key and the dispatcher's logs. */
function monitoringLines({ d, dispatch, runs, line }: FleetContext): CostLine[] {
  const metrics = Object.keys(METRIC).length;
  const dashboards = Math.max(0, d.fixed.dashboards);
  const fleetLogBytes = runs * (dispatch.logBytesPerRun + PLATFORM_LOG_BYTES);
  return [
    line(
      'cloudWatchMetrics',
      'CloudWatch: custom metrics, service-wide (fleet)',
      `${metrics} metric names × $0.30`,
      metrics * PRICES.cloudWatchMetricMonth.usd,
    ),
    line(
      'cloudWatchAlarms',
      'CloudWatch: alarms (fleet)',
      `${d.fixed.alarms} alarms × $0.10`,
      d.fixed.alarms * PRICES.cloudWatchAlarmMonth.usd,
    ),
    autoScalingAlarmsLine(d, line),
    line(
      'cloudWatchDashboard',
      'CloudWatch: dashboard (fleet)',
      `${dashboards} × $3 (the account's first 3 are free; counted as paid)`,
      dashboards * PRICES.cloudWatchDashboardMonth.usd,
    ),
    line(
      'kms',
      'KMS: customer managed keys (fleet)',
      `${d.fixed.kmsKeys} key × $1 (notifications topic; requests: a few a month)`,
      d.fixed.kmsKeys * PRICES.kmsKeyMonth.usd,
    ),
    line(
      'dispatchLogs',
      'CloudWatch Logs: the dispatcher (fleet)',
      `${fmt(fleetLogBytes / 1e6)} MB × $0.50/GB, stored ${Math.round(d.fixed.logRetentionDays / 30)} months × $0.03`,
      (fleetLogBytes / GB) *
        (PRICES.cloudWatchLogsGb.usd +
          (PRICES.cloudWatchLogsStorageGbMonth.usd * d.fixed.logRetentionDays) / 30),
    ),
  ];
}
