/**
 * The one back-off of the runtime: capped exponential backoff with full jitter, and the HTTP
 * Retry-After header. Used by the API client, the store, the publisher and the queue sender.
 */

export interface BackoffPolicy {
  /** Base of the exponential: the cap of the first wait. */
  readonly baseDelayMs: number;
  /** No wait is ever longer than this. */
  readonly maxDelayMs: number;
}

/** The cap of the wait before retry number `retry` (1 = the first retry): min(max, base * 2^(retry-1)). */
export function backoffCapMs(retry: number, policy: BackoffPolicy): number {
  const exponent = Math.max(0, retry - 1);
  // 2^exponent overflows to Infinity for large exponents; Math.min keeps the cap.
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
}

/**
 * Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): a uniform wait in
 * [0, cap). `random` returns a number in [0, 1), like Math.random.
 */
export function backoffDelayMs(
  retry: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * backoffCapMs(retry, policy));
}

/**
 * Parses Retry-After (delta-seconds or an HTTP date) into milliseconds from `nowMs`.
 * Returns undefined when absent or unreadable; never negative.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date starts with a day name ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse alone
  // would also accept "-5" or "2025" as dates.
  if (!/^[A-Za-z]{3,9},? /.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
