/**
 * The event catalog: the one source of truth for every event the bridge publishes.
 *
 * - `DETAIL_TYPES` are the EventBridge detail-type names, used by the publisher, the CDK rules,
 *   the JSON Schemas and the generated docs (docs/events.md).
 * - Each detail is a strict zod object: the shared envelope plus the fields of its type. Strict,
 *   so a producer cannot publish a misspelt field; the exported JSON Schemas leave
 *   `additionalProperties` open instead, so consumers tolerate fields added within a version.
 * - Types come from `z.infer`; JSON Schema (draft-04, for the EventBridge schema registry) from
 *   `z.toJSONSchema`.
 *
 * The names are in ./event-names.ts, the detail schemas in ./event-details.ts (record and
 * operational events) and ./lifecycle-details.ts (lifecycle events, docs/lifecycle.md), the
 * descriptions in ./event-descriptions.ts (all re-exported here); this module gathers them into
 * `EVENT_SCHEMAS`, validates events and gives their JSON Schemas.
 */

import { z } from 'zod';
import {
  ClassAttendanceRecordedDetail,
  ClubCredentialsRejectedDetail,
  ClubDataStaleDetail,
  ClubQuotaLowDetail,
  ClubSourceUnavailableDetail,
  DisbursementRecordedDetail,
  MemberContactPreferencesChangedDetail,
  MemberJoinedDetail,
  MemberSentToDebtCollectionDetail,
  MemberStatusChangedDetail,
  MembershipCancelledDetail,
  MemberVisitRecordedDetail,
  PaymentFailedDetail,
  PaymentRefundedDetail,
  PaymentSucceededDetail,
  PosTransactionRecordedDetail,
  ProspectCreatedDetail,
  ProspectStatusChangedDetail,
  WebhookDeliveryFailedDetail,
  WebhookEndpointDisabledDetail,
} from './event-details';
import { EVENT_ID_PATTERN } from './event-id-pattern';
import {
  ALL_DETAIL_TYPES,
  DETAIL_TYPES,
  type DetailType,
  type DetailTypeKey,
  EVENT_VERSION,
} from './event-names';
import {
  MemberFirstVisitDetail,
  MemberInactiveDetail,
  MemberReturnedDetail,
  MembershipExpiringDetail,
  PaymentRecoveredDetail,
  ProspectTrialEndingDetail,
} from './lifecycle-details';

export * from './event-descriptions';
export * from './event-details';
export * from './event-names';
export * from './lifecycle-details';

// ---------------------------------------------------------------------------------------------
// The catalog

export const EVENT_SCHEMAS = {
  [DETAIL_TYPES.MemberVisitRecorded]: MemberVisitRecordedDetail,
  [DETAIL_TYPES.PaymentSucceeded]: PaymentSucceededDetail,
  [DETAIL_TYPES.PaymentFailed]: PaymentFailedDetail,
  [DETAIL_TYPES.PaymentRefunded]: PaymentRefundedDetail,
  [DETAIL_TYPES.PosTransactionRecorded]: PosTransactionRecordedDetail,
  [DETAIL_TYPES.DisbursementRecorded]: DisbursementRecordedDetail,
  [DETAIL_TYPES.MemberSentToDebtCollection]: MemberSentToDebtCollectionDetail,
  [DETAIL_TYPES.MemberJoined]: MemberJoinedDetail,
  [DETAIL_TYPES.MemberStatusChanged]: MemberStatusChangedDetail,
  [DETAIL_TYPES.MembershipCancelled]: MembershipCancelledDetail,
  [DETAIL_TYPES.MemberContactPreferencesChanged]: MemberContactPreferencesChangedDetail,
  [DETAIL_TYPES.ProspectCreated]: ProspectCreatedDetail,
  [DETAIL_TYPES.ProspectStatusChanged]: ProspectStatusChangedDetail,
  [DETAIL_TYPES.ClassAttendanceRecorded]: ClassAttendanceRecordedDetail,
  [DETAIL_TYPES.MemberFirstVisit]: MemberFirstVisitDetail,
  [DETAIL_TYPES.MemberInactive]: MemberInactiveDetail,
  [DETAIL_TYPES.MemberReturned]: MemberReturnedDetail,
  [DETAIL_TYPES.MembershipExpiring]: MembershipExpiringDetail,
  [DETAIL_TYPES.PaymentRecovered]: PaymentRecoveredDetail,
  [DETAIL_TYPES.ProspectTrialEnding]: ProspectTrialEndingDetail,
  [DETAIL_TYPES.ClubCredentialsRejected]: ClubCredentialsRejectedDetail,
  [DETAIL_TYPES.ClubQuotaLow]: ClubQuotaLowDetail,
  [DETAIL_TYPES.ClubDataStale]: ClubDataStaleDetail,
  [DETAIL_TYPES.ClubSourceUnavailable]: ClubSourceUnavailableDetail,
  [DETAIL_TYPES.WebhookDeliveryFailed]: WebhookDeliveryFailedDetail,
  [DETAIL_TYPES.WebhookEndpointDisabled]: WebhookEndpointDisabledDetail,
} as const satisfies Record<DetailType, z.ZodType>;

export type EventSchemas = typeof EVENT_SCHEMAS;
export type EventDetail<T extends DetailType = DetailType> = z.infer<EventSchemas[T]>;

/** One event: its detail-type and its detail, discriminated by `detailType`. */
export type BridgeEvent = { [T in DetailType]: { detailType: T; detail: EventDetail<T> } }[DetailType];
export type BridgeEventOf<T extends DetailType> = Extract<BridgeEvent, { detailType: T }>;

/** The envelope fields every detail has. */
export type EventEnvelope = Pick<
  EventDetail,
  | 'eventId'
  | 'eventVersion'
  | 'clubId'
  | 'source'
  | 'occurredAt'
  | 'occurredAtLocal'
  | 'observedAt'
  | 'subject'
>;

export const isDetailType = (value: unknown): value is DetailType =>
  typeof value === 'string' && (ALL_DETAIL_TYPES as string[]).includes(value);

/** `DETAIL_TYPES` key of a detail-type: 'Member Visit Recorded' -> 'MemberVisitRecorded'. */
export function detailTypeKey(detailType: DetailType): DetailTypeKey {
  const entry = Object.entries(DETAIL_TYPES).find(([, value]) => value === detailType);
  if (!entry) throw new EventValidationError(`unknown detail-type '${detailType}'`);
  return entry[0] as DetailTypeKey;
}

/** File-name form of a detail-type: 'POS Transaction Recorded' -> 'pos-transaction-recorded'. */
export const detailTypeFileName = (detailType: DetailType): string =>
  detailType.toLowerCase().replace(/[^a-z0-9]+/g, '-');

// ---------------------------------------------------------------------------------------------
// Validation and JSON Schema

export class EventValidationError extends Error {
  override readonly name = 'EventValidationError';
  /** Paths and messages of the problems; never the values, which may hold personal data. */
  readonly issues: readonly string[];
  constructor(message: string, options?: { issues?: readonly string[]; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.issues = options?.issues ?? [];
  }
}

/**
 * Validates an event (detail-type known, detail matching its schema) and returns it typed.
 * Throws `EventValidationError`; its message names the detail-type, eventId and failing paths.
 */
export function validateEvent(event: unknown): BridgeEvent {
  if (typeof event !== 'object' || event === null) throw new EventValidationError('event is not an object');
  const { detailType, detail } = event as { detailType?: unknown; detail?: unknown };
  if (!isDetailType(detailType)) {
    throw new EventValidationError(`unknown detail-type ${JSON.stringify(String(detailType)).slice(0, 80)}`);
  }
  const result = EVENT_SCHEMAS[detailType].safeParse(detail);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(detail)'}: ${issue.message}`,
    );
    const eventId = (detail as { eventId?: unknown } | undefined)?.eventId;
    const id = typeof eventId === 'string' && EVENT_ID_PATTERN.test(eventId) ? ` ${eventId}` : '';
    throw new EventValidationError(`invalid '${detailType}' event${id}: ${issues.slice(0, 5).join('; ')}`, {
      issues,
      cause: result.error,
    });
  }
  return { detailType, detail: result.data } as BridgeEvent;
}

export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema (draft-04, what the EventBridge schema registry's JSONSchemaDraft4 type takes) of
 * one event's `detail`. Objects are left open (no `additionalProperties: false`): consumers must
 * accept fields added within the same `eventVersion`.
 */
export function eventJsonSchema(detailType: DetailType): JsonSchema {
  const schema = EVENT_SCHEMAS[detailType];
  const json = z.toJSONSchema(schema, {
    target: 'draft-04',
    io: 'output',
    override: (ctx) => {
      if (ctx.jsonSchema.additionalProperties === false) delete ctx.jsonSchema.additionalProperties;
    },
  }) as JsonSchema;
  return {
    $schema: json.$schema,
    title: detailType,
    description: `detail of the '${detailType}' event (gym-bridge, eventVersion ${EVENT_VERSION})`,
    ...Object.fromEntries(Object.entries(json).filter(([key]) => key !== '$schema')),
  };
}

/** Every event's JSON Schema, keyed by detail-type. */
export function allEventJsonSchemas(): Record<DetailType, JsonSchema> {
  return Object.fromEntries(ALL_DETAIL_TYPES.map((t) => [t, eventJsonSchema(t)])) as Record<
    DetailType,
    JsonSchema
  >;
}
