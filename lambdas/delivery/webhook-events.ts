/**
 * The webhook delivery's operational events (catalog: Webhook Delivery Failed, Webhook Endpoint
 * Disabled), built with the catalog's createEvent. Their eventIds are stable (derived from the
 * endpoint, the undelivered event and when it was first queued; from the endpoint, the reason and
 * the episode it was enabled in), so publishing again after a crash publishes the same events, and
 * the mark that follows (a dead letter, the endpoint disabled) is written only after the publish.
 * The endpoint's URL is never in them, only its host.
 */
import { type BridgeEvent, DETAIL_TYPES } from '../events/catalog';
import { createEvent } from '../events/envelope';
import { hostOf } from './address-policy';
import type { DeliveryMessage } from './delivery-message';
import type { Endpoint } from './endpoint';
import type { HealthFailure } from './webhook-store';

const iso = (ms: number) => new Date(ms).toISOString();
const clubOf = (message: Pick<DeliveryMessage, 'data'>) =>
  typeof message.data.clubId === 'string' && message.data.clubId ? message.data.clubId : 'unknown';

/** A delivery whose schedule ran out and is now a dead letter. */
export function deliveryFailedEvent(
  endpoint: Endpoint,
  message: DeliveryMessage,
  nowMs: number,
): BridgeEvent {
  return createEvent(
    DETAIL_TYPES.WebhookDeliveryFailed,
    {
      clubId: clubOf(message),
      identity: [endpoint.endpointId, message.id, String(message.q)],
      occurredAt: iso(nowMs),
      observedAt: iso(nowMs),
    },
    {
      endpointId: endpoint.endpointId,
      endpointHost: hostOf(endpoint.url),
      reason: 'schedule-exhausted',
      webhookId: message.id,
      webhookType: message.type,
      attempts: message.n,
      firstQueuedAt: iso(message.q),
      ...(message.la === undefined ? {} : { lastAttemptAt: iso(message.la) }),
      lastStatus: message.ls ?? null,
      lastError: (message.le ?? 'no attempt: the endpoint kept failing').slice(0, 300),
    },
  );
}

/** The endpoint disabled by the bridge: it answered 410, or failed everything for 5 days. */
export function endpointDisabledEvent(
  endpoint: Endpoint,
  reason: 'gone' | 'failing',
  failure: HealthFailure,
  failingSince: number | undefined,
  message: DeliveryMessage,
): BridgeEvent {
  return createEvent(
    DETAIL_TYPES.WebhookEndpointDisabled,
    {
      clubId: failure.clubId ?? clubOf(message),
      identity: [endpoint.endpointId, reason, endpoint.enabledAt],
      occurredAt: iso(failure.at),
      observedAt: iso(failure.at),
    },
    {
      endpointId: endpoint.endpointId,
      endpointHost: hostOf(endpoint.url),
      reason,
      lastStatus: failure.status ?? null,
      lastError: failure.error.slice(0, 300),
      ...(failingSince === undefined ? {} : { failingSince: iso(failingSince) }),
    },
  );
}
