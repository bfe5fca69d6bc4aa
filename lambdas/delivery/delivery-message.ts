/**
 * One delivery: an event on its way to one endpoint, as the delivery queue carries it, and the
 * webhook body it becomes. The message holds the event itself (no read per attempt) and the
 * delivery's history: when it was first queued, the attempts made, the last failure. A failed
 * attempt queues the next version of the message; a wait (not yet due, the endpoint's circuit
 * open) keeps the message and hides it (./delivery-queue.ts).
 *
 * The body (Standard Webhooks, "Payload structure"): `{"type": <detail-type>, "timestamp": <when
 * it happened, ISO 8601>, "data": <the detail>}`, minified, the same bytes on every attempt.
 */
import { z } from 'zod';

export const MESSAGE_VERSION = 1;

export const DeliveryMessageSchema = z.object({
  v: z.literal(MESSAGE_VERSION),
  /** The endpoint (also the message group: SQS fair queues keep endpoints apart). */
  ep: z.string().min(1),
  /** The webhook-id: the event's eventId. */
  id: z.string().min(1),
  type: z.string().min(1),
  /** The payload's timestamp: the event's occurredAt (or its time). */
  ts: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
  /** When the event was published (its EventBridge time), ms: latency is measured from it. */
  pub: z.number().optional(),
  /** When the delivery was first queued, ms: the schedule counts from it. */
  q: z.number(),
  /** Not before, ms. */
  due: z.number(),
  /** Attempts made. */
  n: z.number().int().min(0),
  la: z.number().optional(),
  ls: z.number().int().optional(),
  le: z.string().optional(),
  /** Where it came from when not the live bus: a replay's name, or 'redrive'. */
  from: z.string().optional(),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

export class DeliveryMessageError extends Error {
  override readonly name = 'DeliveryMessageError';
}

/** Parses a queued message (a malformed one is a DeliveryMessageError: dropped, logged by id). */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new DeliveryMessageError('not JSON');
  }
  const parsed = DeliveryMessageSchema.safeParse(json);
  if (!parsed.success)
    throw new DeliveryMessageError(`not a delivery message: ${parsed.error.issues[0]?.path.join('.')}`);
  return parsed.data;
}

/** The webhook body of a delivery (the same bytes on every attempt). */
export function webhookBody(message: Pick<DeliveryMessage, 'type' | 'ts' | 'data'>): string {
  return JSON.stringify({ type: message.type, timestamp: message.ts, data: message.data });
}

/** An EventBridge event as the fan-out reads it (rule target form). */
export interface BusEvent {
  readonly 'detail-type': string;
  readonly time?: string;
  readonly detail: Record<string, unknown>;
  readonly 'replay-name'?: string;
}

/** The first version of the message delivering `event` to `endpointId`. */
export function newDeliveryMessage(
  event: BusEvent,
  endpointId: string,
  nowMs: number,
  options: { readonly dueMs?: number; readonly from?: string } = {},
): DeliveryMessage {
  const detail = event.detail;
  const occurredAt = typeof detail.occurredAt === 'string' ? detail.occurredAt : undefined;
  const published = event.time ? Date.parse(event.time) : Number.NaN;
  return {
    v: MESSAGE_VERSION,
    ep: endpointId,
    id: String(detail.eventId),
    type: event['detail-type'],
    ts: occurredAt ?? event.time ?? new Date(nowMs).toISOString(),
    data: detail,
    ...(Number.isFinite(published) && !options.from ? { pub: published } : {}),
    q: nowMs,
    due: options.dueMs ?? nowMs,
    n: 0,
    ...(options.from ? { from: options.from } : {}),
  };
}
