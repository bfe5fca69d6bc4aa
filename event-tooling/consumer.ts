/**
 * `@gym-bridge/events`: what a downstream team needs to subscribe to the bridge's bus and parse its
 * events, and nothing else. Its whole import graph is zod, the catalog (../events/catalog.ts), the
 * EventBridge envelope (../events/eventbridge-envelope.ts), the API record schemas it embeds
 * (../gym-api/schemas.ts, zod only), a few constant files and the pattern matcher: no engine, no
 * sandbox, no state store, no AWS SDK, no Node built-in (bench/consumer-bundle.ts proves it on a
 * bundle, test/unit/event-tooling/consumer-bundle.test.ts keeps it so).
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
 * AsyncAPI document: event-tooling/build-package.ts).
 *
 * This file is the entry: the schemas are in ./consumer-schemas.ts, the named per-event schemas in
 * ./consumer-named-schemas.ts, the parsing in ./consumer-parse.ts.
 */
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
  MEMBERSHIP_EXPIRING_KINDS,
  type MembershipExpiringKind,
  PAYMENT_FAILURE_REASONS,
  type PaymentFailureReason,
  QUOTA_LOW_REASONS,
  SOURCE_UNAVAILABLE_KINDS,
  type Subject,
  WEBHOOK_DELIVERY_FAILURE_REASONS,
  WEBHOOK_DISABLE_REASONS,
  WEBHOOK_ENDPOINT_ID_PATTERN,
} from '../lambdas/events/catalog';
export { EVENT_ID_PATTERN } from '../lambdas/events/event-id-pattern';
/** Check a subscription's pattern offline, in a consumer's own tests (EventBridge's content filtering). */
export {
  assertValidEventPattern,
  EventPatternError,
  type EventPatternJson,
  eventPatternMatcher,
  explainEventPattern,
  matchesEventPattern,
  type PatternMismatch,
} from '../lambdas/events/event-pattern';
export * from './consumer-named-schemas';
export { EventParseError, type EventParseIssue, parseBridgeEvent, parseDetail } from './consumer-parse';
export {
  AnyEventBridgeEvent,
  EVENT_SCHEMAS,
  EVENTBRIDGE_EVENT_SCHEMAS,
  type EventBridgeEvent,
  type EventBridgeEventSchemas,
  type EventSchemas,
  eventBridgeEventJsonSchema,
} from './consumer-schemas';
/** Receiving the bridge's Standard Webhooks: the payload type and its verifier (Web Crypto). */
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookPayload,
  WebhookVerificationError,
} from './consumer-webhooks';
