/**
 * The one retry configuration for the AWS SDK clients (DynamoDB, EventBridge, SQS, Secrets Manager),
 * used by the Lambda handlers' module-scope clients, the CLI and the embedded DynamoDB.
 *
 * A whole call that is throttled (ThrottlingException, ProvisionedThroughputExceededException,
 * RequestLimitExceeded, ...), answered 5xx or lost in transport is retried by the SDK's own
 * standard retry strategy: exponential back-off with jitter, capped at 20 s, from a larger base for
 * throttling errors (1 s in the installed @smithy/core 3.41, 50 ms for other transient errors), and
 * a client-wide retry quota that stops retrying when most calls fail, so an outage does not
 * multiply the load. Our code never re-sends a whole call for those. Per-entry partial failures
 * (BatchWriteItem UnprocessedItems, BatchGetItem UnprocessedKeys, PutEvents FailedEntryCount,
 * SendMessageBatch Failed) are answered 200 and so are not the SDK's job: `retry-partial.ts`
 * resubmits only the failed entries.
 *
 * Why these numbers:
 * - `maxAttempts: 5` (the SDK's default is 3): 4 throttling retries wait at most 1 + 2 + 4 + 8 = 15 s
 *   (about half of that on average with jitter), as long as the hand-written loops this replaces
 *   allowed (10 attempts capped at 3 s for the store, 8 capped at 5 s for the publisher: 11 to 19 s),
 *   long enough to ride out a burst above DynamoDB's or PutEvents' rate, and short enough to stay
 *   well inside a poll Lambda's timeout. A call still throttled after that fails (StoreError,
 *   PublishError) and the poll is retried later by its queue.
 * - `retryMode: 'standard'`, not `'adaptive'`: adaptive mode adds a client-side rate limiter that
 *   delays even the first attempt of later calls after a throttle; our calls are already bounded by
 *   the one concurrency limiter and the quota budget, and a delay before a first attempt would count
 *   against the poll's time budget without being visible in our logs.
 */

/** Retry settings accepted by every AWS SDK v3 client constructor. */
export interface AwsClientConfig {
  /** Attempts per call, the first included. @default 5 */
  readonly maxAttempts: number;
  /** The SDK's retry strategy. @default 'standard' */
  readonly retryMode: 'standard' | 'adaptive';
}

/** The default attempts per call on throttling, 5xx and transport errors (see the module comment). */
export const AWS_MAX_ATTEMPTS = 5;

/**
 * The retry settings to spread into an AWS SDK client's constructor, e.g.
 * `new DynamoDBClient({ ...awsClientConfig(), region })`. `overrides` is for tests (fewer attempts).
 */
export function awsClientConfig(overrides: Partial<AwsClientConfig> = {}): AwsClientConfig {
  return { maxAttempts: AWS_MAX_ATTEMPTS, retryMode: 'standard', ...overrides };
}

/** Secrets Manager's limit on a SecretString, in bytes (the club secrets and the webhook keys). */
export const MAX_SECRET_BYTES = 65_536;
