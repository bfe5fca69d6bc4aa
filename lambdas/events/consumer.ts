/**
 * `@gym-bridge/events`: what a downstream team needs to subscribe to the bridge's bus and parse its
 * events, and nothing else. Its whole import graph is zod, the catalog (./catalog.ts), the API
 * record schemas it embeds (../gym-api/schemas.ts, zod only) and two constant files: no engine, no
 * sandbox, no state store, no AWS SDK, no Node built-in (bench/consumer-bundle.ts proves it on a
 * bundle, test/unit/events/consumer-bundle.test.ts keeps it so).
 *
 * - Constants: `DEFAULT_EVENT_SOURCE`, `EVENT_VERSION`, `DETAIL_TYPES`, `ALL_DETAIL_TYPES`, the enums.
 * - zod schemas per detail (`PaymentFailedDetail`) and per EventBridge event as a rule target
 *   receives it (`PaymentFailedEvent`: version, id, detail-type, source, account, time, region,
 *   resources, detail). They are the catalog's schemas, one source of truth, with one difference:
 *   unknown keys are dropped instead of refused, because fields may be added within an
 *   `eventVersion` (docs/events-versioning.md). Use them with Powertools Parser:
 *   `parse(event, EventBridgeEnvelope, PaymentFailedDetail)`.
 * - Types per detail (`PaymentFailed`) and per event (`PaymentFailedEvent`), from `z.infer`.
 * - JSON Schemas (draft-04): `eventJsonSchema(detailType)` (the detail) and
 *   `eventBridgeEventJsonSchema(detailType)` (the whole event).
 * - `parseBridgeEvent(event)` and `parseDetail(detailType, detail)`: typed results, or an
 *   `EventParseError` naming the detail-type, the eventId and the failing field paths (never values,
 *   which may be personal data).
 *
 * Imported in this repository as `@gym-bridge/events` (tsconfig `paths`, vitest alias) or
 * `gym-bridge/events` (package.json `exports`); outside it, as the package `npm run build:events`
 * builds in dist/events (JS bundle with zod as a peer dependency, declarations, JSON Schemas,
 * AsyncAPI document: lambdas/events/build-package.ts).
 */
import { z } from 'zod';
import {
  ALL_DETAIL_TYPES,
  EVENT_SCHEMAS as CATALOG_SCHEMAS,
  DETAIL_TYPES,
  type DetailType,
  EVENT_VERSION,
  type EventDetail,
  eventJsonSchema,
  isDetailType,
  type JsonSchema,
} from './catalog';
import { EVENT_ID_PATTERN } from './event-id-pattern';

export {
  ALL_DETAIL_TYPES,
  allEventJsonSchemas,
  BRIDGE_SOURCES,
  type BridgeEvent,
  type BridgeEventOf,
  type BridgeSource,
  CREDENTIALS_REJECTION_REASONS,
  DATA_SOURCES,
  type DataSource,
  DEFAULT_EVENT_SOURCE,
  DETAIL_TYPES,
  type DetailType,
  type DetailTypeKey,
  detailTypeFileName,
  EVENT_DESCRIPTIONS,
  EVENT_VERSION,
  type EventDetail,
  type EventEnvelope,
  eventJsonSchema,
  isDetailType,
  type JsonSchema,
  PAYMENT_FAILURE_REASONS,
  type PaymentFailureReason,
  QUOTA_LOW_REASONS,
  SOURCE_UNAVAILABLE_KINDS,
  type Subject,
} from './catalog';
export { EVENT_ID_PATTERN } from './event-id-pattern';

// ---------------------------------------------------------------------------------------------
// Detail schemas: the catalog's, tolerant of added fields

/**
 * The same schema with every strict object (refusing unknown keys, as the producer must) turned
 * into a stripping one (dropping them, as a consumer must: fields are added within a version).
 * Loose objects (the API records in `data`, which keep unknown fields) stay loose. Descriptions
 * are kept. The output type is unchanged: zod infers the same type for strict and strip objects.
 */
function tolerant(schema: z.ZodType): z.ZodType {
  let result: z.ZodType = schema;
  if (schema instanceof z.ZodObject) {
    let changed = false;
    const shape: Record<string, z.ZodType> = {};
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      shape[key] = tolerant(field);
      if (shape[key] !== field) changed = true;
    }
    const strict = schema._zod.def.catchall instanceof z.ZodNever;
    if (!changed && !strict) return schema;
    result = strict ? z.object(shape) : schema.extend(shape);
  } else if (schema instanceof z.ZodOptional) {
    const inner = tolerant(schema.unwrap() as z.ZodType);
    if (inner === schema.unwrap()) return schema;
    result = inner.optional();
  } else if (schema instanceof z.ZodNullable) {
    const inner = tolerant(schema.unwrap() as z.ZodType);
    if (inner === schema.unwrap()) return schema;
    result = inner.nullable();
  } else if (schema instanceof z.ZodArray) {
    const inner = tolerant(schema.element as z.ZodType);
    if (inner === schema.element) return schema;
    result = z.array(inner);
  } else {
    return schema;
  }
  const meta = z.globalRegistry.get(schema);
  return meta ? result.meta(meta) : result;
}

export type EventSchemas = typeof CATALOG_SCHEMAS;

/** zod schema of every detail, keyed by detail-type (unknown keys dropped, see above). */
export const EVENT_SCHEMAS: EventSchemas = Object.fromEntries(
  ALL_DETAIL_TYPES.map((detailType) => [detailType, tolerant(CATALOG_SCHEMAS[detailType])]),
) as unknown as EventSchemas;

// ---------------------------------------------------------------------------------------------
// EventBridge events, as a rule target (a Lambda, an SQS queue, ...) receives them

/** The EventBridge fields around `detail` (https://docs.aws.amazon.com/eventbridge/latest/ref/overiew-event-structure.html). */
function eventBridgeEventSchema<T extends DetailType>(detailType: T) {
  return z.object({
    version: z.string().describe('EventBridge envelope version, "0"'),
    id: z.string().describe('EventBridge event id (differs per publication: de-duplicate on detail.eventId)'),
    'detail-type': z.literal(detailType).describe('The detail-type'),
    source: z
      .string()
      .min(1)
      .describe('The bridge deployment\'s event source ("gym-bridge" unless configured)'),
    account: z.string().describe('AWS account of the bus'),
    time: z.iso.datetime().describe('The event time, UTC, whole seconds: detail.occurredAt'),
    region: z.string().describe('AWS region of the bus'),
    resources: z.array(z.string()).describe("Always empty for the bridge's events"),
    detail: EVENT_SCHEMAS[detailType],
    'replay-name': z.string().optional().describe('Set when the event comes from an archive replay'),
  });
}

export type EventBridgeEventSchemas = { [T in DetailType]: ReturnType<typeof eventBridgeEventSchema<T>> };

/** zod schema of every EventBridge event, keyed by detail-type. */
export const EVENTBRIDGE_EVENT_SCHEMAS = Object.fromEntries(
  ALL_DETAIL_TYPES.map((detailType) => [detailType, eventBridgeEventSchema(detailType)]),
) as EventBridgeEventSchemas;

/** An EventBridge event of the bridge as a rule target receives it; a union when T is. */
export type EventBridgeEvent<T extends DetailType = DetailType> = {
  [K in T]: z.infer<EventBridgeEventSchemas[K]>;
}[T];

/** Any of the bridge's EventBridge events, discriminated by `detail-type`. */
export const AnyEventBridgeEvent = z.discriminatedUnion(
  'detail-type',
  ALL_DETAIL_TYPES.map((detailType) => EVENTBRIDGE_EVENT_SCHEMAS[detailType]) as unknown as [
    EventBridgeEventSchemas[DetailType],
    ...EventBridgeEventSchemas[DetailType][],
  ],
);

// ---------------------------------------------------------------------------------------------
// Per event: the detail schema and type, the EventBridge event schema and type

export const MemberVisitRecordedDetail: EventSchemas[typeof DETAIL_TYPES.MemberVisitRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberVisitRecorded];
export type MemberVisitRecorded = EventDetail<typeof DETAIL_TYPES.MemberVisitRecorded>;
export const MemberVisitRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberVisitRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberVisitRecorded];
export type MemberVisitRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberVisitRecorded>;
export const PaymentSucceededDetail: EventSchemas[typeof DETAIL_TYPES.PaymentSucceeded] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentSucceeded];
export type PaymentSucceeded = EventDetail<typeof DETAIL_TYPES.PaymentSucceeded>;
export const PaymentSucceededEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentSucceeded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentSucceeded];
export type PaymentSucceededEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentSucceeded>;
export const PaymentFailedDetail: EventSchemas[typeof DETAIL_TYPES.PaymentFailed] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentFailed];
export type PaymentFailed = EventDetail<typeof DETAIL_TYPES.PaymentFailed>;
export const PaymentFailedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentFailed] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentFailed];
export type PaymentFailedEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentFailed>;
export const PaymentRefundedDetail: EventSchemas[typeof DETAIL_TYPES.PaymentRefunded] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentRefunded];
export type PaymentRefunded = EventDetail<typeof DETAIL_TYPES.PaymentRefunded>;
export const PaymentRefundedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentRefunded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentRefunded];
export type PaymentRefundedEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentRefunded>;
export const PosTransactionRecordedDetail: EventSchemas[typeof DETAIL_TYPES.PosTransactionRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.PosTransactionRecorded];
export type PosTransactionRecorded = EventDetail<typeof DETAIL_TYPES.PosTransactionRecorded>;
export const PosTransactionRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PosTransactionRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PosTransactionRecorded];
export type PosTransactionRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.PosTransactionRecorded>;
export const DisbursementRecordedDetail: EventSchemas[typeof DETAIL_TYPES.DisbursementRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.DisbursementRecorded];
export type DisbursementRecorded = EventDetail<typeof DETAIL_TYPES.DisbursementRecorded>;
export const DisbursementRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.DisbursementRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.DisbursementRecorded];
export type DisbursementRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.DisbursementRecorded>;
export const MemberSentToDebtCollectionDetail: EventSchemas[typeof DETAIL_TYPES.MemberSentToDebtCollection] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberSentToDebtCollection];
export type MemberSentToDebtCollection = EventDetail<typeof DETAIL_TYPES.MemberSentToDebtCollection>;
export const MemberSentToDebtCollectionEvent =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberSentToDebtCollection];
export type MemberSentToDebtCollectionEvent = EventBridgeEvent<
  typeof DETAIL_TYPES.MemberSentToDebtCollection
>;
export const MemberJoinedDetail: EventSchemas[typeof DETAIL_TYPES.MemberJoined] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberJoined];
export type MemberJoined = EventDetail<typeof DETAIL_TYPES.MemberJoined>;
export const MemberJoinedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberJoined] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberJoined];
export type MemberJoinedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberJoined>;
export const MemberStatusChangedDetail: EventSchemas[typeof DETAIL_TYPES.MemberStatusChanged] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberStatusChanged];
export type MemberStatusChanged = EventDetail<typeof DETAIL_TYPES.MemberStatusChanged>;
export const MemberStatusChangedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberStatusChanged] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberStatusChanged];
export type MemberStatusChangedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberStatusChanged>;
export const MembershipCancelledDetail: EventSchemas[typeof DETAIL_TYPES.MembershipCancelled] =
  EVENT_SCHEMAS[DETAIL_TYPES.MembershipCancelled];
export type MembershipCancelled = EventDetail<typeof DETAIL_TYPES.MembershipCancelled>;
export const MembershipCancelledEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MembershipCancelled] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MembershipCancelled];
export type MembershipCancelledEvent = EventBridgeEvent<typeof DETAIL_TYPES.MembershipCancelled>;
export const MemberContactPreferencesChangedDetail =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberContactPreferencesChanged];
export type MemberContactPreferencesChanged = EventDetail<
  typeof DETAIL_TYPES.MemberContactPreferencesChanged
>;
export const MemberContactPreferencesChangedEvent =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberContactPreferencesChanged];
export type MemberContactPreferencesChangedEvent = EventBridgeEvent<
  typeof DETAIL_TYPES.MemberContactPreferencesChanged
>;
export const ProspectCreatedDetail: EventSchemas[typeof DETAIL_TYPES.ProspectCreated] =
  EVENT_SCHEMAS[DETAIL_TYPES.ProspectCreated];
export type ProspectCreated = EventDetail<typeof DETAIL_TYPES.ProspectCreated>;
export const ProspectCreatedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ProspectCreated] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ProspectCreated];
export type ProspectCreatedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ProspectCreated>;
export const ProspectStatusChangedDetail: EventSchemas[typeof DETAIL_TYPES.ProspectStatusChanged] =
  EVENT_SCHEMAS[DETAIL_TYPES.ProspectStatusChanged];
export type ProspectStatusChanged = EventDetail<typeof DETAIL_TYPES.ProspectStatusChanged>;
export const ProspectStatusChangedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ProspectStatusChanged] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ProspectStatusChanged];
export type ProspectStatusChangedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ProspectStatusChanged>;
export const ClassAttendanceRecordedDetail: EventSchemas[typeof DETAIL_TYPES.ClassAttendanceRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClassAttendanceRecorded];
export type ClassAttendanceRecorded = EventDetail<typeof DETAIL_TYPES.ClassAttendanceRecorded>;
export const ClassAttendanceRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClassAttendanceRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClassAttendanceRecorded];
export type ClassAttendanceRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClassAttendanceRecorded>;
export const ClubCredentialsRejectedDetail: EventSchemas[typeof DETAIL_TYPES.ClubCredentialsRejected] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubCredentialsRejected];
export type ClubCredentialsRejected = EventDetail<typeof DETAIL_TYPES.ClubCredentialsRejected>;
export const ClubCredentialsRejectedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubCredentialsRejected] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubCredentialsRejected];
export type ClubCredentialsRejectedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubCredentialsRejected>;
export const ClubQuotaLowDetail: EventSchemas[typeof DETAIL_TYPES.ClubQuotaLow] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubQuotaLow];
export type ClubQuotaLow = EventDetail<typeof DETAIL_TYPES.ClubQuotaLow>;
export const ClubQuotaLowEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubQuotaLow] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubQuotaLow];
export type ClubQuotaLowEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubQuotaLow>;
export const ClubDataStaleDetail: EventSchemas[typeof DETAIL_TYPES.ClubDataStale] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubDataStale];
export type ClubDataStale = EventDetail<typeof DETAIL_TYPES.ClubDataStale>;
export const ClubDataStaleEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubDataStale] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubDataStale];
export type ClubDataStaleEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubDataStale>;
export const ClubSourceUnavailableDetail: EventSchemas[typeof DETAIL_TYPES.ClubSourceUnavailable] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubSourceUnavailable];
export type ClubSourceUnavailable = EventDetail<typeof DETAIL_TYPES.ClubSourceUnavailable>;
export const ClubSourceUnavailableEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubSourceUnavailable] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubSourceUnavailable];
export type ClubSourceUnavailableEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubSourceUnavailable>;

// ---------------------------------------------------------------------------------------------
// Parsing with clear errors

export interface EventParseIssue {
  /** Dotted path from the event root, e.g. `detail.reason` (or from the detail for parseDetail). */
  readonly path: string;
  readonly message: string;
}

/** An event or detail that is not one of the bridge's, or not valid against its schema. */
export class EventParseError extends Error {
  override readonly name = 'EventParseError';
  /** The detail-type, when the input had a string one. */
  readonly detailType: string | undefined;
  /** `detail.eventId`, when it was a valid event id. */
  readonly eventId: string | undefined;
  /** Paths and messages of the problems; never the values, which may hold personal data. */
  readonly issues: readonly EventParseIssue[];
  constructor(
    message: string,
    details: { detailType?: string; eventId?: string; issues?: readonly EventParseIssue[]; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.detailType = details.detailType;
    this.eventId = details.eventId;
    this.issues = details.issues ?? [];
  }
}

const quote = (value: unknown): string => JSON.stringify(String(value)).slice(0, 80);

function eventIdOf(detail: unknown): string | undefined {
  const id = (detail as { eventId?: unknown } | null | undefined)?.eventId;
  return typeof id === 'string' && EVENT_ID_PATTERN.test(id) ? id : undefined;
}

function checkDetail<T extends DetailType>(detailType: T, detail: unknown, prefix: string[]): EventDetail<T> {
  const eventId = eventIdOf(detail);
  const subject = `'${detailType}' ${prefix.length > 0 ? 'event' : 'detail'}${eventId ? ` ${eventId}` : ''}`;
  const version = (detail as { eventVersion?: unknown } | null | undefined)?.eventVersion;
  if (typeof version === 'number' && version !== EVENT_VERSION) {
    throw new EventParseError(
      `${subject} has eventVersion ${version}; this module parses eventVersion ${EVENT_VERSION}` +
        ` (match detail.eventVersion in your rule, or update the module: docs/events-versioning.md)`,
      {
        detailType,
        ...(eventId ? { eventId } : {}),
        issues: [{ path: [...prefix, 'eventVersion'].join('.'), message: `expected ${EVENT_VERSION}` }],
      },
    );
  }
  const result = EVENT_SCHEMAS[detailType].safeParse(detail);
  if (result.success) return result.data as EventDetail<T>;
  const issues = result.error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map(String)].join('.') || '(detail)',
    message: issue.message,
  }));
  throw new EventParseError(
    `invalid ${subject}: ${issues
      .slice(0, 5)
      .map((i) => `${i.path}: ${i.message}`)
      .join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`,
    { detailType, ...(eventId ? { eventId } : {}), issues, cause: result.error },
  );
}

/**
 * Validates one event's `detail` against the schema of its detail-type and returns it typed.
 * Unknown keys are dropped. Throws `EventParseError`.
 */
export function parseDetail<T extends DetailType>(detailType: T, detail: unknown): EventDetail<T> {
  if (!isDetailType(detailType)) {
    throw new EventParseError(`unknown detail-type ${quote(detailType)}`, { detailType: String(detailType) });
  }
  return checkDetail(detailType, detail, []);
}

/**
 * Validates an EventBridge event of the bridge (as a Lambda target receives it) and returns it
 * typed, discriminated by `detail-type`. With `expected`, an event of another detail-type is an
 * error too (a rule that routes more than the code handles). Throws `EventParseError`.
 */
export function parseBridgeEvent<T extends DetailType = DetailType>(
  event: unknown,
  expected?: T | readonly T[],
): EventBridgeEvent<T> {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new EventParseError('not an EventBridge event: expected an object', {});
  }
  const detailType = (event as Record<string, unknown>)['detail-type'];
  if (!isDetailType(detailType)) {
    throw new EventParseError(
      `not a gym-bridge event: unknown detail-type ${quote(detailType)}` +
        (typeof detailType === 'string' ? ' (a newer detail-type? update the module)' : ''),
      {
        ...(typeof detailType === 'string' ? { detailType } : {}),
        issues: [{ path: 'detail-type', message: 'unknown detail-type' }],
      },
    );
  }
  const wanted = expected === undefined ? undefined : ([] as readonly DetailType[]).concat(expected);
  if (wanted && !wanted.includes(detailType)) {
    throw new EventParseError(
      `unexpected detail-type '${detailType}' (expected ${wanted.map((t) => `'${t}'`).join(' or ')})`,
      { detailType, issues: [{ path: 'detail-type', message: 'unexpected detail-type' }] },
    );
  }
  const detail = checkDetail(detailType, (event as Record<string, unknown>).detail, ['detail']);
  const result = EVENTBRIDGE_EVENT_SCHEMAS[detailType].omit({ detail: true }).safeParse(event);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(event)',
      message: issue.message,
    }));
    const eventId = eventIdOf(detail);
    throw new EventParseError(
      `invalid '${detailType}' event${eventId ? ` ${eventId}` : ''}: ${issues
        .slice(0, 5)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}`,
      { detailType, ...(eventId ? { eventId } : {}), issues, cause: result.error },
    );
  }
  return { ...result.data, detail } as EventBridgeEvent<T>;
}

// ---------------------------------------------------------------------------------------------
// JSON Schema of a whole EventBridge event

/**
 * JSON Schema (draft-04) of a whole EventBridge event of one detail-type, with its detail's schema
 * (`eventJsonSchema`) inline under `properties.detail`. `source` is pinned when given.
 */
export function eventBridgeEventJsonSchema(
  detailType: DetailType,
  options: { source?: string } = {},
): JsonSchema {
  const { $schema, title: _title, description: _description, ...detail } = eventJsonSchema(detailType);
  const string = (description: string) => ({ type: 'string', description });
  return {
    $schema,
    title: `${detailType} (EventBridge event)`,
    description: `The '${detailType}' event as an EventBridge rule target receives it (gym-bridge, eventVersion ${EVENT_VERSION})`,
    type: 'object',
    properties: {
      version: string('EventBridge envelope version, "0"'),
      id: string('EventBridge event id (differs per publication: de-duplicate on detail.eventId)'),
      'detail-type': { type: 'string', enum: [detailType], description: 'The detail-type' },
      source: options.source
        ? { type: 'string', enum: [options.source], description: 'The event source of the deployment' }
        : { ...string('The event source of the deployment ("gym-bridge" unless configured)'), minLength: 1 },
      account: string('AWS account of the bus'),
      time: { ...string('The event time, UTC, whole seconds: detail.occurredAt'), format: 'date-time' },
      region: string('AWS region of the bus'),
      resources: {
        type: 'array',
        items: { type: 'string' },
        description: "Always empty for the bridge's events",
      },
      detail: { description: `detail of the '${detailType}' event`, ...detail },
      'replay-name': string('Set when the event comes from an archive replay'),
    },
    required: ['version', 'id', 'detail-type', 'source', 'account', 'time', 'region', 'resources', 'detail'],
  };
}

/** Check a subscription's pattern offline, in a consumer's own tests (EventBridge's content filtering). */
export {
  assertValidEventPattern,
  EventPatternError,
  type EventPatternJson,
  eventPatternMatcher,
  matchesEventPattern,
} from './event-pattern';
