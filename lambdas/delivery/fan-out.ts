/**
 * The fan-out: the bus's events (one EventBridge rule, whatever the number of endpoints: rules per
 * bus are a quota of 300) matched against every endpoint's filter, kept in memory, and one delivery
 * per (event, matching endpoint). A delivery to an endpoint that is healthy, not held to the queue
 * and under its rate is attempted here at once (./first-attempt.ts: with a short budget, side by
 * side, one per endpoint in an invocation); every other one, and one handed off by its first
 * attempt, is queued on the delivery queue, grouped by endpoint, for the delivery Lambda.
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
import { attemptsInline } from './delivery-decision';
import { type BusEvent, type DeliveryMessage, newDeliveryMessage } from './delivery-message';
import { type DeliveryQueue, delaySecondsUntil, MAX_DELAY_SECONDS } from './delivery-queue';
import type { Endpoint } from './endpoint';
import type { CachedEndpoint, EndpointRegistry } from './endpoint-cache';
import { attemptFirst, type FirstAttemptDeps } from './first-attempt';
import type { EndpointHealth } from './webhook-store';

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
  /** First attempts made here (with their report); without, every delivery is queued. */
  readonly firstAttempt?: FirstAttemptDeps;
}

/** An event read from the ingest queue, with the id of the record it came in. */
export interface IncomingEvent {
  readonly recordId: string;
  readonly body: string;
}

export interface FanOutResult {
  /** Records whose deliveries could not all be attempted or queued (the queue gives them back). */
  readonly failedRecordIds: readonly string[];
  /** Deliveries made of the events (each event times its matching endpoints). */
  readonly deliveries: number;
  /** Of them, attempted here first (delivered, failed or handed off), and queued without one. */
  readonly attempted: number;
  readonly queued: number;
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

/** The bridge event a record carries, or why it is not one (no part of the body is quoted). */
function parseBusEvent(body: string): BusEvent | { readonly notAnEvent: string } {
  let event: Partial<BusEvent> | null;
  try {
    event = JSON.parse(body) as Partial<BusEvent> | null;
  } catch {
    return { notAnEvent: 'the body is not JSON' };
  }
  if (!event || typeof event !== 'object') return { notAnEvent: 'the body is not a JSON object' };
  if (typeof event['detail-type'] !== 'string') return { notAnEvent: 'it has no detail-type' };
  const detail = event.detail;
  if (!detail || typeof detail !== 'object') return { notAnEvent: 'it has no detail object' };
  if (typeof detail.eventId !== 'string' || detail.eventId === '')
    return { notAnEvent: 'its detail has no eventId' };
  return event as BusEvent;
}

/** A delivery the fan-out made, with the record its event came in. */
interface Planned {
  readonly recordId: string;
  readonly message: DeliveryMessage;
  readonly endpoint: Endpoint;
}

export async function fanOut(deps: FanOutDeps, incoming: readonly IncomingEvent[]): Promise<FanOutResult> {
  const endpoints = await deps.registry.all();
  const now = deps.now();
  const planned: Planned[] = [];
  let events = 0;
  for (const { recordId, body } of incoming) {
    const event = parseBusEvent(body);
    if ('notAnEvent' in event) {
      logger.error('webhook fan-out: not a bridge event, left out', { recordId, reason: event.notAnEvent });
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
      planned.push({ recordId, message, endpoint });
    }
  }
  const { inline, queued } = await firstAttemptsOf(deps, planned, now);
  const failed = new Set<string>();
  const [handedOff] = await Promise.all([
    deps.firstAttempt && inline.length > 0 ? attemptFirst(deps.firstAttempt, inline) : [],
    queueAll(deps, queued, failed, true),
  ]);
  await queueAll(deps, handedOff, failed, false);
  return {
    failedRecordIds: [...failed],
    deliveries: planned.filter((p) => !failed.has(p.recordId)).length,
    attempted: inline.length,
    queued: queued.length,
    events,
  };
}

/**
 * The deliveries attempted here (due now, the first of their endpoint in this invocation, the
 * endpoint healthy and not held to the queue: its health read in one call, cached a few seconds),
 * and the others. Without first attempts, or when the health cannot be read, all are queued.
 */
async function firstAttemptsOf(
  deps: FanOutDeps,
  planned: readonly Planned[],
  now: number,
): Promise<{ inline: (Planned & { health: EndpointHealth })[]; queued: Planned[] }> {
  const first = deps.firstAttempt;
  const seen = new Set<string>();
  const candidates = planned.filter((p) => {
    if (!first || p.message.due > now || seen.has(p.message.ep)) return false;
    seen.add(p.message.ep);
    return true;
  });
  if (!first || candidates.length === 0) return { inline: [], queued: [...planned] };
  let health: Map<string, EndpointHealth>;
  try {
    health = await first.health.get([...seen]);
  } catch (err) {
    logger.warn('webhook fan-out: endpoint health unread, every delivery queued', {
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    return { inline: [], queued: [...planned] };
  }
  const chosen = new Set(candidates.filter((p) => attemptsInline(health.get(p.message.ep)!, now)));
  const inline = [...chosen].map((p) => ({ ...p, health: health.get(p.message.ep)! }));
  return { inline, queued: planned.filter((p) => !chosen.has(p)) };
}

/** Queues deliveries, ten a request; a failed request's records come back (`failed`). */
async function queueAll(
  deps: FanOutDeps,
  items: readonly Planned[],
  failed: Set<string>,
  report: boolean,
): Promise<void> {
  for (let i = 0; i < items.length; i += 10) {
    const batch = items.slice(i, i + 10);
    const now = deps.now();
    try {
      await deps.queue.send(
        batch.map((q) => ({
          message: q.message,
          delaySeconds: delaySecondsUntil(q.message.due, now, MAX_DELAY_SECONDS),
        })),
      );
      if (report) for (const q of batch) deps.firstAttempt?.report.add(q.message.ep, q.message.id, 'queued');
    } catch (err) {
      for (const q of batch) failed.add(q.recordId);
      logger.error('webhook fan-out: deliveries not queued, the events come back', {
        deliveries: batch.length,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
    }
  }
}
