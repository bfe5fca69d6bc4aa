/**
 * One attempt of a delivery and what its outcome does, the same wherever the attempt is made (the
 * fan-out's first attempt, ./first-attempt.ts; the delivery Lambda's, ./deliver-batch.ts): the
 * body signed with the endpoint's keys and sent; a success refreshes the endpoint's last success
 * now and then; a failure writes its health (failures in a row, the circuit), queues the next
 * attempt, or moves the delivery to the endpoint's dead letters when its schedule is spent, and a
 * 410 or 5 days of failures disable the endpoint.
 *
 * What is written, when: nothing per delivery on the happy path (the last success at most every 5
 * minutes per endpoint); a failure writes the endpoint's health; an operational event is published
 * before the mark it announces is written (a dead letter, the endpoint disabled), so a crash in
 * between publishes it again with the same eventId.
 */
import { logger } from '../common/logger';
import type { EventSink } from '../events/event-sink';
import {
  failedTooLong,
  failureOf,
  healthAfterFailure,
  healthAfterSuccess,
  nextAttempt,
} from './delivery-decision';
import { type DeliveryMessage, webhookBody } from './delivery-message';
import { type DeliveryQueue, delaySecondsUntil, MAX_DELAY_SECONDS } from './delivery-queue';
import type { DeliveryReport } from './delivery-report';
import type { Endpoint } from './endpoint';
import type { EndpointRegistry, HealthCache } from './endpoint-cache';
import type { AttemptFailure, AttemptOutcome, DeliveryRequest } from './http-delivery';
import { keysOf, type SigningKeyStore } from './signing-keys';
import { deliveryFailedEvent, endpointDisabledEvent } from './webhook-events';
import { signedHeaders } from './webhook-signature';
import type { EndpointHealth, WebhookStore } from './webhook-store';

/** What an attempt and its outcome use. */
export interface AttemptDeps {
  readonly registry: EndpointRegistry;
  readonly health: HealthCache;
  readonly store: Pick<WebhookStore, 'writeHealth' | 'putDeadLetter' | 'getEndpoint' | 'putEndpoint'>;
  readonly keys: SigningKeyStore;
  readonly queue: DeliveryQueue;
  readonly sink: EventSink;
  readonly send: (request: DeliveryRequest) => Promise<AttemptOutcome>;
  readonly report: DeliveryReport;
  readonly now: () => number;
  readonly random: () => number;
}

/**
 * An attempt's dependencies: the delivery's parts a runtime holds (the Lambdas' and the local
 * runner's alike), with the invocation's sender, report, clock and random.
 */
export function attemptDeps(
  parts: Pick<AttemptDeps, 'registry' | 'health' | 'store' | 'keys' | 'queue' | 'sink'>,
  run: Pick<AttemptDeps, 'send' | 'report' | 'now' | 'random'>,
): AttemptDeps {
  const { registry, health, store, keys, queue, sink } = parts;
  return { registry, health, store, keys, queue, sink, ...run };
}

/** Signs the delivery's body with the endpoint's keys (both, during a rotation) and sends it. */
export async function sendSigned(
  deps: AttemptDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  budgetMs?: number,
): Promise<AttemptOutcome> {
  const entry = await deps.keys.entry(endpoint.secretName, endpoint.endpointId, endpoint.keyVersion);
  if (!entry)
    throw new Error(`no signing key for endpoint ${endpoint.endpointId} (version ${endpoint.keyVersion})`);
  const { keys, headers } = keysOf(entry, deps.now());
  const body = webhookBody(message);
  const signed = signedHeaders(keys, message.id, Math.floor(deps.now() / 1000), body);
  return deps.send({
    url: endpoint.url,
    headers: { ...headers, ...signed },
    body,
    secrets: Object.values(headers),
    ...(budgetMs === undefined ? {} : { budgetMs }),
  });
}

/**
 * A 2xx: reported; the health written when the circuit closes, the last success is stale, or the
 * answer was slow; returns the endpoint's health as this process now knows it.
 */
export async function succeeded(
  deps: AttemptDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  health: EndpointHealth,
  outcome: Extract<AttemptOutcome, { ok: true }>,
): Promise<EndpointHealth> {
  const now = deps.now();
  const latencyMs = now - (message.pub ?? message.q);
  const success = { at: now, status: outcome.status, webhookId: message.id, latencyMs };
  const next = healthAfterSuccess(health, success, outcome.ms);
  let kept = health;
  if (next) {
    const written = await deps.store.writeHealth(endpoint.endpointId, next, health.rev);
    if (written) {
      kept = { ...next, rev: health.rev + 1 };
      deps.health.set(endpoint.endpointId, kept);
    } else deps.health.forget(endpoint.endpointId);
  }
  deps.report.add(endpoint.endpointId, message.id, 'delivered', {
    status: outcome.status,
    attempt: message.n + 1,
    latencyMs,
  });
  return kept;
}

/**
 * A failed attempt: the endpoint's health written (re-read and merged when another process wrote
 * it meanwhile), then the next attempt queued, or the delivery dead-lettered (its schedule spent,
 * or the endpoint disabled: 410, or failing for 5 days).
 */
export async function failed(
  deps: AttemptDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  health: EndpointHealth,
  outcome: AttemptFailure,
): Promise<EndpointHealth> {
  const now = deps.now();
  const failure = failureOf(message, outcome, now);
  const timedOut = outcome.kind === 'timeout';
  let current = health;
  let next = healthAfterFailure(current, failure, outcome.retryAfterMs, deps.random, timedOut);
  for (
    let round = 0;
    round < 3 && !(await deps.store.writeHealth(endpoint.endpointId, next, current.rev));
    round++
  ) {
    deps.health.forget(endpoint.endpointId);
    current = (await deps.health.get([endpoint.endpointId])).get(endpoint.endpointId)!;
    next = healthAfterFailure(current, failure, outcome.retryAfterMs, deps.random, timedOut);
  }
  const kept = { ...next, rev: current.rev + 1 };
  deps.health.set(endpoint.endpointId, kept);
  deps.report.add(endpoint.endpointId, message.id, 'failed', {
    status: outcome.status,
    attempt: message.n + 1,
    ageMs: now - message.q,
  });
  logger.warn('webhook attempt failed', {
    endpointId: endpoint.endpointId,
    webhookId: message.id,
    attempt: message.n + 1,
    reason: outcome.error,
    failures: kept.failures,
    ...(kept.retryAt ? { retryAt: new Date(kept.retryAt).toISOString() } : {}),
  });
  const tried = nextAttempt(message, outcome, now, deps.random);
  const attempted: DeliveryMessage = tried ?? {
    ...message,
    n: message.n + 1,
    la: now,
    le: outcome.error.slice(0, 300),
    ...(outcome.status === undefined ? {} : { ls: outcome.status }),
  };
  const gone = outcome.kind === 'http' && outcome.status === 410;
  if (gone || failedTooLong(kept, now)) {
    await disable(deps, endpoint, gone ? 'gone' : 'failing', kept, attempted);
    await deadLetter(deps, endpoint, attempted, gone ? 'endpoint-gone' : 'endpoint-failing');
  } else if (!tried) {
    await deadLetter(deps, endpoint, attempted, 'schedule-exhausted');
  } else {
    await deps.queue.send([
      { message: tried, delaySeconds: delaySecondsUntil(tried.due, now, MAX_DELAY_SECONDS) },
    ]);
  }
  return kept;
}

/**
 * Moves a delivery to the endpoint's dead letters. A delivery whose schedule ran out is announced
 * first (Webhook Delivery Failed); the ones a disabled endpoint leaves are covered by its Webhook
 * Endpoint Disabled event.
 */
export async function deadLetter(
  deps: AttemptDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  reason: string,
): Promise<void> {
  const now = deps.now();
  if (reason === 'schedule-exhausted') await deps.sink.publish([deliveryFailedEvent(endpoint, message, now)]);
  await deps.store.putDeadLetter(endpoint.endpointId, {
    webhookId: message.id,
    message: JSON.stringify(message),
    reason,
    deadLetteredAt: now,
    attempts: message.n,
    ...(message.ls === undefined ? {} : { lastStatus: message.ls }),
    ...(message.le === undefined ? {} : { lastError: message.le }),
  });
  deps.report.add(endpoint.endpointId, message.id, 'dead', { attempt: message.n, ageMs: now - message.q });
}

/** Disables an endpoint the bridge gave up on: the event first, then the write (if still enabled). */
async function disable(
  deps: AttemptDeps,
  endpoint: Endpoint,
  reason: 'gone' | 'failing',
  health: EndpointHealth,
  message: DeliveryMessage,
): Promise<void> {
  const failure = health.lastFailure!;
  await deps.sink.publish([endpointDisabledEvent(endpoint, reason, failure, health.failingSince, message)]);
  const stored = await deps.store.getEndpoint(endpoint.endpointId);
  if (!stored?.enabled || stored.enabledAt !== endpoint.enabledAt) return;
  const now = new Date(deps.now()).toISOString();
  await deps.store.putEndpoint(
    {
      ...stored,
      enabled: false,
      disabledReason: reason,
      disabledAt: now,
      updatedAt: now,
      version: stored.version + 1,
    },
    stored.version,
  );
  deps.registry.invalidate();
  deps.report.endpointDisabled();
  logger.warn('webhook endpoint disabled', {
    endpointId: endpoint.endpointId,
    reason,
    lastStatus: failure.status,
    lastError: failure.error,
  });
}
