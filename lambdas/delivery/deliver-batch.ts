/**
 * The delivery use case (the delivery Lambda): a batch of received delivery messages (retries, and
 * the deliveries the fan-out did not attempt itself: paced, held to the queue, circuit open,
 * redriven), each decided (./delivery-decision.ts), attempted and settled (./attempt-outcome.ts):
 * delivered, queued again for its next attempt, hidden until it is due or its endpoint's circuit
 * lets it through, or moved to the endpoint's dead letters. Endpoints side by side; one endpoint's
 * messages of a batch one after the other, so the second sees what the first taught (an open
 * circuit). The result says, per message, whether it is done (the queue deletes it) or comes back
 * (hidden, or an error to retry).
 */
import { logger } from '../common/logger';
import { type AttemptDeps, deadLetter, failed, sendSigned, succeeded } from './attempt-outcome';
import { type Decision, decide, withProbe } from './delivery-decision';
import type { DeliveryMessage } from './delivery-message';
import { parseDeliveryMessage } from './delivery-message';
import { delaySecondsUntil, MAX_HIDE_SECONDS, type ReceivedDelivery } from './delivery-queue';
import type { Endpoint } from './endpoint';
import type { CachedEndpoint } from './endpoint-cache';
import type { EndpointHealth } from './webhook-store';

export interface DeliverDeps extends AttemptDeps {
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
  const outcome = await sendSigned(deps, endpoint, message);
  if (outcome.ok)
    return { settlement: 'done', health: await succeeded(deps, endpoint, message, health, outcome) };
  if (outcome.kind === 'handoff') throw new Error('an attempt without a budget was handed off');
  return { settlement: 'done', health: await failed(deps, endpoint, message, health, outcome) };
}
