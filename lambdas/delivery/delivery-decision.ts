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
 */

import type { DeliveryMessage } from './delivery-message';
import type { Endpoint } from './endpoint';
import type { AttemptOutcome } from './http-delivery';
import {
  CIRCUIT_FAILURES,
  DISABLE_AFTER_MS,
  PROBE_LEASE_MS,
  probeDelayMs,
  retryDelayMs,
  SCHEDULE_SPAN_MS,
  scheduleSpent,
} from './retry-schedule';
import type { EndpointHealth, HealthFailure } from './webhook-store';

/** The last success is written again at most this often while an endpoint is healthy. */
export const SUCCESS_REFRESH_MS = 5 * 60_000;
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

/** The health with a probe claimed (written conditionally on the health read). */
export function withProbe(health: EndpointHealth, nowMs: number): EndpointHealth {
  return { ...health, probeUntil: nowMs + PROBE_LEASE_MS };
}

/** The health after a success, or undefined when nothing needs writing (the happy path). */
export function healthAfterSuccess(
  health: EndpointHealth,
  success: NonNullable<EndpointHealth['lastSuccess']>,
): EndpointHealth | undefined {
  const failing = health.failures > 0 || health.retryAt !== undefined || health.probeUntil !== undefined;
  const stale = !health.lastSuccess || success.at - health.lastSuccess.at >= SUCCESS_REFRESH_MS;
  if (!failing && !stale) return undefined;
  const { failingSince: _f, retryAt: _r, probeUntil: _p, ...rest } = health;
  return { ...rest, failures: 0, lastSuccess: success };
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
  outcome: Extract<AttemptOutcome, { ok: false }>,
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
export function failureOf(
  message: DeliveryMessage,
  outcome: Extract<AttemptOutcome, { ok: false }>,
  nowMs: number,
): HealthFailure {
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
