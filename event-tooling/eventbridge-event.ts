/**
 * A bridge event in the shape a consumer's Lambda (or any rule target) receives it from an
 * EventBridge rule: `{ version, id, detail-type, source, account, time, region, resources, detail }`.
 * EventBridge writes `time` to the second (`2026-03-02T06:00:00Z`), from the PutEvents entry's
 * Time (the publisher sets it to `detail.occurredAt`). A replayed event also carries
 * `replay-name` (the name of the replay), which this module adds when asked to. The fields and
 * their types are the zod envelope's (../events/eventbridge-envelope.ts).
 */
import { createHash } from 'node:crypto';
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { BridgeEvent } from '../lambdas/events/catalog';
import type { EventBridgeEnvelopeFields } from '../lambdas/events/eventbridge-envelope';

/** The delivered event: the envelope's fields (../events/eventbridge-envelope.ts) around `detail`. */
export type EventBridgeDelivery<D = BridgeEvent['detail']> = Readonly<
  Omit<EventBridgeEnvelopeFields, 'version'> & { version: '0'; detail: D }
>;

export interface EventBridgeEventOptions {
  /** The EventBridge `source`. */
  readonly source: string;
  /** @default '123456789012' */
  readonly account?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** The event's `id`. @default a UUID derived from detail.eventId (stable for the same event) */
  readonly id?: string;
  /** Set on events delivered by an archive replay. */
  readonly replayName?: string;
}

export const SAMPLE_ACCOUNT = '123456789012';
export const SAMPLE_REGION = 'us-east-1';

/** EventBridge's `time`: UTC to the second, with Z. */
export function eventBridgeTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19)}Z`;
}

/** A UUID-shaped id derived from `seed` (EventBridge's ids are UUIDs; this one is reproducible). */
export function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function toEventBridgeEvent(
  event: BridgeEvent,
  options: EventBridgeEventOptions,
): EventBridgeDelivery {
  return {
    version: '0',
    id: options.id ?? uuidFrom(`${event.detail.eventId}|${options.source}`),
    'detail-type': event.detailType,
    source: options.source,
    account: options.account ?? SAMPLE_ACCOUNT,
    time: eventBridgeTime(event.detail.occurredAt),
    region: options.region ?? SAMPLE_REGION,
    resources: [],
    detail: event.detail,
    ...(options.replayName ? { 'replay-name': options.replayName } : {}),
  };
}

/** The PutEvents request entry the bridge's publisher sends for the event (Time as ISO 8601 in JSON). */
export function toPutEventsEntry(
  event: BridgeEvent,
  source: string,
  busName?: string,
): Omit<PutEventsRequestEntry, 'Time'> & { Time: string } {
  return {
    Source: source,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
    ...(busName ? { EventBusName: busName } : {}),
    Time: event.detail.occurredAt,
  };
}
