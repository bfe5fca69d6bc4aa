/**
 * `@gym-bridge/events`: what a downstream team needs to subscribe to the bridge's bus and parse its
 * events, and nothing else (no engine, no sandbox, no AWS SDK): the zod schema and TypeScript type
 * of every detail, the source and detail-type constants, and the JSON Schemas. Imported in this
 * repository as `@gym-bridge/events` (tsconfig `paths`, vitest alias, package.json `exports`).
 */
export {
  ALL_DETAIL_TYPES,
  allEventJsonSchemas,
  type BridgeEvent,
  type BridgeEventOf,
  DEFAULT_EVENT_SOURCE,
  DETAIL_TYPES,
  type DetailType,
  EVENT_SCHEMAS,
  EVENT_VERSION,
  type EventDetail,
  type EventSchemas,
  eventJsonSchema,
  isDetailType,
} from './catalog';
