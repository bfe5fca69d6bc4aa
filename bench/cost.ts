/**
 * Cost per club per month, everything AWS bills, computed from what the simulations counted (never
 * from guesses about volumes) at the deployed settings read from lib/ (the synthesized template:
 * memory, batch size, concurrency, alarms, dashboards, keys, retention, point-in-time recovery),
 * with the prices of prices.ts. Fleet-wide fixed costs (dispatcher, scheduler, alarms, dashboard,
 * metrics, keys, idle SQS receives, the shared secrets) are divided over the fleet's clubs.
 * Three things need more than counts, each stated in its formula: the Lambda duration (the measured
 * local poll time at the function's CPU share, plus the stated latency of each network call,
 * LATENCY_ASSUMPTIONS_MS), the bytes a request sends out (REQUEST_BYTES_OUT), and the platform's
 * log lines per invocation (PLATFORM_LOG_BYTES).
 */
import { METRIC } from '../lambdas/common/deployment-contract';
import { pollConcurrencyFor } from '../lib/stage-config';
import type { DeploymentSettings } from './deployment';
import { FREE_TIERS, LATENCY_ASSUMPTIONS_MS, PRICES } from './prices';

/** One club, one month (30 days), steady state (after the baseline). */
export interface MonthlyClubCounts {
  readonly pollInvocations: number;
  /** Σ measured local wall time of the poll invocations, ms. */
  readonly pollLocalMs: number;
  readonly apiRequests: number;
  /** API requests a poll waits for: its first source's, then the busiest of the others' (side by side). */
  readonly criticalApiRequests: number;
  readonly tokenRequests: number;
  /** DynamoDB requests of the poll invocations (engine + club lookup). */
  readonly pollStoreRequests: number;
  readonly putEventsRequests: number;
  readonly secretsCalls: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly billedEvents: number;
  /** Bytes of the events put on the bus (what the archive stores). */
  readonly eventBytes: number;
  readonly sqsMessages: number;
  readonly emfBytes: number;
  readonly logBytes: number;
  readonly perClubMetrics: number;
  /** Items the club keeps in the table (snapshots, live seen keys, cursors), and their bytes. */
  readonly storedBytes: number;
}

export interface DispatchShare {
  /** Dispatch CPU per club per run, ms (measured on a whole core). */
  readonly cpuMsPerClub: number;
  /** DynamoDB requests per club per run (one BatchGetItem per 100 clubs). */
  readonly requestsPerClub: number;
  /** Log bytes the dispatcher writes per run (its summary line), shared by the fleet. */
  readonly logBytesPerRun: number;
}

export interface CostLine {
  /** Stable name of the line (docs/benchmarks.json `costPerClubMonthUsd.byLine`). */
  readonly key: string;
  readonly item: string;
  readonly formula: string;
  readonly usd: number;
  /** True for a fleet-wide cost divided over the clubs. */
  readonly fixed: boolean;
}

export interface ClubCost {
  readonly lines: CostLine[];
  /** Everything billed, per club per month. */
  readonly total: number;
  /** The lines that grow with each club (not the fleet-wide share). */
  readonly variableTotal: number;
  /** The fleet-wide fixed costs per month (not divided). */
  readonly fleetFixedUsd: number;
  readonly fleetClubs: number;
  readonly pollGbSeconds: number;
  /** Billed milliseconds of one poll invocation (a batch of clubs side by side). */
  readonly pollBilledMsPerInvocation: number;
  /** The invocation's share per club, ms. */
  readonly pollBilledMsPerClubPoll: number;
}

const MONTH_MINUTES = 30 * 24 * 60;
const GB = 1e9;
/** Memory at which a Lambda function gets one full vCPU. */
const LAMBDA_FULL_VCPU_MB = 1769;
/** Bytes a gym API request sends out (request line, Host, bearer token, x-api-key, TLS framing). */
export const REQUEST_BYTES_OUT = 1500;
/** Bytes of the platform's START, END and REPORT lines of one invocation (Lambda writes them). */
export const PLATFORM_LOG_BYTES = 420;
/** Clubs one shared secret holds (64 KB at about 100 bytes a club, with room to spare). */
export const CLUBS_PER_SECRET = 600;
/** Lambda's SQS pollers (5 at least), each long-polling 20 s: receives a month whatever the load. */
const IDLE_RECEIVES = 5 * 3 * MONTH_MINUTES;
const fmt = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : String(Number(n.toPrecision(3)));

interface FleetSide {
  readonly clubs: number;
  readonly lines: CostLine[];
}

/** What the fleet pays whatever its size, each line divided over `clubs`. */
function fixedLines(
  d: DeploymentSettings,
  dispatch: DispatchShare,
  clubs: number,
  gbPrice: number,
  L: { readonly dynamoRequest: number },
): FleetSide {
  const runs = MONTH_MINUTES / d.scheduleRateMinutes;
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / d.dispatch.memoryMb);
  const dispatchMs =
    clubs * (dispatch.cpuMsPerClub * cpuStretch + dispatch.requestsPerClub * L.dynamoRequest);
  const dispatchGbS = ((runs * dispatchMs) / 1000) * (d.dispatch.memoryMb / 1024);
  const metrics = Object.keys(METRIC).length;
  const dashboards = Math.max(0, d.fixed.dashboards);
  const fleetLogBytes = runs * (dispatch.logBytesPerRun + PLATFORM_LOG_BYTES);
  const line = (key: string, item: string, formula: string, usd: number): CostLine => ({
    key,
    item,
    formula: `${formula}, / ${fmt(clubs)} clubs`,
    usd: usd / clubs,
    fixed: true,
  });
  return {
    clubs,
    lines: [
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
    ],
  };
}

export function clubCost(
  c: MonthlyClubCounts,
  deployment: DeploymentSettings,
  dispatch: DispatchShare,
  fleetClubs: number,
  latency: { gymApiRequest?: number } = {},
): ClubCost {
  const L = { ...LATENCY_ASSUMPTIONS_MS, ...latency };
  const d = deployment;
  const gbPrice =
    d.poll.architecture === 'arm64' ? PRICES.lambdaArmGbSecond.usd : PRICES.lambdaX86GbSecond.usd;
  const pollGb = d.poll.memoryMb / 1024;
  const batch = Math.max(1, d.pollBatchSize);
  const invocations = c.pollInvocations / batch;
  // A batch's clubs are polled side by side: their CPU shares the function's fraction of a vCPU (one
  // at 1,769 MB), their waits on the API overlap. Per club: its CPU, and its wait / batch size.
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / d.poll.memoryMb);
  const cpuMs = c.pollLocalMs * cpuStretch;
  const waitMs =
    c.criticalApiRequests * L.gymApiRequest +
    c.pollStoreRequests * L.dynamoRequest +
    c.putEventsRequests * L.putEventsRequest;
  const pollMs = cpuMs + waitMs / batch;
  const pollGbSeconds = (pollMs / 1000) * pollGb;
  const containers = pollConcurrencyFor(fleetClubs, batch);
  const secrets = Math.ceil(fleetClubs / CLUBS_PER_SECRET);
  const ttlsPerMonth = MONTH_MINUTES / 30;
  const secretCalls = containers * secrets * ttlsPerMonth;
  const eventBytes = c.eventBytes;
  const archiveMonths =
    d.fixed.archiveRetentionDays === 0 ? 12 : Math.min(12, d.fixed.archiveRetentionDays / 30);
  const storedGb = c.storedBytes / GB;
  const logBytes = c.logBytes + c.emfBytes + invocations * PLATFORM_LOG_BYTES;
  const logMonths = d.fixed.logRetentionDays / 30;
  const outGb = ((c.apiRequests + c.tokenRequests) * REQUEST_BYTES_OUT) / GB;
  const fleetOutGb = outGb * fleetClubs;
  const line = (key: string, item: string, formula: string, usd: number): CostLine => ({
    key,
    item,
    formula,
    usd,
    fixed: false,
  });
  const variable: CostLine[] = [
    line(
      'lambdaPollCompute',
      'Lambda poll: compute',
      `(${fmt(c.pollLocalMs / 1000)} s measured × ${fmt(cpuStretch)} CPU share + ${fmt(waitMs / 1000)} s waiting / ${batch} clubs an invocation: ${fmt(c.criticalApiRequests)} API requests on the critical path × ${L.gymApiRequest} ms, DynamoDB, PutEvents) × ${pollGb} GB × $${gbPrice}`,
      pollGbSeconds * gbPrice,
    ),
    line(
      'lambdaPollRequests',
      'Lambda poll: requests',
      `${fmt(c.pollInvocations)} club polls / ${batch} a batch × $0.20/M`,
      invocations * PRICES.lambdaRequest.usd,
    ),
    line(
      'dynamoReads',
      'DynamoDB: reads',
      `${fmt(c.readUnits)} RRU × $0.125/M`,
      c.readUnits * PRICES.dynamoReadUnit.usd,
    ),
    line(
      'dynamoWrites',
      'DynamoDB: writes',
      `${fmt(c.writeUnits)} WRU × $0.625/M`,
      c.writeUnits * PRICES.dynamoWriteUnit.usd,
    ),
    line(
      'dynamoStorage',
      'DynamoDB: storage',
      `${fmt(storedGb * 1000)} MB × $0.25/GB`,
      storedGb * PRICES.dynamoStorageGbMonth.usd,
    ),
    line(
      'dynamoPitr',
      'DynamoDB: point-in-time recovery',
      d.fixed.tablePitr ? `${fmt(storedGb * 1000)} MB × $0.20/GB` : 'off',
      d.fixed.tablePitr ? storedGb * PRICES.dynamoPitrGbMonth.usd : 0,
    ),
    line(
      'eventBridgeEvents',
      'EventBridge: custom events',
      `${fmt(c.billedEvents)} events × $1.00/M`,
      c.billedEvents * PRICES.eventBridgeEvent.usd,
    ),
    line(
      'eventBridgeArchive',
      'EventBridge: archive',
      `${fmt(eventBytes / 1e6)} MB archived × $0.10/GB + ${fmt(archiveMonths)} months kept × $0.023/GB`,
      (eventBytes / GB) *
        (PRICES.eventBridgeArchiveGb.usd + archiveMonths * PRICES.eventBridgeArchiveStorageGbMonth.usd),
    ),
    line(
      'sqs',
      'SQS: requests',
      `${fmt(c.sqsMessages)} messages × (send + receive + delete, 10 a request)`,
      ((c.sqsMessages * 3) / 10) * PRICES.sqsRequest.usd,
    ),
    line(
      'secrets',
      'Secrets Manager: shared secrets and calls',
      `${secrets} secret(s) × $0.40 + ${fmt(secretCalls)} GetSecretValue (${containers} containers × ${secrets} × every 30 min) × $0.05/10k, / ${fmt(fleetClubs)} clubs`,
      (secrets * PRICES.secretMonth.usd + secretCalls * PRICES.secretsApiCall.usd) / fleetClubs,
    ),
    line(
      'logsIngestion',
      'CloudWatch Logs: ingestion',
      `(${fmt(c.logBytes / 1e6)} MB poll lines + ${fmt(c.emfBytes / 1e6)} MB EMF + ${fmt(invocations)} invocations × ${PLATFORM_LOG_BYTES} B START/END/REPORT) × $0.50/GB`,
      (logBytes / GB) * PRICES.cloudWatchLogsGb.usd,
    ),
    line(
      'logsStorage',
      'CloudWatch Logs: storage',
      `${fmt(logBytes / 1e6)} MB × ${fmt(logMonths)} months kept × $0.03/GB (uncompressed: an upper bound)`,
      (logBytes / GB) * logMonths * PRICES.cloudWatchLogsStorageGbMonth.usd,
    ),
    line(
      'dataTransfer',
      'Data transfer out (API requests)',
      `${fmt(c.apiRequests + c.tokenRequests)} requests × ${REQUEST_BYTES_OUT} B = ${fmt(outGb * 1000)} MB; the fleet's first 100 GB free`,
      (Math.max(0, fleetOutGb - FREE_TIERS.dataTransferOutGb) * PRICES.dataTransferOutGb.usd) / fleetClubs,
    ),
  ];
  const fixed = fixedLines(d, dispatch, fleetClubs, gbPrice, L).lines;
  const lines = [...variable, ...fixed];
  const total = lines.reduce((a, l) => a + l.usd, 0);
  const variableTotal = variable.reduce((a, l) => a + l.usd, 0);
  return {
    lines,
    total,
    variableTotal,
    fleetFixedUsd: fixed.reduce((a, l) => a + l.usd, 0) * fleetClubs,
    fleetClubs,
    pollGbSeconds,
    pollBilledMsPerInvocation: (pollMs * batch) / Math.max(1, c.pollInvocations),
    pollBilledMsPerClubPoll: pollMs / Math.max(1, c.pollInvocations),
  };
}

/** `costPerClubMonthUsd.byLine`: one key per line. */
export function byLine(cost: ClubCost): Record<string, number> {
  return Object.fromEntries(cost.lines.map((l) => [l.key, l.usd]));
}
