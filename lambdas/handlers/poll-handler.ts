/**
 * The poll handler of a runtime (SQS event source, partial batch responses; a message holds a club
 * or a group of them). Powertools' BatchProcessor answers which records SQS delivers again; the
 * record handler (poll-record.ts) is the only domain code: a record with a club whose poll a retry
 * can fix throws PollRetryError, any other outcome (polled, skipped, dropped) settles it. Metrics
 * and the Lambda context are written once per invocation (common/metrics.ts PollBatchMetrics,
 * common/logger.ts InvocationLog). poll.ts builds it with the environment's runtime.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { InvocationLog, logger } from '../common/logger';
import { PollBatchMetrics } from '../common/metrics';
import { batchFields, POLL_BATCH_MESSAGE } from '../engine/poll-message/report-log';
import { pollRecord, type RecordOutcome } from './poll-record';
import type { PollRuntime } from './poll-runtime';

/** Time kept between the poll deadline and the end of the invocation. */
export const INVOCATION_SAFETY_MS = 5_000;

/** A record whose poll failed in a way a later attempt can fix: SQS delivers it again. */
export class PollRetryError extends Error {
  override readonly name = 'PollRetryError';
}

/** The SQS handler of a runtime: every record of a batch polled, the ones to retry reported. */
export function createPollHandler(runtime: PollRuntime) {
  const processor = new BatchProcessor(EventType.SQS);
  const invocationLog = new InvocationLog(logger);
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    invocationLog.start(context);
    const metrics = new PollBatchMetrics();
    const outcomes: RecordOutcome[] = [];
    const budget = Math.min(
      runtime.pollDeadlineMs ?? Number.POSITIVE_INFINITY,
      context.getRemainingTimeInMillis() - INVOCATION_SAFETY_MS,
    );
    const deadlineMs = Date.now() + Math.max(0, budget);
    const handleRecord = async (record: SQSRecord): Promise<void> => {
      const run = { deadlineMs, owner: `poll:${context.awsRequestId}:${record.messageId}`, metrics };
      const polled = await pollRecord(runtime, record, run).catch((err: unknown): RecordOutcome[] => {
        logger.error('poll record failed unexpectedly', { messageId: record.messageId, err });
        return ['retry'];
      });
      outcomes.push(...polled);
      // A message comes back whole: its clubs polled since are skipped (club-poll/stale-sources.ts).
      if (polled.includes('retry')) throw new PollRetryError(`message ${record.messageId}: to be retried`);
    };
    try {
      // A batch whose every record is retried is answered as such, not thrown (the invocation ran).
      return await processPartialResponse(event, handleRecord, processor, { throwOnFullBatchFailure: false });
    } finally {
      metrics.publish(runtime.metrics);
      invocationLog.end(POLL_BATCH_MESSAGE, batchFields(outcomes));
    }
  };
}
