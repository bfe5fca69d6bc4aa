/**
 * The fan-out's own first attempt of a delivery (docs/webhooks.md, "The path of one event"): to an
 * endpoint that is healthy, not held to the queue and under its rate (./fan-out.ts decides), the
 * delivery is attempted at once by the fan-out instead of being queued for the delivery Lambda: one
 * SQS hop and one invocation less on the happy path. The attempts of one fan-out invocation go
 * side by side (one per endpoint), each settled exactly as the delivery Lambda settles its own
 * (./attempt-outcome.ts): a 2xx is delivered; a failure (5xx, 429 with Retry-After, 410, a reset, a
 * refused connection) writes the endpoint's health and queues the next attempt with the same
 * webhook-id, or disables the endpoint on 410.
 *
 * An attempt has INLINE_BUDGET_MS to be answered, not the whole 15 s: an endpoint that answers
 * slowly or not at all must not hold the fan-out's other deliveries. At the budget the request is
 * abandoned and the delivery handed to the delivery queue (not an attempt: the queue's attempt is
 * its first, with the whole deadline), and the endpoint is held to the queue for QUEUE_ONLY_MS.
 * When the request had been sent, the receiver may have it: the queue's attempt may then deliver
 * it a second time, with the same webhook-id (delivery is at least once). An unexpected error (a
 * key or table read) hands the delivery off too.
 */
import { logger } from '../common/logger';
import { type AttemptDeps, failed, sendSigned, succeeded } from './attempt-outcome';
import { healthAfterHandOff } from './delivery-decision';
import type { DeliveryMessage } from './delivery-message';
import type { Endpoint } from './endpoint';
import type { AttemptHandOff } from './http-delivery';
import type { EndpointHealth } from './webhook-store';

export interface FirstAttemptDeps extends AttemptDeps {
  /** How long an attempt waits for an answer before the delivery is handed off (INLINE_BUDGET_MS). */
  readonly budgetMs: number;
}

/** A delivery the fan-out attempts, its endpoint, and the endpoint's health as read. */
export interface FirstAttempt {
  readonly message: DeliveryMessage;
  readonly endpoint: Endpoint;
  readonly health: EndpointHealth;
}

/**
 * Makes each first attempt, side by side, and settles it; resolves with those handed off (no
 * answer within the budget, or an unexpected error), which the caller queues as they are.
 */
export async function attemptFirst<T extends FirstAttempt>(
  deps: FirstAttemptDeps,
  attempts: readonly T[],
): Promise<T[]> {
  const handedOff = await Promise.all(
    attempts.map(async (a) => ((await attemptOne(deps, a)) ? a : undefined)),
  );
  return handedOff.filter((a): a is Awaited<T> => a !== undefined);
}

/** One first attempt; true when the delivery is to be handed to the queue. */
async function attemptOne(
  deps: FirstAttemptDeps,
  { message, endpoint, health }: FirstAttempt,
): Promise<boolean> {
  try {
    const outcome = await sendSigned(deps, endpoint, message, deps.budgetMs);
    if (outcome.ok) {
      await succeeded(deps, endpoint, message, health, outcome);
      return false;
    }
    if (outcome.kind !== 'handoff') {
      await failed(deps, endpoint, message, health, outcome);
      return false;
    }
    await handedOff(deps, endpoint, message, health, outcome);
    return true;
  } catch (err) {
    deps.health.forget(endpoint.endpointId);
    deps.report.add(endpoint.endpointId, message.id, 'handed-off', { ageMs: deps.now() - message.q });
    logger.error('webhook first attempt failed unexpectedly: handed to the delivery queue', {
      endpointId: endpoint.endpointId,
      webhookId: message.id,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    return true;
  }
}

/** No answer within the budget: the endpoint held to the queue a while (all fan-outs read it). */
async function handedOff(
  deps: FirstAttemptDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  health: EndpointHealth,
  outcome: AttemptHandOff,
): Promise<void> {
  deps.report.add(endpoint.endpointId, message.id, 'handed-off', { ageMs: deps.now() - message.q });
  logger.warn('webhook first attempt handed off to the delivery queue', {
    endpointId: endpoint.endpointId,
    webhookId: message.id,
    reason: outcome.error,
    sent: outcome.sent,
  });
  const next = healthAfterHandOff(health, deps.now());
  try {
    if (await deps.store.writeHealth(endpoint.endpointId, next, health.rev))
      deps.health.set(endpoint.endpointId, { ...next, rev: health.rev + 1 });
    else deps.health.forget(endpoint.endpointId);
  } catch (err) {
    // Not written: this fan-out holds the endpoint to the queue anyway; the others may try it once.
    deps.health.set(endpoint.endpointId, next);
    logger.warn('webhook endpoint not held to the queue (health not written)', {
      endpointId: endpoint.endpointId,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
  }
}
