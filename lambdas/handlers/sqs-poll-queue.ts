/**
 * Sends poll messages to the SQS poll queue: SendMessageBatch with up to 10 entries per call.
 * Entries SQS reports as failed (not the sender's fault), throttling and 5xx are retried alone, with
 * capped exponential backoff and full jitter; entries that succeeded are never sent again.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { PollMessage } from '../common/deployment-contract';
import { logger } from '../common/logger';
import { serializePollMessage } from './poll-message';

export interface PollQueue {
  /** Resolves when every message is queued; otherwise throws PollQueueError. */
  sendBatch(messages: readonly PollMessage[]): Promise<void>;
}

export class PollQueueError extends Error {
  override readonly name = 'PollQueueError';
  constructor(
    message: string,
    /** Clubs whose message could not be queued. */
    readonly clubIds: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SqsPollQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** Attempts per message, the first included. @default 5 */
  readonly maxAttempts?: number;
  /** @default 100 */
  readonly baseDelayMs?: number;
  /** @default 2000 */
  readonly maxDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

export const SQS_BATCH_MAX_ENTRIES = 10;

const RETRYABLE_REQUEST_ERRORS = new Set([
  'ThrottlingException',
  'RequestThrottled',
  'KmsThrottled',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
]);

function isRetryableRequestError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return RETRYABLE_REQUEST_ERRORS.has(err.name) || (status !== undefined && status >= 500);
}

export class SqsPollQueue implements PollQueue {
  readonly #options: Required<Omit<SqsPollQueueOptions, 'client' | 'queueUrl'>> & SqsPollQueueOptions;

  constructor(options: SqsPollQueueOptions) {
    this.#options = {
      maxAttempts: 5,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      ...options,
    };
  }

  async sendBatch(messages: readonly PollMessage[]): Promise<void> {
    const failed: string[] = [];
    let lastCause: unknown;
    for (let i = 0; i < messages.length; i += SQS_BATCH_MAX_ENTRIES) {
      const chunk = messages.slice(i, i + SQS_BATCH_MAX_ENTRIES);
      const result = await this.#sendChunk(chunk);
      failed.push(...result.failed);
      lastCause = result.cause ?? lastCause;
    }
    if (failed.length > 0) {
      throw new PollQueueError(
        `${failed.length} of ${messages.length} poll messages could not be queued (clubs ${failed.slice(0, 10).join(', ')}${failed.length > 10 ? ', ...' : ''})`,
        failed,
        lastCause === undefined ? undefined : { cause: lastCause },
      );
    }
  }

  async #sendChunk(chunk: readonly PollMessage[]): Promise<{ failed: string[]; cause?: unknown }> {
    const { client, queueUrl, maxAttempts } = this.#options;
    let pending: SendMessageBatchRequestEntry[] = chunk.map((m, index) => ({
      Id: String(index),
      MessageBody: serializePollMessage(m),
    }));
    const clubOf = (id: string | undefined) => chunk[Number(id)]?.clubId ?? '?';
    const permanent: string[] = [];
    let cause: unknown;
    for (let attempt = 1; pending.length > 0 && attempt <= maxAttempts; attempt++) {
      if (attempt > 1) await this.#backoff(attempt - 1);
      try {
        const out = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
        const retry = new Set<string>();
        for (const f of out.Failed ?? []) {
          if (f.SenderFault) {
            permanent.push(clubOf(f.Id));
            logger.error('poll message refused by SQS', { clubId: clubOf(f.Id), code: f.Code });
          } else {
            retry.add(f.Id ?? '');
          }
        }
        if (retry.size > 0) {
          logger.warn('poll messages failed, retrying them', { count: retry.size, attempt });
        }
        pending = pending.filter((e) => retry.has(e.Id ?? ''));
      } catch (err) {
        cause = err;
        if (!isRetryableRequestError(err)) break;
        logger.warn('SendMessageBatch failed, retrying', {
          attempt,
          error: err instanceof Error ? err.name : String(err),
        });
      }
    }
    return { failed: [...permanent, ...pending.map((e) => clubOf(e.Id))], cause };
  }

  #backoff(retry: number): Promise<void> {
    const { baseDelayMs, maxDelayMs, random, sleep } = this.#options;
    return sleep(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1)));
  }
}
