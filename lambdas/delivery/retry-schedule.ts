/**
 * When to try again: the retry schedule of one delivery and the probe schedule of a failing
 * endpoint, as pure functions of counts, times and a random number (tests pass their own).
 *
 * A delivery follows the Standard Webhooks example schedule ("Deliverability and reliability"):
 * immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h later, each wait with
 * ±20% jitter: 10 attempts over about 75.5 hours (3 days and 3.5 hours). A 429 or 503 with a
 * Retry-After waits at least that long (capped at a day). The schedule is exhausted after the 10th
 * failed attempt, or when SCHEDULE_SPAN_MS have passed since the delivery was first queued while
 * its endpoint was failing (attempts held back by the endpoint's circuit do not stretch it).
 *
 * An endpoint whose attempts keep failing is probed, not hammered (./delivery-decision.ts): after
 * CIRCUIT_FAILURES failures in a row (one, if it timed out) its circuit opens, and one attempt (a probe) goes out at a
 * time, PROBE_DELAYS_MS apart (capped at an hour); every other delivery waits for the probe's
 * answer. An endpoint that has failed everything for DISABLE_AFTER_MS is disabled.
 */
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../common/time-units';

/** The waits after attempt 1, 2, ...: the spec's example schedule. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  14 * HOUR_MS,
  20 * HOUR_MS,
  24 * HOUR_MS,
];

/** Attempts in all, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The schedule's span without jitter: 75 h 35 min 5 s. */
export const SCHEDULE_SPAN_MS = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);

/** Each wait is drawn in [1 - JITTER, 1 + JITTER] of its nominal value. */
export const JITTER = 0.2;

/** A Retry-After longer than this is read as this. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR_MS;

/** Failures in a row that open an endpoint's circuit. */
export const CIRCUIT_FAILURES = 3;

/** The waits between probes of an endpoint whose circuit is open (the last one repeats). */
export const PROBE_DELAYS_MS: readonly number[] = [
  5 * SECOND_MS,
  30 * SECOND_MS,
  2 * MINUTE_MS,
  5 * MINUTE_MS,
  15 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
];

/** An endpoint that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR_MS;

/** How long one probe holds the endpoint's probe slot (above the attempt's timeout). */
export const PROBE_LEASE_MS = 30 * SECOND_MS;

const jittered = (ms: number, random: () => number) => Math.round(ms * (1 - JITTER + 2 * JITTER * random()));

/**
 * The wait before the next attempt after `attempts` failed ones (1 = after the first), or
 * undefined when the schedule is exhausted. A Retry-After (ms) is honoured when longer.
 */
export function retryDelayMs(
  attempts: number,
  random: () => number,
  retryAfterMs?: number,
): number | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  const nominal = RETRY_DELAYS_MS[Math.max(0, attempts - 1)] ?? RETRY_DELAYS_MS.at(-1)!;
  const wait = jittered(nominal, random);
  return retryAfterMs === undefined ? wait : Math.max(wait, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** The wait before the next probe of an endpoint that has failed `failures` times in a row. */
export function probeDelayMs(failures: number, random: () => number, retryAfterMs?: number): number {
  const index = Math.max(0, failures - CIRCUIT_FAILURES);
  const wait = jittered(PROBE_DELAYS_MS[Math.min(index, PROBE_DELAYS_MS.length - 1)]!, random);
  return retryAfterMs === undefined ? wait : Math.max(wait, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** True when a delivery first queued at `firstQueuedAtMs` has outlived the schedule. */
export function scheduleSpent(firstQueuedAtMs: number, nowMs: number): boolean {
  return nowMs - firstQueuedAtMs >= SCHEDULE_SPAN_MS;
}
