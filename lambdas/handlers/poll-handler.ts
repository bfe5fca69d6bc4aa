/**
 * The poll handler of a runtime (SQS event source, partial batch responses): one poll message per
 * club. Powertools' BatchProcessor runs the records of a batch side by side and answers which ones
 * SQS should deliver again; the record handler (poll-record.ts) is the only domain code: a record
 * whose poll a retry can fix throws PollRetryError, every other outcome (polled, skipped, dropped)
 * settles it. The Lambda entry point (poll.ts) builds it once with the runtime from the
 * environment; tests build it with their own runtime.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../common/logger';
import { pollRecord } from './poll-record';
import type { PollRuntime } from './poll-runtime';

/** Time kept between the poll deadline and the end of the invocation. */
export const INVOCATION_SAFETY_MS = 5_000;

/** A record whose poll failed in a way a later attempt can fix: SQS delivers it again. */
export class PollRetryError extends Error {
  override readonly name = 'PollRetryError';
}

type InvocationContext = Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>;

/** The SQS handler of a runtime: every record of a batch polled, the ones to retry reported. */
export function createPollHandler(runtime: PollRuntime) {
  const processor = new BatchProcessor(EventType.SQS);
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler((event, context: InvocationContext) => {
      const budget = Math.min(
        runtime.pollDeadlineMs ?? Number.POSITIVE_INFINITY,
        context.getRemainingTimeInMillis() - INVOCATION_SAFETY_MS,
      );
      const deadlineMs = Date.now() + Math.max(0, budget);
      const handleRecord = async (record: SQSRecord): Promise<void> => {
        const owner = `poll:${context.awsRequestId}:${record.messageId}`;
        const outcome = await pollRecord(runtime, record, deadlineMs, owner).catch((err: unknown) => {
          logger.error('poll record failed unexpectedly', { messageId: record.messageId, err });
          return 'retry' as const;
        });
        if (outcome === 'retry') throw new PollRetryError(`message ${record.messageId}: poll to be retried`);
      };
      // A batch whose every record is retried is answered as such, not thrown (the invocation ran).
      return processPartialResponse(event, handleRecord, processor, { throwOnFullBatchFailure: false });
    });
}
