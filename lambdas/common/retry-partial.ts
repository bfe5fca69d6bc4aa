/**
 * The one loop for per-entry partial failures: a batch call answered 200 that reports some of its
 * entries as not done (DynamoDB BatchWriteItem UnprocessedItems / BatchGetItem UnprocessedKeys,
 * EventBridge PutEvents FailedEntryCount, SQS SendMessageBatch Failed). The SDK's retry strategy
 * (`aws-clients.ts`) does not see those; this resubmits only the failed entries, after the one
 * back-off of `backoff.ts`, and gives up with a PartialFailureError after `maxStalledRounds` rounds
 * in a row that made no progress (or after `maxRounds` calls in all, when given).
 */
import { backoffDelayMs, sleep as realSleep } from './backoff';

export interface PartialRetryOptions {
  /** Names the call in the error, e.g. 'BatchWriteItem'. */
  readonly operation: string;
  /** Rounds in a row where no entry got through before giving up. */
  readonly maxStalledRounds: number;
  /** Calls in all, the first included, before giving up even while progressing. @default unbounded */
  readonly maxRounds?: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** @default setTimeout-based sleep; tests pass a recorder. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Called before each wait, for a log line. */
  readonly onRetry?: (retry: {
    readonly failed: number;
    readonly round: number;
    readonly delayMs: number;
  }) => void;
}

/** Entries still failing when the loop gave up; `remaining` holds them, for the caller's message. */
export class PartialFailureError<E = unknown> extends Error {
  override readonly name = 'PartialFailureError';
  readonly operation: string;
  readonly remaining: readonly E[];
  /** Calls made, the first included. */
  readonly rounds: number;
  /** Rounds in a row without progress when giving up. */
  readonly stalledRounds: number;

  constructor(operation: string, remaining: readonly E[], rounds: number, stalledRounds: number) {
    super(
      `${operation} left ${remaining.length} entries failing after ${rounds} calls ` +
        `(${stalledRounds} in a row without progress)`,
    );
    this.operation = operation;
    this.remaining = remaining;
    this.rounds = rounds;
    this.stalledRounds = stalledRounds;
  }
}

/**
 * Calls `send` with `entries`, then again with only the entries it returns as failed, until none
 * fail. `send` returns the failed entries (a subset of what it was given); it collects whatever the
 * successful ones answered itself. A thrown error is not retried here (whole-call retries are the
 * SDK's job) and passes through. Resolves to the number of calls made.
 */
export async function resubmitFailedEntries<E>(
  entries: readonly E[],
  send: (pending: readonly E[]) => Promise<readonly E[]>,
  options: PartialRetryOptions,
): Promise<number> {
  const sleep = options.sleep ?? realSleep;
  const maxRounds = options.maxRounds ?? Number.POSITIVE_INFINITY;
  let pending = entries;
  let stalled = 0;
  for (let round = 1; pending.length > 0; round++) {
    const failed = await send(pending);
    if (failed.length === 0) return round;
    stalled = failed.length < pending.length ? 0 : stalled + 1;
    if (stalled >= options.maxStalledRounds || round >= maxRounds) {
      throw new PartialFailureError(options.operation, failed, round, stalled);
    }
    const policy = { baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs };
    const delayMs = backoffDelayMs(round, policy, options.random);
    options.onRetry?.({ failed: failed.length, round, delayMs });
    await sleep(delayMs);
    pending = failed;
  }
  return 0;
}
