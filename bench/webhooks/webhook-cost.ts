/**
 * What webhook deliveries cost, everything AWS bills, from what one load run counted
 * (./webhook-load.ts) at the deployed settings (bench/deployment.ts) and the prices of
 * bench/prices.ts: per million deliveries, and what one endpoint subscribed to everything adds to
 * the typical club's month.
 *
 * Counted over a load run's measured window (caches filled), not assumed: invocations and records
 * of each function, SQS requests of every caller
 * (EventBridge's sends to the ingest queue, the event sources' receives, empty ones included, and
 * deletes, the functions' sends and visibility changes; 64 KB chunks), DynamoDB requests and the
 * units dynalite reports, GetSecretValue calls, the operational events published, log and EMF
 * bytes (and Lambda's own START, END and REPORT lines per invocation), and the bytes the
 * receivers' sockets read (TLS records and handshakes). Modelled, as the poll cost is
 * (bench/cost-club-lines.ts): a Lambda invocation's duration, which a local run cannot give (local
 * servers answer in microseconds, the machine is shared): its measured CPU at the function's CPU
 * share, plus the stated latency of each call it waits for, plus its longest chain of answered
 * attempts to one endpoint at the stated time an attempt takes (WEBHOOK_ASSUMPTIONS), plus the
 * longest wait of one endpoint's attempts that a deadline ended (a timeout, a first attempt
 * handed off at its budget), as measured: both functions attempt (the fan-out the first attempts,
 * side by side, one per endpoint); and the key secrets' reads, cached 30 minutes, far longer than a
 * window: each container of either function reads each secret twice an hour (each read a KMS
 * decrypt with the AWS managed key). Fixed monthly costs (the event sources' idle receives,
 * alarms, metric names, key secrets, the webhook table's storage) are listed apart and spread over
 * the fleet.
 */
import { METRIC } from '../../lambdas/common/deployment-contract';
import { DEFAULT_SECRET_SHARDS } from '../../lambdas/delivery/webhook-admin';
import {
  type CostLine,
  fmt,
  GB,
  IDLE_RECEIVES,
  LAMBDA_FULL_VCPU_MB,
  PLATFORM_LOG_BYTES,
} from '../cost-model';
import type { WebhookDeploymentSettings } from '../deployment';
import { LATENCY_ASSUMPTIONS_MS, PRICES } from '../prices';
import type { FunctionFigures, WindowCounts } from './webhook-load';

/** Stated, not measured (docs/benchmarks.md, "Webhooks"). */
export const WEBHOOK_ASSUMPTIONS = {
  /** EventBridge from PutEvents to the rule's SQS target (AWS publishes no figure; local: none). */
  busToQueueMs: 500,
  /** One SQS request from Lambda in the region (the local SQS answers after this long). */
  sqsRequestMs: 10,
  /** A receiver's own time before its 2xx (the bench's receivers take this long). */
  receiverAnswerMs: 100,
  /** A round trip from the Lambda to a receiver (a request and its answer; TCP and TLS 1.3 setup: 2 more). */
  receiverRttMs: 30,
  dynamoRequestMs: LATENCY_ASSUMPTIONS_MS.dynamoRequest,
  secretsRequestMs: LATENCY_ASSUMPTIONS_MS.secretsRequest,
  putEventsRequestMs: LATENCY_ASSUMPTIONS_MS.putEventsRequest,
  /** The webhook table's bytes per endpoint (its record and its health item), for storage and PITR. */
  tableBytesPerEndpoint: 1024,
  /** IPv4 + TCP (timestamps) headers of a segment, its payload at most MSS bytes. */
  tcpIpHeaderBytes: 52,
  mssBytes: 1448,
  /** Packets a connection sends besides its data: SYN, ACK, FIN, ACK. */
  connectionPackets: 4,
} as const;

const A = WEBHOOK_ASSUMPTIONS;
/** A KMS request (each GetSecretValue decrypts with the secret's key: aws/secretsmanager). */
const KMS_REQUEST = { usd: 0.03 / 1e4, source: 'https://aws.amazon.com/kms/pricing/' } as const;
const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/**
 * The modelled duration of an average invocation of each function, and what it is made of, ms:
 * its CPU at the function's share of a vCPU, plus its calls and attempts, or its measured wall time
 * when longer (an invocation that lasts as long as its timers say, as a fan-out draining the ingest
 * queue does: Lambda bills the wall time; measured on a shared machine, an upper bound).
 */
export interface DurationModel {
  readonly cpuMs: number;
  readonly cpuShare: number;
  readonly callsMs: number;
  readonly attemptsMs: number;
  readonly modelledMs: number;
  /** The measured local wall time per invocation (a shared machine: an upper bound). */
  readonly measuredMs: number;
  /** CPU of one batch of events (the event source's, or one the fan-out received itself), ms. */
  readonly cpuPerBatchMs: number;
  /** The share of its wall time the function's CPU takes at its memory (over 1: it cannot keep up). */
  readonly cpuLoad: number;
}

type Sqs = WindowCounts['aws']['sqs'];
/** SQS requests a client made, by operation (summed over queues). */
function sqsOf(sqs: Sqs, client: string, ops?: readonly string[]) {
  let requests = 0;
  let billed = 0;
  for (const [key, byOp] of Object.entries(sqs)) {
    if (!key.startsWith(`${client} `)) continue;
    for (const [op, c] of Object.entries(byOp)) {
      if (ops && !ops.includes(op)) continue;
      requests += c.requests;
      billed += c.billed;
    }
  }
  return { requests, billed };
}

const dynamoRequests = (r: WindowCounts, client: 'fanOut' | 'deliver') =>
  sum(Object.values(r.aws.dynamo[client]).map((c) => c.requests));

/** Containers of both functions (peak concurrency): each reads each key secret every 30 minutes. */
const containers = (r: WindowCounts) => r.fanOut.peakConcurrency + r.deliver.peakConcurrency;
const secretReadsPerMonth = (r: WindowCounts) => containers(r) * DEFAULT_SECRET_SHARDS * 2 * 720;

/** Failed attempts of a function (its share of the operational events it publishes). */
const failedAttempts = (f: FunctionFigures) =>
  Object.entries(f.failures).reduce((n, [kind, count]) => n + (kind === 'handoff' ? 0 : count), 0);

/** An average invocation of `fn`, modelled (see the module comment). */
export function durationModel(
  r: WindowCounts,
  d: WebhookDeploymentSettings,
  fn: 'fanOut' | 'deliver',
): DurationModel {
  const f: FunctionFigures = r[fn];
  const n = Math.max(1, f.invocations);
  const cpuShare = Math.max(1, LAMBDA_FULL_VCPU_MB / d[fn].memoryMb);
  const cpuMs = f.cpuMs / n;
  // The function's own SQS calls (its event source's are `<fn>-source`, not waited for by it).
  const ownSqs = sqsOf(r.aws.sqs, fn).requests;
  // Batches of events: the event source's, and the fan-out's own receives that brought some.
  const batches = n + (fn === 'fanOut' ? sqsOf(r.aws.sqs, fn, ['ReceiveMessage']).requests : 0);
  const secrets = r.aws.secretReads[fn];
  const failedBoth = failedAttempts(r.fanOut) + failedAttempts(r.deliver);
  const events = failedBoth > 0 ? (r.aws.putEventsRequests * failedAttempts(f)) / failedBoth : 0;
  const callsMs =
    (dynamoRequests(r, fn) * A.dynamoRequestMs +
      ownSqs * A.sqsRequestMs +
      secrets * A.secretsRequestMs +
      events * A.putEventsRequestMs) /
    n;
  const attempts = r.fanOut.attempts.ms.length + r.deliver.attempts.ms.length;
  const newConnections = attempts > 0 ? Math.min(1, r.receivers.connections / attempts) : 0;
  const attemptMs = A.receiverAnswerMs + A.receiverRttMs * (1 + 2 * newConnections);
  const attemptsMs = (f.attempts.longestChains * attemptMs + f.attempts.heldMs) / n;
  const measuredMs = f.billedMs / n;
  return {
    cpuMs,
    cpuShare,
    callsMs,
    attemptsMs,
    modelledMs: Math.max(measuredMs, cpuMs * cpuShare + callsMs + attemptsMs),
    measuredMs,
    cpuPerBatchMs: f.cpuMs / batches,
    cpuLoad: f.billedMs > 0 ? (f.cpuMs * cpuShare) / f.billedMs : 0,
  };
}

export interface WebhookCost {
  /** Deliveries the lines are for (the run's first 2xx). */
  readonly deliveries: number;
  /** Per million deliveries, everything billed at the run's load (the fixed costs spread at its rate). */
  readonly perMillion: { readonly lines: CostLine[]; readonly total: number };
  /** Billed whatever the deliveries, per month (spread over the fleet's clubs in the club figure). */
  readonly fixedMonthly: { readonly lines: CostLine[]; readonly total: number };
  readonly duration: { readonly fanOut: DurationModel; readonly deliver: DurationModel };
}

const line = (key: string, item: string, formula: string, usd: number, fixed = false): CostLine => ({
  key,
  item,
  formula,
  usd,
  fixed,
});

/** The webhook machinery's own monthly costs, whatever the traffic (`endpoints`: the table's). */
export function fixedMonthlyLines(d: WebhookDeploymentSettings, endpoints: number): CostLine[] {
  const metrics = Object.keys(METRIC).filter((k) => k.startsWith('webhook')).length;
  const tableGb = (endpoints * A.tableBytesPerEndpoint) / GB;
  return [
    line(
      'webhookIdleReceives',
      'SQS: idle receives of the two event sources',
      `2 × ${fmt(IDLE_RECEIVES)} long polls × $0.40/M`,
      2 * IDLE_RECEIVES * PRICES.sqsRequest.usd,
      true,
    ),
    line(
      'webhookAlarms',
      'CloudWatch: the webhook alarms',
      `${d.alarms} × $0.10`,
      d.alarms * PRICES.cloudWatchAlarmMonth.usd,
      true,
    ),
    line(
      'webhookMetrics',
      'CloudWatch: webhook metric names (dimension service only)',
      `${metrics} × $0.30`,
      metrics * PRICES.cloudWatchMetricMonth.usd,
      true,
    ),
    line(
      'webhookKeySecrets',
      'Secrets Manager: the shared key secrets',
      `${DEFAULT_SECRET_SHARDS} × $0.40`,
      DEFAULT_SECRET_SHARDS * PRICES.secretMonth.usd,
      true,
    ),
    line(
      'webhookTable',
      'DynamoDB: the webhook table stored, with point-in-time recovery',
      `${endpoints} endpoints × ${A.tableBytesPerEndpoint} B × ($0.25 + $0.20)/GB-month`,
      tableGb * (PRICES.dynamoStorageGbMonth.usd + PRICES.dynamoPitrGbMonth.usd),
      true,
    ),
  ];
}

/** The Lambda lines: requests, and GB-seconds at the modelled duration. */
function lambdaLines(r: WindowCounts, d: WebhookDeploymentSettings, per: number, m: WebhookCost['duration']) {
  return (['fanOut', 'deliver'] as const).map((fn) => {
    const gbS = ((r[fn].invocations * m[fn].modelledMs) / 1000) * (d[fn].memoryMb / 1024);
    return line(
      fn === 'fanOut' ? 'lambdaFanOut' : 'lambdaDeliver',
      `Lambda ${fn === 'fanOut' ? 'fan-out' : 'delivery'}: requests and compute`,
      `${fmt(r[fn].invocations * per)} invocations × (${fmt(m[fn].modelledMs)} ms × ${d[fn].memoryMb / 1024} GB + a request)`,
      (gbS * PRICES.lambdaArmGbSecond.usd + r[fn].invocations * PRICES.lambdaRequest.usd) * per,
    );
  });
}

/** SQS, EventBridge, DynamoDB and Secrets Manager: what the deliveries ask of them. */
function serviceLines(r: WindowCounts, per: number, monthlyAtRate: number, endpoints: number): CostLine[] {
  const clients = ['fanOut', 'fanOut-source', 'deliver', 'deliver-source', 'eventBridge'];
  const sqs = sum(clients.map((c) => sqsOf(r.aws.sqs, c).billed));
  const measured = (k: 'readUnits' | 'writeUnits') =>
    sum((['fanOut', 'deliver'] as const).flatMap((c) => Object.values(r.aws.dynamo[c]).map((x) => x[k])));
  // Each endpoint's last success is written again every 5 minutes it is delivered to: longer than
  // a window after a warm-up, so modelled (a write unit each) when the window saw fewer.
  const refreshes = (endpoints * r.seconds) / 300;
  const units = (k: 'readUnits' | 'writeUnits') =>
    k === 'writeUnits' ? Math.max(measured(k), refreshes) : measured(k);
  const secrets = Math.max(
    sum(Object.values(r.aws.secretReads)) * per,
    (secretReadsPerMonth(r) * 1e6) / monthlyAtRate,
  );
  const events = r.aws.putEventsRequests * per;
  return [
    line(
      'sqs',
      'SQS: both queues, every caller (fair queues: standard requests)',
      `${fmt(sqs * per)} requests × $0.40/M`,
      sqs * per * PRICES.sqsRequest.usd,
    ),
    line(
      'eventBridgeRule',
      'EventBridge: the webhook rule and its delivery to the ingest queue',
      'no charge (same-account target; the events are billed when published, in the bridge cost)',
      0,
    ),
    line(
      'dynamo',
      `DynamoDB (on demand): registry checks, health reads, writes (at least ${endpoints} endpoints' last success every 5 min)`,
      `${fmt(units('readUnits') * per)} RRU × $0.125/M + ${fmt(units('writeUnits') * per)} WRU × $0.625/M`,
      (units('readUnits') * PRICES.dynamoReadUnit.usd + units('writeUnits') * PRICES.dynamoWriteUnit.usd) *
        per,
    ),
    line(
      'secrets',
      'Secrets Manager: key reads (cached 30 min per container), each a KMS decrypt',
      `${containers(r)} containers × ${DEFAULT_SECRET_SHARDS} secrets × 2 an hour, at this rate: ${fmt(secrets)} calls × ($0.05 + $0.03)/10k`,
      secrets * (PRICES.secretsApiCall.usd + KMS_REQUEST.usd),
    ),
    line(
      'operationalEvents',
      'EventBridge: operational events published (Webhook Delivery Failed, Endpoint Disabled)',
      `${fmt(events)} events × $1/M`,
      events * PRICES.eventBridgeEvent.usd,
    ),
  ];
}

/** CloudWatch Logs and the bytes out to the endpoints. */
function bytesLines(r: WindowCounts, d: WebhookDeploymentSettings, per: number): CostLine[] {
  const invocations = r.fanOut.invocations + r.deliver.invocations;
  const logBytes =
    r.fanOut.output.logBytes +
    r.fanOut.output.emfBytes +
    r.deliver.output.logBytes +
    r.deliver.output.emfBytes +
    invocations * PLATFORM_LOG_BYTES;
  const retentionMonths = d.logRetentionDays / 30;
  const wire =
    r.receivers.bytesIn +
    Math.ceil(r.receivers.bytesIn / A.mssBytes) * A.tcpIpHeaderBytes +
    r.receivers.connections * A.connectionPackets * (A.tcpIpHeaderBytes + 8);
  return [
    line(
      'logs',
      'CloudWatch Logs: log lines, EMF, platform lines',
      `${fmt((logBytes * per) / 1e6)} MB × ($0.50/GB + ${fmt(retentionMonths)} months × $0.03)`,
      ((logBytes * per) / GB) *
        (PRICES.cloudWatchLogsGb.usd + retentionMonths * PRICES.cloudWatchLogsStorageGbMonth.usd),
    ),
    line(
      'dataTransferOut',
      'Data transfer out to the endpoints',
      `${fmt((wire * per) / 1e6)} MB (TLS records as sent, TCP/IP headers) × $0.09/GB`,
      ((wire * per) / GB) * PRICES.dataTransferOutGb.usd,
    ),
  ];
}

/** `endpoints`: those the window delivered to (their last success refreshed every 5 minutes). */
export function webhookCost(r: WindowCounts, d: WebhookDeploymentSettings, endpoints: number): WebhookCost {
  const duration = { fanOut: durationModel(r, d, 'fanOut'), deliver: durationModel(r, d, 'deliver') };
  const per = 1e6 / Math.max(1, r.delivered);
  const monthlyAtRate = (r.delivered / Math.max(1e-9, r.seconds)) * 30 * 86_400;
  const fixed = fixedMonthlyLines(d, endpoints);
  const fixedTotal = sum(fixed.map((l) => l.usd));
  const lines = [
    ...lambdaLines(r, d, per, duration),
    ...serviceLines(r, per, monthlyAtRate, endpoints),
    ...bytesLines(r, d, per),
    line(
      'fixedShare',
      'Fixed monthly costs, spread at this rate',
      `$${fmt(fixedTotal)} a month / ${fmt(monthlyAtRate / 1e6)} M deliveries a month`,
      (fixedTotal * 1e6) / monthlyAtRate,
      true,
    ),
  ];
  return {
    deliveries: r.delivered,
    perMillion: { lines, total: sum(lines.map((l) => l.usd)) },
    fixedMonthly: { lines: fixed, total: fixedTotal },
    duration,
  };
}

/** What one endpoint subscribed to everything adds to a club's month, in a fleet of `clubs`. */
export function addedPerClubMonth(cost: WebhookCost, deliveriesPerMonth: number, clubs: number) {
  const variablePerMillion = sum(cost.perMillion.lines.filter((l) => !l.fixed).map((l) => l.usd));
  const variableUsd = (deliveriesPerMonth / 1e6) * variablePerMillion;
  const fixedShareUsd = cost.fixedMonthly.total / clubs;
  return { deliveriesPerMonth, clubs, variableUsd, fixedShareUsd, totalUsd: variableUsd + fixedShareUsd };
}
