/**
 * The lines that grow with each club: the poll Lambda (its duration model: the measured local time
 * at the function's CPU share, plus the stated latency of each network call), DynamoDB (in the
 * table's capacity mode: cost-dynamo-lines.ts), EventBridge, SQS, the shared secrets, the logs and
 * the bytes sent out.
 */

import { pollConcurrencyFor } from '../lib/stage-config';
import { dataTransferOut } from './bytes-out';
import { dynamoLines } from './cost-dynamo-lines';
import {
  CLUBS_PER_SECRET,
  type CostLine,
  fmt,
  GB,
  LAMBDA_FULL_VCPU_MB,
  type LanePolls,
  clubLine as line,
  MONTH_MINUTES,
  type MonthlyClubCounts,
  PLATFORM_LOG_BYTES,
} from './cost-model';
import type { DeploymentSettings } from './deployment';
import type { Latencies } from './lambda-batches';
import { type BatchDurations, batchDurations } from './lambda-batches';
import { FREE_TIERS, PRICES } from './prices';

/** The poll Lambda over a club's month: what it runs, and for how long per club poll. */
export interface PollModel {
  readonly gbPrice: number;
  readonly pollGb: number;
  /** Clubs an invocation. */
  readonly batch: number;
  readonly invocations: number;
  readonly cpuStretch: number;
  /** Lambda arm64 ms (one vCPU) per CPU ms measured on the bench machine (cpu-calibration.ts). */
  readonly lambdaMsPerBenchMs: number;
  /** Network time the club's polls wait, ms (divided by the batch in `pollMs`). */
  readonly waitMs: number;
  /** Billed time per club over the month, ms. */
  readonly pollMs: number;
  readonly pollGbSeconds: number;
  /** The invocation as simulated from measured polls (lambda-batches.ts); absent without them. */
  readonly batches?: BatchDurations & { readonly samples: number };
}

export function pollModel(
  c: MonthlyClubCounts,
  d: DeploymentSettings,
  L: Latencies,
  lambdaMsPerBenchMs = 1,
): PollModel {
  const gbPrice =
    d.poll.architecture === 'arm64' ? PRICES.lambdaArmGbSecond.usd : PRICES.lambdaX86GbSecond.usd;
  const pollGb = d.poll.memoryMb / 1024;
  const batch = Math.max(1, d.pollBatchSize);
  const invocations = c.pollInvocations / batch;
  // A batch's clubs are polled side by side: their CPU shares the function's fraction of a vCPU (one
  // at 1,769 MB), their waits on the API overlap. Per club: its CPU, and its wait / batch size.
  const cpuStretch = Math.max(1, LAMBDA_FULL_VCPU_MB / d.poll.memoryMb);
  // The bench machine's CPU ms as Lambda arm64's at one vCPU (cpu-calibration.ts), then stretched.
  const cpuMs = c.pollLocalMs * lambdaMsPerBenchMs * cpuStretch;
  const waitMs =
    c.criticalApiRequests * L.gymApiRequest +
    c.pollStoreRequests * L.dynamoRequest +
    c.putEventsRequests * L.putEventsRequest;
  const work = c.pollWork ?? [];
  if (work.length === 0) {
    const pollMs = cpuMs + waitMs / batch;
    const pollGbSeconds = (pollMs / 1000) * pollGb;
    const base = { gbPrice, pollGb, batch, invocations, cpuStretch, lambdaMsPerBenchMs };
    return { ...base, waitMs, pollMs, pollGbSeconds };
  }
  // An invocation lasts as long as its slowest club, the batch's CPU shared (lambda-batches.ts).
  const stretch = lambdaMsPerBenchMs * cpuStretch;
  const batches = { ...batchDurations(work, batch, stretch, L), samples: work.length };
  const pollMs = invocations * batches.meanMs;
  const pollGbSeconds = (pollMs / 1000) * pollGb;
  const base = { gbPrice, pollGb, batch, invocations, cpuStretch, lambdaMsPerBenchMs };
  return { ...base, waitMs, pollMs, pollGbSeconds, batches };
}

/** Every line that grows with each club, in the report's order. */
export function clubLines(
  c: MonthlyClubCounts,
  d: DeploymentSettings,
  L: Latencies,
  model: PollModel,
  fleetClubs: number,
  /** The fast lane's invocations (probes only), when the club has a lane. */
  laneModel?: PollModel,
): CostLine[] {
  return [
    ...lambdaLines(c, L, model),
    ...(laneModel && c.lane ? laneLambdaLines(c.lane, L, laneModel) : []),
    ...dynamoLines(c, d, fleetClubs),
    ...deliveryLines(c, d, model, fleetClubs),
    ...logAndTransferLines(c, d, model, fleetClubs, laneModel),
  ];
}

/** The fast lane's invocations: a message's probes side by side, as the minute's polls are. */
function laneLambdaLines(lane: LanePolls, L: Latencies, m: PollModel): CostLine[] {
  const formula = m.batches
    ? `${fmt(m.invocations)} invocations × ${fmt(m.batches.meanMs)} ms (p95 ${fmt(m.batches.p95Ms)} ms): ${m.batch} probes side by side (a probe that found a visit with its session), simulated as the minute's polls from ${m.batches.samples} measured ones (API requests × ${L.gymApiRequest} ms) × ${m.pollGb} GB × $${m.gbPrice}`
    : `${fmt(lane.pollInvocations)} probes, ${m.batch} an invocation × ${m.pollGb} GB × $${m.gbPrice}`;
  return [
    line('lambdaFastLaneCompute', 'Lambda poll: fast lane compute', formula, m.pollGbSeconds * m.gbPrice),
    line(
      'lambdaFastLaneRequests',
      'Lambda poll: fast lane requests',
      `${fmt(lane.pollInvocations)} probes / ${m.batch} a batch × $0.20/M`,
      m.invocations * PRICES.lambdaRequest.usd,
    ),
  ];
}

function lambdaLines(c: MonthlyClubCounts, L: Latencies, m: PollModel): CostLine[] {
  const formula = m.batches
    ? `${fmt(m.invocations)} invocations × ${fmt(m.batches.meanMs)} ms (p95 ${fmt(m.batches.p95Ms)} ms): ${m.batch} clubs side by side, as long as the slowest, their CPU (measured × ${fmt(m.lambdaMsPerBenchMs)} Lambda arm64 ms a measured ms × ${fmt(m.cpuStretch)} CPU share) shared and their waits (API requests on the critical path × ${L.gymApiRequest} ms, DynamoDB, PutEvents) overlapped, simulated from ${m.batches.samples} measured polls (a club alone: ${fmt(m.batches.meanClubAloneMs)} ms) × ${m.pollGb} GB × $${m.gbPrice}`
    : `(${fmt(c.pollLocalMs / 1000)} s measured × ${fmt(m.lambdaMsPerBenchMs)} Lambda arm64 ms a measured ms × ${fmt(m.cpuStretch)} CPU share + ${fmt(m.waitMs / 1000)} s waiting / ${m.batch} clubs an invocation: ${fmt(c.criticalApiRequests)} API requests on the critical path × ${L.gymApiRequest} ms, DynamoDB, PutEvents) × ${m.pollGb} GB × $${m.gbPrice}`;
  return [
    line('lambdaPollCompute', 'Lambda poll: compute', formula, m.pollGbSeconds * m.gbPrice),
    line(
      'lambdaPollRequests',
      'Lambda poll: requests',
      `${fmt(c.pollInvocations)} club polls / ${m.batch} a batch × $0.20/M`,
      m.invocations * PRICES.lambdaRequest.usd,
    ),
  ];
}

/**
 * SQS requests: the club's poll messages, `pollClubsPerMessage` clubs in each SQS message, sent 10
 * a SendMessageBatch. Received and deleted 10 a request when the event source takes batches of
 * messages; one message an invocation (the event source's batch 1) is counted as one receive and
 * one delete a message (the upper side: Lambda's pollers may receive more than one at a time).
 */
export function sqsLine(c: MonthlyClubCounts, d: DeploymentSettings): CostLine {
  const perMessage = Math.max(1, d.pollClubsPerMessage ?? 1);
  const sqsMessages = c.sqsMessages / perMessage;
  const eventBatch = Math.max(1, Math.min(10, d.pollBatchSize / perMessage));
  const requests = sqsMessages / 10 + (2 * sqsMessages) / eventBatch;
  const carried =
    perMessage > 1
      ? `${fmt(c.sqsMessages)} club polls, ${perMessage} a message: ${fmt(sqsMessages)} messages`
      : `${fmt(sqsMessages)} messages`;
  const receive =
    eventBatch > 1 ? `receive + delete, ${fmt(eventBatch)} a request` : 'a receive + a delete each';
  return line(
    'sqs',
    'SQS: requests',
    `${carried} × (send, 10 a request; ${receive})`,
    requests * PRICES.sqsRequest.usd,
  );
}

/** EventBridge (events and archive), SQS, and the club's share of the shared secrets. */
function deliveryLines(
  c: MonthlyClubCounts,
  d: DeploymentSettings,
  m: PollModel,
  fleetClubs: number,
): CostLine[] {
  const containers = pollConcurrencyFor(fleetClubs, m.batch);
  const secrets = Math.ceil(fleetClubs / CLUBS_PER_SECRET);
  const ttlsPerMonth = MONTH_MINUTES / 30;
  const secretCalls = containers * secrets * ttlsPerMonth;
  const eventBytes = c.eventBytes;
  const archiveMonths =
    d.fixed.archiveRetentionDays === 0 ? 12 : Math.min(12, d.fixed.archiveRetentionDays / 30);
  return [
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
    sqsLine(c, d),
    line(
      'secrets',
      'Secrets Manager: shared secrets and calls',
      `${secrets} secret(s) × $0.40 + ${fmt(secretCalls)} GetSecretValue (${containers} containers × ${secrets} × every 30 min) × $0.05/10k, / ${fmt(fleetClubs)} clubs`,
      (secrets * PRICES.secretMonth.usd + secretCalls * PRICES.secretsApiCall.usd) / fleetClubs,
    ),
  ];
}

/** CloudWatch Logs (poll lines, EMF, the platform's lines) and the bytes the API requests send out. */
function logAndTransferLines(
  c: MonthlyClubCounts,
  d: DeploymentSettings,
  m: PollModel,
  fleetClubs: number,
  laneModel?: PollModel,
): CostLine[] {
  const invocations = m.invocations + (laneModel?.invocations ?? 0);
  const logBytes = c.logBytes + c.emfBytes + invocations * PLATFORM_LOG_BYTES;
  const logMonths = d.fixed.logRetentionDays / 30;
  const out = dataTransferOut(c);
  const outGb = out.bytes / GB;
  const fleetOutGb = outGb * fleetClubs;
  return [
    line(
      'logsIngestion',
      'CloudWatch Logs: ingestion',
      `(${fmt(c.logBytes / 1e6)} MB poll lines (a 'club polled' line a poll + its 1/${d.pollBatchSize} of its invocation's context line) + ${fmt(c.emfBytes / 1e6)} MB EMF (one document an invocation of ${d.pollBatchSize} polls, each poll its 1/${d.pollBatchSize}) + ${fmt(invocations)} invocations × ${PLATFORM_LOG_BYTES} B START/END/REPORT) × $0.50/GB`,
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
      `${out.detail}; the fleet's first 100 GB free`,
      (Math.max(0, fleetOutGb - FREE_TIERS.dataTransferOutGb) * PRICES.dataTransferOutGb.usd) / fleetClubs,
    ),
  ];
}
