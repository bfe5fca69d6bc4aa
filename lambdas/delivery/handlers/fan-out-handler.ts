/**
 * The webhook fan-out Lambda's handler (SQS event source on the ingest queue, which the one
 * webhook rule of the bus feeds; partial batch responses): each record is an EventBridge event;
 * its deliveries are attempted here first when their endpoint is healthy and under its rate, the
 * others queued (../fan-out.ts, ../first-attempt.ts); a record whose deliveries could not all be
 * attempted or queued is reported back and comes again (its deliveries already made then come
 * twice, with the same webhook-id: delivery is at least once).
 *
 * What one invocation writes, as the delivery Lambda's: ONE EMF document (the deliveries made, and
 * the first attempts' delivered, failed, latency...; one more per endpoint with metrics on) and
 * ONE `webhook batch` line with the Lambda context, each endpoint's figures and each delivery
 * (attempted here, or `queued`), which the saved Logs Insights queries and `explain` read.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRIC, WEBHOOK_BATCH_LOG_MESSAGE } from '../../common/deployment-contract';
import { InvocationLog, logger } from '../../common/logger';
import { INLINE_BUDGET_MS } from '../delivery-decision';
import { DeliveryReport } from '../delivery-report';
import { type FanOutResult, fanOut } from '../fan-out';
import { sendWebhook } from '../http-delivery';
import type { FanOutRuntime } from './runtime';

export interface FanOutHandlerOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default Math.random */
  readonly random?: () => number;
  /** Override of the attempt (tests: a loopback policy, a CA). @default sendWebhook, public policy */
  readonly send?: NonNullable<Parameters<typeof fanOut>[0]['firstAttempt']>['send'];
  /** How long a first attempt waits for an answer. @default INLINE_BUDGET_MS */
  readonly budgetMs?: number;
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
    let result: FanOutResult | undefined;
    try {
      result = await fanOut(
        {
          registry: rt.registry,
          queue: rt.queue,
          pacer: rt.pacer,
          now,
          firstAttempt: {
            registry: rt.registry,
            health: rt.health,
            store: rt.store,
            keys: rt.keys,
            queue: rt.queue,
            sink: rt.sink,
            send,
            report,
            now,
            random: options.random ?? Math.random,
            budgetMs: options.budgetMs ?? INLINE_BUDGET_MS,
          },
        },
        event.Records.map((r) => ({ recordId: r.messageId, body: r.body })),
      );
      return { batchItemFailures: result.failedRecordIds.map((itemIdentifier) => ({ itemIdentifier })) };
    } finally {
      // One document and one line an invocation (nothing to write when no delivery was made).
      if (result && result.deliveries > 0)
        rt.metrics.addMetric(METRIC.webhookDeliveriesQueued, MetricUnit.Count, result.deliveries);
      const fields = report.flush(rt.metrics, rt.endpointMetrics);
      invocationLog.end(WEBHOOK_BATCH_LOG_MESSAGE, {
        records: event.Records.length,
        ...(result
          ? {
              events: result.events,
              attempted: result.attempted,
              queued: result.queued,
              failedRecords: result.failedRecordIds.length,
            }
          : {}),
        ...fields,
      });
    }
  };
}
