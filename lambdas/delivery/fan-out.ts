/**
 * The fan-out: the bus's events (one EventBridge rule, whatever the number of endpoints: rules per
 * bus are a quota of 300) matched against every endpoint's filter, kept in memory, and one delivery
 * message queued per (event, matching endpoint) on the delivery queue, grouped by endpoint.
 *
 * Rate limit: each fan-out invocation paces an endpoint at `ratePerSecond / fanOutConcurrency`
 * (the message's delay), so the fan-out's invocations together never queue more than the limit a
 * second for it; replays and redrives are paced by the library that queues them
 * (./webhook-admin.ts).
 *
 * Replays: an event replayed from the archive for one endpoint (`webhooks replay`: a replay named
 * `webhooks-<endpointId>-...`) goes to that endpoint only, if its filter matches; replays of any
 * other name are not webhook deliveries and are left out (a consumer's replay must not re-deliver
 * to every endpoint).
 */
import { logger } from '../common/logger';
import { type BusEvent, type DeliveryMessage, newDeliveryMessage } from './delivery-message';
import {
  type DeliveryQueue,
  delaySecondsUntil,
  MAX_DELAY_SECONDS,
  type QueuedDelivery,
} from './delivery-queue';
import type { CachedEndpoint, EndpointRegistry } from './endpoint-cache';

/** Replays for one endpoint are named `webhooks-<endpointId>-<yyyymmddhhmmss>`. */
export const WEBHOOK_REPLAY_PREFIX = 'webhooks-';

export function replayNameFor(endpointId: string, nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
  return `${WEBHOOK_REPLAY_PREFIX}${endpointId}-${stamp}`;
}

export function replayEndpointOf(replayName: string): string | undefined {
  const match = /^webhooks-(ep-[0-9a-f]{16})-\d{14}$/.exec(replayName);
  return match?.[1];
}

/** Per process: the next free moment for each endpoint, at its share of the rate limit. */
export class EndpointPacer {
  readonly #next = new Map<string, number>();
  readonly #share: number;

  /** `share`: the number of processes pacing side by side (each takes 1/share of the rate). */
  constructor(share = 1) {
    this.#share = Math.max(1, share);
  }

  /** The moment a delivery to the endpoint may go, and takes that slot. */
  slot(endpointId: string, ratePerSecond: number, nowMs: number): number {
    const at = Math.max(nowMs, this.#next.get(endpointId) ?? nowMs);
    this.#next.set(endpointId, at + (1000 * this.#share) / ratePerSecond);
    return at;
  }
}

export interface FanOutDeps {
  readonly registry: EndpointRegistry;
  readonly queue: DeliveryQueue;
  readonly pacer: EndpointPacer;
  readonly now: () => number;
}

/** An event read from the ingest queue, with the id of the record it came in. */
export interface IncomingEvent {
  readonly recordId: string;
  readonly body: string;
}

export interface FanOutResult {
  /** Records whose deliveries could not all be queued (the queue gives them back). */
  readonly failedRecordIds: readonly string[];
  readonly deliveries: number;
  readonly events: number;
}

/** The endpoints an event goes to (enabled ones whose filter matches; one for a webhook replay). */
export function endpointsFor(event: BusEvent, endpoints: readonly CachedEndpoint[]): CachedEndpoint[] {
  const replay = event['replay-name'];
  const only = replay === undefined ? undefined : replayEndpointOf(replay);
  if (replay !== undefined && only === undefined) return [];
  return endpoints.filter(
    (c) => c.endpoint.enabled && (only === undefined || c.endpoint.endpointId === only) && c.matches(event),
  );
}

function parseBusEvent(body: string): BusEvent | undefined {
  try {
    const event = JSON.parse(body) as Partial<BusEvent>;
    const detail = event.detail;
    if (typeof event['detail-type'] !== 'string' || !detail || typeof detail !== 'object') return undefined;
    if (typeof detail.eventId !== 'string' || detail.eventId === '') return undefined;
    return event as BusEvent;
  } catch {
    return undefined;
  }
}

export async function fanOut(deps: FanOutDeps, incoming: readonly IncomingEvent[]): Promise<FanOutResult> {
  const endpoints = await deps.registry.all();
  const now = deps.now();
  const queued: { recordId: string; item: QueuedDelivery }[] = [];
  let events = 0;
  for (const { recordId, body } of incoming) {
    const event = parseBusEvent(body);
    if (!event) {
      logger.error('webhook fan-out: not a bridge event, left out', { recordId });
      continue;
    }
    events++;
    for (const { endpoint } of endpointsFor(event, endpoints)) {
      const due = deps.pacer.slot(endpoint.endpointId, endpoint.ratePerSecond, now);
      const replay = event['replay-name'];
      const message: DeliveryMessage = newDeliveryMessage(event, endpoint.endpointId, now, {
        dueMs: due,
        ...(replay ? { from: replay } : {}),
      });
      queued.push({
        recordId,
        item: { message, delaySeconds: delaySecondsUntil(due, now, MAX_DELAY_SECONDS) },
      });
    }
  }
  const failed = new Set<string>();
  for (let i = 0; i < queued.length; i += 10) {
    const batch = queued.slice(i, i + 10);
    try {
      await deps.queue.send(batch.map((q) => q.item));
    } catch (err) {
      for (const q of batch) failed.add(q.recordId);
      logger.error('webhook fan-out: deliveries not queued, the events come back', {
        deliveries: batch.length,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
    }
  }
  return { failedRecordIds: [...failed], deliveries: queued.length - countIn(queued, failed), events };
}

const countIn = (queued: readonly { recordId: string }[], failed: ReadonlySet<string>) =>
  queued.filter((q) => failed.has(q.recordId)).length;
