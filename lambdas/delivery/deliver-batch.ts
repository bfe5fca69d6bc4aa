/**
 * The delivery use case: a batch of received delivery messages, each decided
 * (./delivery-decision.ts), attempted, and settled: delivered, queued again for its next attempt,
 * hidden until it is due or its endpoint's circuit lets it through, or moved to the endpoint's dead
 * letters. Endpoints side by side; one endpoint's messages of a batch one after the other, so the
 * second sees what the first taught (an open circuit). The result says, per message, whether it is
 * done (the queue deletes it) or comes back (hidden, or an error to retry).
 *
 * What is written, when: nothing per delivery on the happy path (the last success at most every 5
 * minutes per endpoint); a failure writes the endpoint's health; an operational event is published
 * before the mark it announces is written (a dead letter, the endpoint disabled), so a crash in
 * between publishes it again with the same eventId.
 */
import { logger } from '../common/logger';
import type { EventSink } from '../events/event-sink';
import {
  type Decision,
  decide,
  failedTooLong,
  failureOf,
  healthAfterFailure,
  healthAfterSuccess,
  nextAttempt,
  withProbe,
} from './delivery-decision';
import type { DeliveryMessage } from './delivery-message';
import { parseDeliveryMessage, webhookBody } from './delivery-message';
import {
  type DeliveryQueue,
  delaySecondsUntil,
  MAX_DELAY_SECONDS,
  MAX_HIDE_SECONDS,
  type ReceivedDelivery,
} from './delivery-queue';
import type { DeliveryReport } from './delivery-report';
import type { Endpoint } from './endpoint';
import type { CachedEndpoint, EndpointRegistry, HealthCache } from './endpoint-cache';
import type { AttemptOutcome, DeliveryRequest } from './http-delivery';
import { keysOf, type SigningKeyStore } from './signing-keys';
import { deliveryFailedEvent, endpointDisabledEvent } from './webhook-events';
import { signedHeaders } from './webhook-signature';
import type { EndpointHealth, WebhookStore } from './webhook-store';

export interface DeliverDeps {
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
  /** An attempt's longest duration: none starts when less than this is left before the deadline. */
  readonly attemptBudgetMs: number;
}

/** `done`: delete it; `back`: it comes back (hidden for its wait, or visible again after an error). */
export type Settlement = 'done' | 'back';

export async function deliverBatch(
  deps: DeliverDeps,
  records: readonly ReceivedDelivery[],
  deadlineMs: number,
): Promise<Map<string, Settlement>> {
  const settled = new Map<string, Settlement>();
  const groups = new Map<string, { record: ReceivedDelivery; message: DeliveryMessage }[]>();
  for (const record of records) {
    try {
      const message = parseDeliveryMessage(record.body);
      groups.set(message.ep, [...(groups.get(message.ep) ?? []), { record, message }]);
    } catch (err) {
      logger.error('malformed webhook delivery message dropped', {
        messageId: record.messageId,
        reason: (err as Error).message,
      });
      settled.set(record.messageId, 'done');
    }
  }
  const health = await deps.health.get([...groups.keys()]);
  await Promise.all(
    [...groups].map(async ([endpointId, items]) => {
      const cached = await deps.registry.get(endpointId);
      if (cached?.endpoint.metrics) deps.report.measure(endpointId);
      let current = health.get(endpointId)!;
      for (const { record, message } of items) {
        try {
          const result = await deliverOne(deps, { record, message, cached, health: current, deadlineMs });
          current = result.health;
          settled.set(record.messageId, result.settlement);
        } catch (err) {
          logger.error('webhook delivery failed unexpectedly, retried', {
            endpointId,
            webhookId: message.id,
            error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
          });
          deps.report.add(endpointId, message.id, 'error', { ageMs: deps.now() - message.q });
          deps.health.forget(endpointId);
          settled.set(record.messageId, 'back');
        }
      }
    }),
  );
  return settled;
}

interface One {
  readonly record: ReceivedDelivery;
  readonly message: DeliveryMessage;
  readonly cached: CachedEndpoint | undefined;
  readonly health: EndpointHealth;
  readonly deadlineMs: number;
}

interface OneResult {
  readonly settlement: Settlement;
  readonly health: EndpointHealth;
}

async function deliverOne(deps: DeliverDeps, one: One): Promise<OneResult> {
  const { message, health } = one;
  const endpoint = one.cached?.endpoint;
  const now = deps.now();
  const decision: Decision = decide(message, endpoint, health, now, deps.random);
  const age = { ageMs: now - message.q };
  switch (decision.kind) {
    case 'drop':
      logger.warn('webhook delivery dropped', {
        endpointId: message.ep,
        webhookId: message.id,
        reason: decision.why,
      });
      deps.report.add(message.ep, message.id, 'dropped');
      return { settlement: 'done', health };
    case 'dead':
      await deadLetter(deps, endpoint!, message, decision.reason);
      return { settlement: 'done', health };
    case 'wait':
      await deps.queue.hide([
        {
          receiptHandle: one.record.receiptHandle,
          seconds: delaySecondsUntil(decision.untilMs, now, MAX_HIDE_SECONDS),
        },
      ]);
      deps.report.add(message.ep, message.id, 'waiting', age);
      return { settlement: 'back', health };
    case 'attempt':
      return attempt(deps, one, endpoint!, decision.probe);
  }
}

async function attempt(deps: DeliverDeps, one: One, endpoint: Endpoint, probe: boolean): Promise<OneResult> {
  const { message } = one;
  let health = one.health;
  if (deps.now() + deps.attemptBudgetMs > one.deadlineMs) {
    // Not enough time left for a whole attempt: it comes back at once, to this or another consumer.
    await deps.queue.hide([{ receiptHandle: one.record.receiptHandle, seconds: 0 }]);
    return { settlement: 'back', health };
  }
  if (probe) {
    const claimed = withProbe(health, deps.now());
    if (!(await deps.store.writeHealth(endpoint.endpointId, claimed, health.rev))) {
      deps.health.forget(endpoint.endpointId);
      await deps.queue.hide([{ receiptHandle: one.record.receiptHandle, seconds: 5 }]);
      deps.report.add(message.ep, message.id, 'waiting', { ageMs: deps.now() - message.q });
      return { settlement: 'back', health };
    }
    health = { ...claimed, rev: health.rev + 1 };
    deps.health.set(endpoint.endpointId, health);
  }
  const entry = await deps.keys.entry(endpoint.secretName, endpoint.endpointId, endpoint.keyVersion);
  if (!entry)
    throw new Error(`no signing key for endpoint ${endpoint.endpointId} (version ${endpoint.keyVersion})`);
  const { keys, headers } = keysOf(entry, deps.now());
  const body = webhookBody(message);
  const signed = signedHeaders(keys, message.id, Math.floor(deps.now() / 1000), body);
  const outcome = await deps.send({
    url: endpoint.url,
    headers: { ...headers, ...signed },
    body,
    secrets: Object.values(headers),
  });
  return outcome.ok
    ? succeeded(deps, endpoint, message, health, outcome)
    : failed(deps, endpoint, message, health, outcome);
}

async function succeeded(
  deps: DeliverDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  health: EndpointHealth,
  outcome: Extract<AttemptOutcome, { ok: true }>,
): Promise<OneResult> {
  const now = deps.now();
  const latencyMs = now - (message.pub ?? message.q);
  const next = healthAfterSuccess(health, {
    at: now,
    status: outcome.status,
    webhookId: message.id,
    latencyMs,
  });
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
  return { settlement: 'done', health: kept };
}

async function failed(
  deps: DeliverDeps,
  endpoint: Endpoint,
  message: DeliveryMessage,
  health: EndpointHealth,
  outcome: Extract<AttemptOutcome, { ok: false }>,
): Promise<OneResult> {
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
    return { settlement: 'done', health: kept };
  }
  if (!tried) {
    await deadLetter(deps, endpoint, attempted, 'schedule-exhausted');
    return { settlement: 'done', health: kept };
  }
  await deps.queue.send([
    { message: tried, delaySeconds: delaySecondsUntil(tried.due, now, MAX_DELAY_SECONDS) },
  ]);
  return { settlement: 'done', health: kept };
}

/**
 * Moves a delivery to the endpoint's dead letters. A delivery whose schedule ran out is announced
 * first (Webhook Delivery Failed); the ones a disabled endpoint leaves are covered by its Webhook
 * Endpoint Disabled event.
 */
async function deadLetter(
  deps: DeliverDeps,
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
  deps: DeliverDeps,
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
