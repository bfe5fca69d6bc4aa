/**
 * The webhook fan-out Lambda's handler (SQS event source on the ingest queue, which the one
 * webhook rule of the bus feeds; partial batch responses): each record is an EventBridge event;
 * its deliveries are attempted here first when their endpoint is healthy and under its rate, the
 * others queued (../fan-out.ts, ../first-attempt.ts). When that batch was a busy one (events come
 * fast), the invocation then receives and fans out the ingest queue's events itself while they keep
 * coming (../ingest-drain.ts), so that one invocation carries hundreds of events. A record whose deliveries could not all be attempted or queued comes
 * again (reported back, or not deleted; its deliveries already made then come twice, with the same
 * webhook-id: delivery is at least once).
 *
 * What it writes, as the delivery Lambda does: per FLUSH_DELIVERIES deliveries, and at the end,
 * ONE EMF document (the deliveries made, and the first attempts' delivered, failed, latency...; one
 * more per endpoint with metrics on) and ONE `webhook batch` line with each endpoint's figures and
 * each delivery (attempted here, or `queued`), the last one with the Lambda context.
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRIC, WEBHOOK_BATCH_LOG_MESSAGE } from '../../common/deployment-contract';
import { InvocationLog, logger } from '../../common/logger';
import { attemptDeps } from '../attempt-outcome';
import { INLINE_BUDGET_MS } from '../delivery-decision';
import { DeliveryReport } from '../delivery-report';
import { type FanOutDeps, type FanOutResult, fanOut, type IncomingEvent } from '../fan-out';
import { sendWebhook } from '../http-delivery';
import {
  DRAIN_BUDGET_MS,
  DRAIN_MIN_BATCH,
  DRAIN_MIN_RECEIVE,
  type DrainResult,
  drainIngest,
  RECEIVE_PACE_MS,
} from '../ingest-drain';
import type { FanOutRuntime } from './runtime';

/** A `webhook batch` line and a metrics document at least every this many deliveries. */
export const FLUSH_DELIVERIES = 200;
/** Time kept after the drain for the last first attempts (their budget) and their settling. */
const WIND_DOWN_MS = 8_000;

export interface FanOutHandlerOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default Math.random */
  readonly random?: () => number;
  /** Override of the attempt (tests: a loopback policy, a CA). @default sendWebhook, public policy */
  readonly send?: NonNullable<FanOutDeps['firstAttempt']>['send'];
  /** How long a first attempt waits for an answer. @default INLINE_BUDGET_MS */
  readonly budgetMs?: number;
  /** How long an invocation drains the ingest queue (0: its event source's batch only). @default DRAIN_BUDGET_MS */
  readonly drainMs?: number;
  /** @default RECEIVE_PACE_MS */
  readonly paceMs?: number;
}

/** What one invocation made, summed over its event source's batch and its own receives. */
class InvocationTotals {
  events = 0;
  deliveries = 0;
  attempted = 0;
  queued = 0;
  /** Deliveries made since the last metrics document. */
  #unflushed = 0;

  add(result: FanOutResult): void {
    this.events += result.events;
    this.deliveries += result.deliveries;
    this.#unflushed += result.deliveries;
    this.attempted += result.attempted;
    this.queued += result.queued;
  }

  /** Writes the metrics since the last document (nothing when none), returns the line's fields. */
  flush(rt: FanOutRuntime, report: DeliveryReport): Record<string, unknown> | undefined {
    if (this.#unflushed > 0)
      rt.metrics.addMetric(METRIC.webhookDeliveriesQueued, MetricUnit.Count, this.#unflushed);
    this.#unflushed = 0;
    return report.flush(rt.metrics, rt.endpointMetrics);
  }
}

/** The fan-out's use case over the runtime, its first attempts reporting to `report`. */
function depsOf(
  rt: FanOutRuntime,
  options: FanOutHandlerOptions,
  send: NonNullable<FanOutHandlerOptions['send']>,
  report: DeliveryReport,
): FanOutDeps {
  const now = options.now ?? Date.now;
  return {
    registry: rt.registry,
    queue: rt.queue,
    pacer: rt.pacer,
    now,
    firstAttempt: {
      ...attemptDeps(rt, { send, report, now, random: options.random ?? Math.random }),
      budgetMs: options.budgetMs ?? INLINE_BUDGET_MS,
    },
  };
}

export function createFanOutHandler(rt: FanOutRuntime, options: FanOutHandlerOptions = {}) {
  const now = options.now ?? Date.now;
  const invocationLog = new InvocationLog(logger);
  const send =
    options.send ?? ((request) => sendWebhook(request, { policy: 'public', timeoutMs: rt.timeoutMs }));
  return async (
    event: SQSEvent,
    context: Pick<Context, 'awsRequestId'> & Partial<Context>,
  ): Promise<SQSBatchResponse> => {
    invocationLog.start(context as Context);
    const report = new DeliveryReport();
    const deps = depsOf(rt, options, send, report);
    const totals = new InvocationTotals();
    const fanOutCounted = async (events: readonly IncomingEvent[]): Promise<FanOutResult> => {
      const result = await fanOut(deps, events);
      totals.add(result);
      if (report.size >= FLUSH_DELIVERIES) {
        const fields = totals.flush(rt, report);
        if (fields) logger.info(WEBHOOK_BATCH_LOG_MESSAGE, fields);
      }
      return result;
    };
    let first: FanOutResult | undefined;
    let drained: DrainResult | undefined;
    try {
      const started = now();
      const remaining = context.getRemainingTimeInMillis?.() ?? 30_000;
      const untilMs = Math.min(
        started + (options.drainMs ?? DRAIN_BUDGET_MS),
        started + remaining - WIND_DOWN_MS,
      );
      [first, drained] = await Promise.all([
        fanOutCounted(event.Records.map((r) => ({ recordId: r.messageId, body: r.body }))),
        rt.ingest && untilMs > started && event.Records.length >= DRAIN_MIN_BATCH
          ? drainIngest(rt.ingest, fanOutCounted, {
              untilMs,
              paceMs: options.paceMs ?? RECEIVE_PACE_MS,
              minMessages: DRAIN_MIN_RECEIVE,
              now,
              sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
            })
          : undefined,
      ]);
      return { batchItemFailures: first.failedRecordIds.map((itemIdentifier) => ({ itemIdentifier })) };
    } finally {
      const fields = totals.flush(rt, report);
      invocationLog.end(WEBHOOK_BATCH_LOG_MESSAGE, {
        records: event.Records.length,
        ...(drained
          ? { received: drained.messages, receives: drained.receives, comeBack: drained.comeBack }
          : {}),
        events: totals.events,
        attempted: totals.attempted,
        queued: totals.queued,
        ...(first ? { failedRecords: first.failedRecordIds.length } : {}),
        ...fields,
      });
    }
  };
}
