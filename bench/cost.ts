/**
 * Cost per club per month, computed from what the simulations counted (never from guesses about
 * volumes) at the deployed settings read from lib/, with the prices of prices.ts. Only the Lambda
 * durations need more than counts: the measured local poll time plus the stated latency of each
 * network call (LATENCY_ASSUMPTIONS_MS), since the sandbox and the in-memory store answer at once.
 */
import type { DeploymentSettings } from './deployment';
import { LATENCY_ASSUMPTIONS_MS, PRICES } from './prices';

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
  readonly sqsMessages: number;
  readonly emfBytes: number;
  readonly logBytes: number;
  readonly perClubMetrics: number;
  /** Items the club keeps in the table (snapshots, live seen keys, cursors), and their bytes. */
  readonly storedBytes: number;
}

export interface DispatchShare {
  /** Dispatch CPU per club per run, ms (measured). */
  readonly cpuMsPerClub: number;
  /** DynamoDB requests per club per run (2: cursors and quota counter). */
  readonly requestsPerClub: number;
  /** Clubs read at once by the dispatcher. */
  readonly concurrency: number;
}

export interface CostLine {
  readonly item: string;
  readonly formula: string;
  readonly usd: number;
  /** True for the lines the issue asks for; false for lines AWS also bills. */
  readonly inBrief: boolean;
}

export interface ClubCost {
  readonly lines: CostLine[];
  readonly briefTotal: number;
  readonly total: number;
  readonly pollGbSeconds: number;
  readonly pollBilledMsPerInvocation: number;
}

const MONTH_MINUTES = 30 * 24 * 60;
/** Memory at which a Lambda function gets one full vCPU. */
const LAMBDA_FULL_VCPU_MB = 1769;
const fmt = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : String(Number(n.toPrecision(3)));

export function clubCost(
  c: MonthlyClubCounts,
  deployment: DeploymentSettings,
  dispatch: DispatchShare,
  fleetClubs: number,
  latency: { gymApiRequest: number } = LATENCY_ASSUMPTIONS_MS,
): ClubCost {
  const L = { ...LATENCY_ASSUMPTIONS_MS, ...latency };
  const gbPrice =
    deployment.poll.architecture === 'arm64' ? PRICES.lambdaArmGbSecond.usd : PRICES.lambdaX86GbSecond.usd;
  const pollGb = deployment.poll.memoryMb / 1024;
  // Lambda gives a function CPU in proportion to its memory (one vCPU at 1,769 MB): the local
  // time, measured on a whole core, stretches by that factor below it.
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / deployment.poll.memoryMb);
  const localMs = c.pollLocalMs * cpuStretch;
  const networkMs =
    c.criticalApiRequests * L.gymApiRequest +
    c.pollStoreRequests * L.dynamoRequest +
    c.putEventsRequests * L.putEventsRequest +
    c.secretsCalls * L.secretsRequest;
  const pollMs = localMs + networkMs;
  const pollGbSeconds = (pollMs / 1000) * pollGb;
  const dispatchRuns = MONTH_MINUTES / deployment.scheduleRateMinutes;
  const dispatchMsPerClub =
    dispatch.cpuMsPerClub + (dispatch.requestsPerClub * L.dynamoRequest) / Math.max(1, dispatch.concurrency);
  const dispatchGbSeconds =
    ((dispatchRuns * dispatchMsPerClub) / 1000) * (deployment.dispatch.memoryMb / 1024);
  const idleReceives = 5 * 3 * 60 * 24 * 30; // 5 long-polling pollers, a 20 s receive each, all month
  const sqsRequests = c.sqsMessages / 10 + c.sqsMessages * 2 + idleReceives / fleetClubs;
  const lines: CostLine[] = [
    {
      item: 'Lambda poll: compute',
      formula: `(${fmt(c.pollLocalMs / 1000)} s measured × ${fmt(cpuStretch)} CPU share + ${fmt(networkMs / 1000)} s waiting: ${fmt(c.criticalApiRequests)} API requests on the critical path × ${L.gymApiRequest} ms, DynamoDB, PutEvents, secrets) × ${pollGb} GB × $${gbPrice}`,
      usd: pollGbSeconds * gbPrice,
      inBrief: true,
    },
    {
      item: 'Lambda: requests',
      formula: `(${fmt(c.pollInvocations)} poll + ${fmt(dispatchRuns)}/${fleetClubs} dispatch) × $0.20/M`,
      usd: (c.pollInvocations + dispatchRuns / fleetClubs) * PRICES.lambdaRequest.usd,
      inBrief: true,
    },
    {
      item: 'Lambda dispatch: compute (club share)',
      formula: `${fmt(dispatchRuns)} runs × ${fmt(dispatchMsPerClub)} ms × ${deployment.dispatch.memoryMb / 1024} GB`,
      usd: dispatchGbSeconds * gbPrice,
      inBrief: true,
    },
    {
      item: 'DynamoDB: reads',
      formula: `${fmt(c.readUnits)} RRU × $0.125/M`,
      usd: c.readUnits * PRICES.dynamoReadUnit.usd,
      inBrief: true,
    },
    {
      item: 'DynamoDB: writes',
      formula: `${fmt(c.writeUnits)} WRU × $0.625/M`,
      usd: c.writeUnits * PRICES.dynamoWriteUnit.usd,
      inBrief: true,
    },
    {
      item: 'EventBridge: custom events',
      formula: `${fmt(c.billedEvents)} events × $1.00/M`,
      usd: c.billedEvents * PRICES.eventBridgeEvent.usd,
      inBrief: true,
    },
    {
      item: 'EventBridge Scheduler (club share)',
      formula: `${fmt(dispatchRuns)}/${fleetClubs} invocations × $1.00/M`,
      usd: (dispatchRuns / fleetClubs) * PRICES.schedulerInvocation.usd,
      inBrief: true,
    },
    {
      item: 'SQS: requests',
      formula: `${fmt(c.sqsMessages)} messages × (0.1 send + 1 receive + 1 delete) + idle receives/${fleetClubs}`,
      usd: sqsRequests * PRICES.sqsRequest.usd,
      inBrief: true,
    },
    {
      item: 'Secrets Manager: API calls',
      formula: `${fmt(c.secretsCalls)} GetSecretValue × $0.05/10k`,
      usd: c.secretsCalls * PRICES.secretsApiCall.usd,
      inBrief: true,
    },
    {
      item: 'Secrets Manager: the club secret',
      formula: '1 secret × $0.40',
      usd: PRICES.secretMonth.usd,
      inBrief: false,
    },
    {
      item: 'CloudWatch: custom metrics with a ClubId dimension',
      formula: `${c.perClubMetrics} metrics × $0.30`,
      usd: c.perClubMetrics * PRICES.cloudWatchMetricMonth.usd,
      inBrief: false,
    },
    {
      item: 'CloudWatch Logs: ingestion (poll logs + EMF)',
      formula: `${fmt((c.logBytes + c.emfBytes) / 1e6)} MB × $0.50/GB`,
      usd: ((c.logBytes + c.emfBytes) / 1e9) * PRICES.cloudWatchLogsGb.usd,
      inBrief: false,
    },
    {
      item: 'DynamoDB: storage',
      formula: `${fmt(c.storedBytes / 1e6)} MB × $0.25/GB`,
      usd: (c.storedBytes / 1e9) * PRICES.dynamoStorageGbMonth.usd,
      inBrief: false,
    },
  ];
  const briefTotal = lines.filter((l) => l.inBrief).reduce((a, l) => a + l.usd, 0);
  return {
    lines,
    briefTotal,
    total: lines.reduce((a, l) => a + l.usd, 0),
    pollGbSeconds,
    pollBilledMsPerInvocation: pollMs / Math.max(1, c.pollInvocations),
  };
}
