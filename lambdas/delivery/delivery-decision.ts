/**
 * What to do with one delivery, and what an attempt's outcome changes: pure functions of the
 * message, the endpoint, its health, the time and a random number (table tests in
 * test/unit/delivery/).
 *
 * The endpoint's circuit keeps a failing endpoint from costing anyone else: after CIRCUIT_FAILURES
 * failed attempts in a row (or a 429/503 with Retry-After, or one attempt that timed out: each
 * held a delivery Lambda for its whole deadline), its deliveries wait, hidden in the
 * queue, until `retryAt`; then one of them is the probe (claimed with a conditional write, so one
 * process probes); the others wait for its answer. A success closes the circuit. Waiting costs a
 * delivery Lambda nothing (no socket held), and a failing endpoint makes one attempt per probe
 * period, not one per delivery.
 *
 * The first attempt of a delivery is made by the fan-out itself (./first-attempt.ts) only when the
 * endpoint is healthy and not held to the queue (`attemptsInline`); an inline attempt that gets no
 * answer within INLINE_BUDGET_MS is handed to the queue, and the endpoint held to the queue for
 * QUEUE_ONLY_MS (`healthAfterHandOff`; a success slower than the budget keeps it held).
 */
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../common/time-units';
import type { DeliveryMessage } from './delivery-message';
import type { Endpoint } from './endpoint';
import type { AttemptFailure } from './http-delivery';
import type { EndpointHealth, HealthFailure } from './webhook-store';

/** The last success is written again at most this often while an endpoint is healthy. */
export const SUCCESS_REFRESH_MS = 5 * MINUTE_MS;
/**
 * The fan-out's own first attempt (./first-attempt.ts) waits this long for an answer; then the
 * delivery is handed to the delivery queue, whose attempt has the whole 15 s.
 */
export const INLINE_BUDGET_MS = 2_000;
/**
 * After a hand-off, or a success slower than INLINE_BUDGET_MS, an endpoint's deliveries go through
 * the delivery queue this long (no first attempt by the fan-out: it would hold the fan-out and,
 * when the request had been sent, deliver it twice).
 */
export const QUEUE_ONLY_MS = 10 * MINUTE_MS;
/** Deliveries waiting for a probe's answer come back spread over this much after it. */
export const WAKE_SPREAD_MS = 30_000;

export type Decision =
  | { readonly kind: 'drop'; readonly why: string }
  | { readonly kind: 'dead'; readonly reason: 'endpoint-disabled' | 'schedule-exhausted' }
  | {
      readonly kind: 'wait';
      readonly untilMs: number;
      readonly why: 'not-due' | 'circuit-open' | 'probe-in-flight';
    }
  | { readonly kind: 'attempt'; readonly probe: boolean };

const circuitOpen = (h: EndpointHealth) =>
  h.failures >= CIRCUIT_FAILURES || (h.retryAt !== undefined && h.failures > 0);

export function decide(
  message: DeliveryMessage,
  endpoint: Endpoint | undefined,
  health: EndpointHealth,
  nowMs: number,
  random: () => number,
): Decision {
  if (!endpoint) return { kind: 'drop', why: 'the endpoint was removed' };
  if (!endpoint.enabled) return { kind: 'dead', reason: 'endpoint-disabled' };
  if (message.due > nowMs) return { kind: 'wait', untilMs: message.due, why: 'not-due' };
  if (!circuitOpen(health)) return { kind: 'attempt', probe: false };
  const spent = scheduleSpent(message.q, nowMs);
  const spread = () => 2_000 + Math.floor(random() * WAKE_SPREAD_MS);
  if (health.retryAt !== undefined && health.retryAt > nowMs) {
    if (spent) return { kind: 'dead', reason: 'schedule-exhausted' };
    return {
      kind: 'wait',
      untilMs: Math.min(health.retryAt + spread(), message.q + SCHEDULE_SPAN_MS),
      why: 'circuit-open',
    };
  }
  if (health.probeUntil !== undefined && health.probeUntil > nowMs) {
    if (spent) return { kind: 'dead', reason: 'schedule-exhausted' };
    return { kind: 'wait', untilMs: health.probeUntil + spread(), why: 'probe-in-flight' };
  }
  // Past its span, a delivery to an endpoint that is still failing probes no more.
  if (spent) return { kind: 'dead', reason: 'schedule-exhausted' };
  return { kind: 'attempt', probe: true };
}

/**
 * Whether the fan-out makes a delivery's first attempt itself: only to an endpoint whose last
 * attempt succeeded (no failure in a row, no circuit, no probe, no Retry-After) and that is not
 * held to the queue (slow, or handed off lately). Every other delivery goes through the queue.
 */
export function attemptsInline(health: EndpointHealth, nowMs: number): boolean {
  return (
    health.failures === 0 &&
    health.retryAt === undefined &&
    health.probeUntil === undefined &&
    !(health.queueOnlyUntil !== undefined && health.queueOnlyUntil > nowMs)
  );
}

/** The health after an inline attempt was handed off: first attempts through the queue a while. */
export function healthAfterHandOff(health: EndpointHealth, nowMs: number): EndpointHealth {
  return { ...health, queueOnlyUntil: nowMs + QUEUE_ONLY_MS };
}

/** The health with a probe claimed (written conditionally on the health read). */
export function withProbe(health: EndpointHealth, nowMs: number): EndpointHealth {
  return { ...health, probeUntil: nowMs + PROBE_LEASE_MS };
}

/**
 * The health after a success, or undefined when nothing needs writing (the happy path).
 * `attemptMs`: how long the attempt took; over INLINE_BUDGET_MS, the endpoint stays held to the
 * queue (written when less than half of QUEUE_ONLY_MS is left: a slow endpoint costs a write
 * every 5 minutes, and the fan-out never holds it nor sends it a request twice).
 */
export function healthAfterSuccess(
  health: EndpointHealth,
  success: NonNullable<EndpointHealth['lastSuccess']>,
  attemptMs = 0,
): EndpointHealth | undefined {
  const failing = health.failures > 0 || health.retryAt !== undefined || health.probeUntil !== undefined;
  const stale = !health.lastSuccess || success.at - health.lastSuccess.at >= SUCCESS_REFRESH_MS;
  const holdLeft = (health.queueOnlyUntil ?? 0) - success.at;
  const hold = attemptMs > INLINE_BUDGET_MS && holdLeft < QUEUE_ONLY_MS / 2;
  if (!failing && !stale && !hold) return undefined;
  const { failingSince: _f, retryAt: _r, probeUntil: _p, ...rest } = health;
  return {
    ...rest,
    failures: 0,
    lastSuccess: success,
    ...(hold ? { queueOnlyUntil: success.at + QUEUE_ONLY_MS } : {}),
  };
}

/**
 * The health after a failed attempt: one more failure, and the circuit opened or moved on.
 * `timedOut`: the attempt ran out of time (it opens the circuit at once).
 */
export function healthAfterFailure(
  health: EndpointHealth,
  failure: HealthFailure,
  retryAfterMs: number | undefined,
  random: () => number,
  timedOut = false,
): EndpointHealth {
  const failures = health.failures + 1;
  const { probeUntil: _p, retryAt: _r, ...rest } = health;
  const open = failures >= CIRCUIT_FAILURES || timedOut;
  const retryAt = open
    ? failure.at + probeDelayMs(failures, random, retryAfterMs)
    : retryAfterMs !== undefined
      ? failure.at + retryAfterMs
      : undefined;
  return {
    ...rest,
    failures,
    failingSince: health.failingSince ?? failure.at,
    lastFailure: failure,
    ...(retryAt === undefined ? {} : { retryAt }),
  };
}

/** An endpoint that has failed every attempt since DISABLE_AFTER_MS ago is disabled. */
export function failedTooLong(health: EndpointHealth, nowMs: number): boolean {
  return (
    health.failingSince !== undefined &&
    nowMs - health.failingSince >= DISABLE_AFTER_MS &&
    health.failures > 0
  );
}

/**
 * The message's next version after a failed attempt (attempts + 1, last status, next due time),
 * or undefined when its schedule is exhausted.
 */
export function nextAttempt(
  message: DeliveryMessage,
  outcome: AttemptFailure,
  nowMs: number,
  random: () => number,
): DeliveryMessage | undefined {
  const attempts = message.n + 1;
  const delay = retryDelayMs(attempts, random, outcome.retryAfterMs);
  if (delay === undefined) return undefined;
  return {
    ...message,
    n: attempts,
    due: nowMs + delay,
    la: nowMs,
    le: outcome.error.slice(0, 300),
    ...(outcome.status === undefined ? { ls: undefined } : { ls: outcome.status }),
  };
}

/** The failure a health record keeps of an attempt (a cut, redacted excerpt; never the URL). */
export function failureOf(message: DeliveryMessage, outcome: AttemptFailure, nowMs: number): HealthFailure {
  const clubId = typeof message.data.clubId === 'string' ? message.data.clubId : undefined;
  return {
    at: nowMs,
    error: outcome.error,
    webhookId: message.id,
    attempt: message.n + 1,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.excerpt ? { excerpt: outcome.excerpt } : {}),
    ...(clubId ? { clubId } : {}),
  };
}

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
 * An endpoint whose attempts keep failing is probed, not hammered (above): after
 * CIRCUIT_FAILURES failures in a row (one, if it timed out) its circuit opens, and one attempt (a probe) goes out at a
 * time, PROBE_DELAYS_MS apart (capped at an hour); every other delivery waits for the probe's
 * answer. An endpoint that has failed everything for DISABLE_AFTER_MS is disabled.
 */
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
