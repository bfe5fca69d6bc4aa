/**
 * The webhook delivery Lambda's handler (SQS event source on the delivery queue, a fair queue
 * grouped by endpoint; partial batch responses): the batch's deliveries are attempted
 * (../deliver-batch.ts); a message that waits (hidden until due) or met an error is reported back,
 * every other one is deleted. One EMF document (and one per endpoint with metrics on) and one
 * `webhook batch` line per invocation.
 */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { WEBHOOK_BATCH_LOG_MESSAGE } from '../../common/deployment-contract';
import { InvocationLog, logger } from '../../common/logger';
import { attemptDeps } from '../attempt-outcome';
import { deliverBatch } from '../deliver-batch';
import { DeliveryReport } from '../delivery-report';
import { sendWebhook } from '../http-delivery';
import type { DeliverRuntime } from './runtime';

/** Time kept between the last attempt's end and the end of the invocation. */
export const DELIVER_SAFETY_MS = 3_000;

export interface DeliverHandlerOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default Math.random */
  readonly random?: () => number;
  /** Override of the attempt (tests: a loopback policy, a CA). @default sendWebhook, public policy */
  readonly send?: Parameters<typeof deliverBatch>[0]['send'];
}

export function createDeliverHandler(rt: DeliverRuntime, options: DeliverHandlerOptions = {}) {
  const now = options.now ?? Date.now;
  const invocationLog = new InvocationLog(logger);
  const send =
    options.send ?? ((request) => sendWebhook(request, { policy: 'public', timeoutMs: rt.timeoutMs }));
  return async (
    event: SQSEvent,
    context: Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId'> & Partial<Context>,
  ): Promise<SQSBatchResponse> => {
    invocationLog.start(context as Context);
    const report = new DeliveryReport();
    const deadlineMs = now() + Math.max(0, context.getRemainingTimeInMillis() - DELIVER_SAFETY_MS);
    try {
      const settled = await deliverBatch(
        {
          ...attemptDeps(rt, { send, report, now, random: options.random ?? Math.random }),
          attemptBudgetMs: rt.timeoutMs + 1_000,
        },
        event.Records.map((r) => ({ messageId: r.messageId, receiptHandle: r.receiptHandle, body: r.body })),
        deadlineMs,
      );
      const back = event.Records.filter((r) => settled.get(r.messageId) !== 'done');
      return { batchItemFailures: back.map((r) => ({ itemIdentifier: r.messageId })) };
    } finally {
      // One line an invocation: the batch's figures on the invocation's line (the Lambda context).
      const fields = report.flush(rt.metrics, rt.endpointMetrics);
      invocationLog.end(WEBHOOK_BATCH_LOG_MESSAGE, { records: event.Records.length, ...fields });
    }
  };
}
