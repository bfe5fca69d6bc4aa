/**
 * The one retry configuration for the AWS SDK clients (DynamoDB, EventBridge, SQS, Secrets Manager),
 * used by the Lambda handlers' module-scope clients, the CLI and the embedded DynamoDB.
 *
 * A whole call that is throttled (ThrottlingException, ProvisionedThroughputExceededException,
 * RequestLimitExceeded, ...), answered 5xx or lost in transport is retried by the SDK's own
 * standard retry strategy: exponential back-off with full jitter (base 100 ms, 500 ms for
 * throttling errors, capped at 20 s) and a client-wide retry token bucket that stops retrying when
 * most calls fail, so an outage does not multiply the load. Our code never re-sends a whole call for
 * those. Per-entry partial failures (BatchWriteItem UnprocessedItems, BatchGetItem UnprocessedKeys,
 * PutEvents FailedEntryCount, SendMessageBatch Failed) are answered 200 and so are not the SDK's
 * job: `retry-partial.ts` resubmits only the failed entries.
 *
 * Why these numbers:
 * - `maxAttempts: 8` (the SDK's default is 3): the throttling back-off doubles from 500 ms, so
 *   8 attempts wait up to 0.5 + 1 + 2 + 4 + 8 + 16 + 20 s in the worst case, ~3.4 s on average with
 *   full jitter: long enough to ride out DynamoDB on-demand's adaptive capacity and EventBridge's
 *   PutEvents quota bursts, short enough to stay well inside a poll Lambda's timeout (the hand-written
 *   loops this replaces allowed 5 to 10 attempts with a 5 s cap).
 * - `retryMode: 'standard'`, not `'adaptive'`: adaptive mode adds a client-side rate limiter that
 *   delays even the first attempt of later calls after a throttle; our calls are already bounded by
 *   the one concurrency limiter and the quota budget, and a delay before a first attempt would count
 *   against the poll's time budget without being visible in our logs.
 */

/** Retry settings accepted by every AWS SDK v3 client constructor. */
export interface AwsClientConfig {
  /** Attempts per call, the first included. @default 8 */
  readonly maxAttempts: number;
  /** The SDK's retry strategy. @default 'standard' */
  readonly retryMode: 'standard' | 'adaptive';
}

/** The default attempts per call on throttling, 5xx and transport errors (see the module comment). */
export const AWS_MAX_ATTEMPTS = 8;

/**
 * The retry settings to spread into an AWS SDK client's constructor, e.g.
 * `new DynamoDBClient({ ...awsClientConfig(), region })`. `overrides` is for tests (fewer attempts).
 */
export function awsClientConfig(overrides: Partial<AwsClientConfig> = {}): AwsClientConfig {
  return { maxAttempts: AWS_MAX_ATTEMPTS, retryMode: 'standard', ...overrides };
}
