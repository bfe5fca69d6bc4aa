/**
 * The retry policy of data requests, decided in one place: which failures are retried (5xx,
 * network errors and timeouts with full-jitter backoff; a 429 once after a back-off), how long to
 * wait, and when to give up (attempts used, the wait too long, or past the caller's deadline).
 */
import { type BackoffPolicy, backoffDelayMs } from '../common/backoff';
import { logger } from '../common/logger';
import { QuotaExceededError, UnavailableError } from './errors';

export interface RetryPolicy extends BackoffPolicy {
  /** Attempts per request for 5xx, network errors and timeouts (first try included). @default 5 */
  readonly maxAttempts: number;
  /** @default 200 */
  readonly baseDelayMs: number;
  /** @default 5000 */
  readonly maxDelayMs: number;
  /** Wait before the single retry after a 429 (or Retry-After, if longer). @default 5000 */
  readonly quotaDelayMs: number;
  /** A 429 whose wait would exceed this is not retried: QuotaExceededError at once. @default 30000 */
  readonly maxQuotaDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  quotaDelayMs: 5000,
  maxQuotaDelayMs: 30_000,
};

export interface RetryState {
  transientFailures: number;
  quotaRetried: boolean;
}

/** What the delay is computed with: the policy, jitter and the clock. */
export interface RetryClock {
  readonly policy: RetryPolicy;
  /** [0, 1) for backoff jitter. */
  readonly random: () => number;
  /** Epoch ms, compared with the deadline. */
  readonly now: () => number;
}

/**
 * How long to wait before retrying after `err`, or undefined to give up and throw it:
 * - 5xx / network / timeout: full-jitter backoff, up to maxAttempts, never past the deadline;
 * - 429: one retry after max(quotaDelayMs, Retry-After), only if that fits maxQuotaDelayMs and
 *   the deadline; otherwise the QuotaExceededError goes up so the club can be backed off;
 * - anything else: no retry.
 */
export function retryDelay(
  err: unknown,
  state: RetryState,
  deadline: number | undefined,
  clock: RetryClock,
): number | undefined {
  let wait: number;
  if (err instanceof UnavailableError) {
    state.transientFailures++;
    if (state.transientFailures >= clock.policy.maxAttempts) return undefined;
    wait = backoffDelayMs(state.transientFailures, clock.policy, clock.random);
  } else if (err instanceof QuotaExceededError) {
    if (state.quotaRetried) return undefined;
    wait = Math.max(clock.policy.quotaDelayMs, err.retryAfterMs ?? 0);
    if (wait > clock.policy.maxQuotaDelayMs) return undefined;
    state.quotaRetried = true;
    logger.warn('gym-api 429 quota exceeded; one retry after a back-off', {
      operation: err.operation,
      wait,
    });
  } else {
    return undefined;
  }
  if (deadline !== undefined && clock.now() + wait >= deadline) return undefined;
  return wait;
}
