/**
 * Building events: fills in the envelope (deterministic eventId, version, source, UTC times),
 * applies the club's PII policy to `data`, and validates the result against the catalog, so a
 * producer finds a mistake where it makes it rather than at PutEvents time.
 *
 *   const event = createEvent(DETAIL_TYPES.MemberStatusChanged, {
 *     clubId, identity: [member.Number, 'PaymentIssue'], occurredAt, subject: { memberNumber },
 *     piiPolicy: club.piiPolicy,
 *   }, { data: member, previousStatus: 'Active', status: 'PaymentIssue' });
 */
import {
  type BridgeEventOf,
  type BridgeSource,
  type DetailType,
  EVENT_SCHEMAS,
  EVENT_VERSION,
  type EventDetail,
  type EventEnvelope,
  EventValidationError,
  type Subject,
  validateEvent,
} from './catalog';
import { makeEventId } from './event-id';
import { applyPiiPolicy, DEFAULT_PII_POLICY, type PiiPolicy } from './pii';

export interface EnvelopeOptions {
  readonly clubId: string;
  /**
   * Identity of what the event is about, beyond club, source and detail-type: the record's
   * identity and the change (e.g. `[memberNumber, newStatus]`, `[paymentId, response]`).
   * The same identity always gives the same eventId.
   */
  readonly identity: readonly string[];
  /** When it happened, in UTC (a Date, or an ISO string with Z). */
  readonly occurredAt: Date | string;
  /** The zone-less local value the API gave, if it gave local time. */
  readonly occurredAtLocal?: string;
  /** When the bridge saw it. @default now */
  readonly observedAt?: Date | string;
  readonly subject?: Subject;
  /** The club's PII policy, applied to `data`. @default 'minimal' (privacy unless a club opts in) */
  readonly piiPolicy?: PiiPolicy;
}

/** The fields of a detail other than the envelope. */
export type EventPayload<T extends DetailType> = Omit<EventDetail<T>, keyof EventEnvelope>;

/** The `detail.source` every event of a detail-type carries. */
export function sourceOf(detailType: DetailType): BridgeSource {
  return EVENT_SCHEMAS[detailType].shape.source.value;
}

export function createEvent<T extends DetailType>(
  detailType: T,
  options: EnvelopeOptions,
  payload: EventPayload<T>,
): BridgeEventOf<T> {
  const source = sourceOf(detailType);
  const policy = options.piiPolicy ?? DEFAULT_PII_POLICY;
  const body = payload as Record<string, unknown>;
  const detail: Record<string, unknown> = {
    eventId: makeEventId(options.clubId, source, detailType, ...options.identity),
    eventVersion: EVENT_VERSION,
    clubId: options.clubId,
    source,
    occurredAt: toUtcIso(options.occurredAt, 'occurredAt'),
    ...(options.occurredAtLocal === undefined ? {} : { occurredAtLocal: options.occurredAtLocal }),
    observedAt: toUtcIso(options.observedAt ?? new Date(), 'observedAt'),
    subject: options.subject ?? {},
    ...body,
    ...('data' in body ? { data: applyPiiPolicy(body.data, policy, detailType) } : {}),
  };
  return validateEvent({ detailType, detail }) as BridgeEventOf<T>;
}

/** `YYYY-MM-DDTHH:mm:ss.sssZ`, the form `Date#toISOString` writes (years 0000-9999). */
const CANONICAL_UTC = /^\d{4}-\d{2}-(\d{2})T(\d{2}):\d{2}:\d{2}\.\d{3}Z$/;

/** The last Date converted: every event of a poll carries the same `observedAt`. */
let lastDateMs = Number.NaN;
let lastDateIso = '';

function toUtcIso(value: Date | string, field: string): string {
  if (typeof value === 'string') {
    // Already canonical: parsing and formatting would give the same string back, except for a day
    // V8 rolls over (29-31 beyond the month's end) or 24:00, which take the general path below, as
    // do invalid fields (Date.parse gives NaN).
    const canonical = CANONICAL_UTC.exec(value);
    if (canonical) {
      const day = Number(canonical[1]);
      if (day >= 1 && day <= 28 && Number(canonical[2]) <= 23 && !Number.isNaN(Date.parse(value)))
        return value;
    }
  } else {
    const ms = value.getTime();
    if (ms === lastDateMs) return lastDateIso;
  }
  const date = typeof value === 'string' ? new Date(value) : value;
  if (typeof value === 'string' && !/(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    throw new EventValidationError(`${field} must be UTC or carry an offset, got a zone-less time`);
  }
  if (Number.isNaN(date.getTime())) throw new EventValidationError(`${field} is not a valid time`);
  const iso = date.toISOString();
  if (typeof value !== 'string') {
    lastDateMs = date.getTime();
    lastDateIso = iso;
  }
  return iso;
}
