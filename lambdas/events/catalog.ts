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
 */

import { z } from 'zod';
import { SOURCE_NAMES } from '../common/source-names';
import { dateTime as localDateTime } from '../gym-api/schemas';
import {
  ClassAttendanceData,
  DebtCollectionData,
  DisbursementData,
  Int64String,
  MemberData,
  MemberVisitData,
  PaymentData,
  PosTransactionData,
  ProspectData,
} from './event-data';
import { EVENT_ID_PATTERN } from './event-id-pattern';

/** The EventBridge `source` of every event unless a deployment configures its own. */
export const DEFAULT_EVENT_SOURCE = 'gym-bridge';

/** Version of the detail layout; bumped only for incompatible changes. */
export const EVENT_VERSION = 1;

export const DETAIL_TYPES = {
  MemberVisitRecorded: 'Member Visit Recorded',
  PaymentSucceeded: 'Payment Succeeded',
  PaymentFailed: 'Payment Failed',
  PaymentRefunded: 'Payment Refunded',
  PosTransactionRecorded: 'POS Transaction Recorded',
  DisbursementRecorded: 'Disbursement Recorded',
  MemberSentToDebtCollection: 'Member Sent To Debt Collection',
  MemberJoined: 'Member Joined',
  MemberStatusChanged: 'Member Status Changed',
  MembershipCancelled: 'Membership Cancelled',
  MemberContactPreferencesChanged: 'Member Contact Preferences Changed',
  ProspectCreated: 'Prospect Created',
  ProspectStatusChanged: 'Prospect Status Changed',
  ClassAttendanceRecorded: 'Class Attendance Recorded',
  ClubCredentialsRejected: 'Club Credentials Rejected',
  ClubQuotaLow: 'Club Quota Low',
  ClubDataStale: 'Club Data Stale',
  ClubSourceUnavailable: 'Club Source Unavailable',
} as const;

export type DetailTypeKey = keyof typeof DETAIL_TYPES;
export type DetailType = (typeof DETAIL_TYPES)[DetailTypeKey];

export const ALL_DETAIL_TYPES = Object.values(DETAIL_TYPES) as DetailType[];

/** The bridge's data sources (one per API list operation) that produce events. */
export const DATA_SOURCES = SOURCE_NAMES;
export type DataSource = (typeof DATA_SOURCES)[number];

/** `detail.source`: the data source of a record event, or 'bridge' for operational events. */
export const BRIDGE_SOURCES = [...DATA_SOURCES, 'bridge'] as const;
export type BridgeSource = (typeof BRIDGE_SOURCES)[number];

// ---------------------------------------------------------------------------------------------
// Envelope

const utcDateTime = z.iso.datetime().describe('UTC, ISO 8601 with Z');

export const SubjectSchema = z
  .strictObject({
    memberNumber: z.string().optional().describe('Member number, when the event is about a member'),
    prospectNumber: z.string().optional().describe('Prospect number, when the event is about a prospect'),
  })
  .describe('Who the event is about');
export type Subject = z.infer<typeof SubjectSchema>;

function envelope<S extends BridgeSource>(source: S) {
  return {
    eventId: z
      .string()
      .regex(EVENT_ID_PATTERN)
      .describe('Deterministic id (32 hex): the same change always has the same id; de-duplicate on it'),
    eventVersion: z.literal(EVENT_VERSION).describe('Version of this detail layout'),
    clubId: z.string().min(1).describe('The club the event belongs to'),
    source: z.literal(source).describe('The bridge source that produced the event'),
    occurredAt: utcDateTime.describe('When it happened, UTC (converted with the club time zone)'),
    occurredAtLocal: localDateTime
      .optional()
      .describe('The original zone-less gym-local value, when the API gave local time'),
    observedAt: utcDateTime.describe('When the bridge saw it, UTC'),
    subject: SubjectSchema,
  };
}

// ---------------------------------------------------------------------------------------------
// Details

const money = z.number().describe('Amount as a number (currency of the club)');
const newStatus = z.string().min(1);

export const MemberVisitRecordedDetail = z.strictObject({
  ...envelope('visits'),
  data: MemberVisitData.describe('The MemberVisit record'),
});

const paymentFields = {
  ...envelope('paymentHistory'),
  data: PaymentData.describe('The MemberPaymentHistory record'),
  paymentId: Int64String.describe('Payment history id (int64 as a string)'),
  paymentType: z.string().optional().describe('DD = direct debit, CC = credit card, other values exist'),
  response: z.string().describe('The Response text of the payment attempt (empty when the API gave none)'),
  amount: money.optional().describe('Sum of the FeeBreakdown amounts, when a breakdown is present'),
  isDishonourFee: z
    .boolean()
    .optional()
    .describe('True when this payment charges a DishonourFee for an earlier dishonour'),
};

export const PaymentSucceededDetail = z.strictObject(paymentFields);

export const PAYMENT_FAILURE_REASONS = ['declined', 'dishonoured', 'unknown-response'] as const;
export type PaymentFailureReason = (typeof PAYMENT_FAILURE_REASONS)[number];

export const PaymentFailedDetail = z.strictObject({
  ...paymentFields,
  reason: z
    .enum(PAYMENT_FAILURE_REASONS)
    .describe('declined (card or account refused), dishonoured (taken, then returned), unknown-response'),
  previousResponse: z
    .string()
    .optional()
    .describe('The earlier Response of the same payment, when a succeeded payment later failed'),
});

export const PaymentRefundedDetail = z.strictObject({
  ...envelope('paymentHistory'),
  data: PaymentData.describe('The MemberPaymentHistory record'),
  paymentId: Int64String.describe('Payment history id of the refunded line'),
  refundedPaymentId: Int64String.optional().describe('Refund.RefundedPaymentId, when the API gives it'),
});

export const PosTransactionRecordedDetail = z.strictObject({
  ...envelope('posTransactions'),
  data: PosTransactionData.describe('The MemberPOSTransaction record'),
  posTransactionId: Int64String.describe('POS transaction id (int64 as a string)'),
  totalIncTax: money.describe('TotalIncTax of the transaction'),
});

export const DisbursementRecordedDetail = z.strictObject({
  ...envelope('disbursements'),
  data: DisbursementData.describe('The Disbursement record'),
  amount: money.describe('Amount disbursed'),
});

export const MemberSentToDebtCollectionDetail = z.strictObject({
  ...envelope('debtCollection'),
  data: DebtCollectionData.describe('The DebtCollection record'),
  amount: money.describe('Amount sent to debt collection'),
});

export const MemberJoinedDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record'),
  status: z.string().optional().describe('Member status at joining, when the API gives it'),
  membershipName: z.string().optional().describe('Membership.Name, when the member has a membership'),
});

export const MemberStatusChangedDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record after the change'),
  previousStatus: z.string().nullable().describe('Status before the change (null when it had none)'),
  status: newStatus.describe('Status after the change, e.g. PaymentIssue'),
});

export const MembershipCancelledDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record'),
  cancellationDate: localDateTime.describe('Membership.CancellationDate as given (gym local time)'),
});

const ContactPreferences = z.strictObject({
  optOutEmail: z.boolean().nullable().describe('Contact.OptOutEmail (null when the API gave none)'),
  optOutSms: z.boolean().nullable().describe('Contact.OptOutSms (null when the API gave none)'),
});

export const MemberContactPreferencesChangedDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record after the change'),
  previous: ContactPreferences.describe('Opt-outs before the change'),
  current: ContactPreferences.describe('Opt-outs after the change'),
});

export const ProspectCreatedDetail = z.strictObject({
  ...envelope('prospects'),
  data: ProspectData.describe('The Prospect record'),
  status: z.string().optional().describe('Prospect status, e.g. Enquiry'),
});

export const ProspectStatusChangedDetail = z.strictObject({
  ...envelope('prospects'),
  data: ProspectData.describe('The Prospect record after the change'),
  previousStatus: z.string().nullable().describe('Status before the change (null when it had none)'),
  status: newStatus.describe('Status after the change, e.g. OnTrial or Sale'),
});

export const ClassAttendanceRecordedDetail = z.strictObject({
  ...envelope('classAttendance'),
  data: ClassAttendanceData.describe(
    'The class attendance record (shape not shown by the API): as given under the full PII policy, only fields that name no person under minimal',
  ),
  experimental: z.literal(true).describe('Always true: the shape of data may change'),
});

export const CREDENTIALS_REJECTION_REASONS = ['credentials', 'apiKey', 'unknown'] as const;

export const ClubCredentialsRejectedDetail = z.strictObject({
  ...envelope('bridge'),
  reason: z
    .enum(CREDENTIALS_REJECTION_REASONS)
    .describe('credentials (token call refused), apiKey (data call refused with a valid token), unknown'),
  consecutiveFailures: z.number().int().min(1).describe('Rejections in a row'),
  pausedUntil: utcDateTime.describe('Polling of the club is paused until then, UTC'),
});

export const QUOTA_LOW_REASONS = ['threshold', 'rate-limited'] as const;

export const ClubQuotaLowDetail = z.strictObject({
  ...envelope('bridge'),
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/)
    .describe('Quota month, yyyy-mm'),
  used: z.number().int().min(0).describe('Requests counted this month'),
  limit: z.number().int().min(1).describe('Monthly request quota of the club plan'),
  share: z.number().min(0).max(1).describe('used / limit, capped at 1'),
  reason: z
    .enum(QUOTA_LOW_REASONS)
    .describe('threshold (share crossed the alert level) or rate-limited (the API answered 429)'),
});

export const ClubDataStaleDetail = z.strictObject({
  ...envelope('bridge'),
  staleSource: z.enum(DATA_SOURCES).describe('The data source that has not completed a poll lately'),
  lastSuccessAt: utcDateTime.optional().describe('Last successful poll of that source, UTC'),
  ageSeconds: z.number().min(0).describe('Seconds since the last success (or since tracking began)'),
});

export const SOURCE_UNAVAILABLE_KINDS = [
  'not-found',
  'forbidden',
  'bad-request',
  'unusable-response',
] as const;

export const ClubSourceUnavailableDetail = z.strictObject({
  ...envelope('bridge'),
  unavailableSource: z.enum(DATA_SOURCES).describe('The data source whose endpoint is missing or unusable'),
  kind: z
    .enum(SOURCE_UNAVAILABLE_KINDS)
    .describe(
      'not-found (HTTP 404), forbidden (HTTP 403 that blames no credential), bad-request (HTTP 400, experimental sources only), unusable-response (not a usable page envelope, experimental sources only)',
    ),
  httpStatus: z.number().int().min(100).max(599).optional().describe('The HTTP status, when there was one'),
  error: z.string().max(500).describe('The error as the bridge saw it (credentials and tokens redacted)'),
  experimental: z
    .boolean()
    .describe('True when the source is experimental (its shape is not in the API document)'),
  since: utcDateTime.describe('When the source was first found unavailable, UTC'),
  retryAt: utcDateTime.describe('The source is not polled again before this time, UTC'),
});

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
  [DETAIL_TYPES.ClubCredentialsRejected]: ClubCredentialsRejectedDetail,
  [DETAIL_TYPES.ClubQuotaLow]: ClubQuotaLowDetail,
  [DETAIL_TYPES.ClubDataStale]: ClubDataStaleDetail,
  [DETAIL_TYPES.ClubSourceUnavailable]: ClubSourceUnavailableDetail,
} as const satisfies Record<DetailType, z.ZodType>;

/** When each event is emitted: used by the generated catalog page and as rule descriptions. */
export const EVENT_DESCRIPTIONS: Record<DetailType, string> = {
  [DETAIL_TYPES.MemberVisitRecorded]:
    'A member scanned in at a door (GET /members/attendance/visits). One event per visit record, the first time the bridge sees it. Creche, personal-training and class visits are not in this resource.',
  [DETAIL_TYPES.PaymentSucceeded]:
    'A payment-history record whose Response the payment classifier reads as a success (for example "Approved"). One event per payment id and Response.',
  [DETAIL_TYPES.PaymentFailed]:
    'A payment was declined, a direct debit that had been approved was dishonoured later (the same payment id with a new Response; previousResponse holds the earlier one), or the Response was not recognised (reason unknown-response: an unrecognised Response is never treated as a success).',
  [DETAIL_TYPES.PaymentRefunded]:
    'A payment-history line was marked refunded (Refund.IsRefunded became true).',
  [DETAIL_TYPES.PosTransactionRecorded]:
    'A point-of-sale transaction was recorded (GET /members/pos/transactions).',
  [DETAIL_TYPES.DisbursementRecorded]:
    'A disbursement to the club was recorded (GET /financial/disbursements).',
  [DETAIL_TYPES.MemberSentToDebtCollection]:
    'A member was referred to debt collection (GET /financial/debtcollection).',
  [DETAIL_TYPES.MemberJoined]:
    "A member the bridge had not seen before appeared in GET /members (after the club's silent first baseline).",
  [DETAIL_TYPES.MemberStatusChanged]:
    "A member's Status differs from the stored snapshot, for example Active -> PaymentIssue.",
  [DETAIL_TYPES.MembershipCancelled]: "A member's Membership.CancellationDate was set or changed.",
  [DETAIL_TYPES.MemberContactPreferencesChanged]:
    "A member's Contact.OptOutEmail or Contact.OptOutSms changed.",
  [DETAIL_TYPES.ProspectCreated]:
    "A prospect the bridge had not seen before appeared in GET /prospects (after the club's silent first baseline).",
  [DETAIL_TYPES.ProspectStatusChanged]:
    "A prospect's Status differs from the stored snapshot, for example Tour -> OnTrial.",
  [DETAIL_TYPES.ClassAttendanceRecorded]:
    'A group-class attendance record appeared (GET /members/attendance/classes). Experimental: the API document does not show the shape of these records, so `data` is carried as given (under the minimal PII policy: only fields that name no person) and may change.',
  [DETAIL_TYPES.ClubCredentialsRejected]:
    'The API answered 401 for the club (token or API key refused). Polling of the club pauses with back-off until pausedUntil.',
  [DETAIL_TYPES.ClubQuotaLow]:
    "The club's monthly request count crossed the alert threshold of its plan, or the API answered 429 (quota exceeded).",
  [DETAIL_TYPES.ClubDataStale]:
    'A source of the club has not completed a poll for longer than its staleness limit.',
  [DETAIL_TYPES.ClubSourceUnavailable]:
    "A source's endpoint is missing or refused for the club (HTTP 404, or 403 that blames no credential; for an experimental source also 400 or a response that is not a usable page). The source is marked unavailable and re-tried every 6 hours; the club's other sources go on. Emitted once per episode: a source that comes back and goes away again is a new episode.",
};

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
