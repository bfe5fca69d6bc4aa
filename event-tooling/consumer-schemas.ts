/**
 * The consumer module's zod schemas (part of `@gym-bridge/events`, ./consumer.ts): every detail as
 * the catalog defines it but tolerant of added fields, every EventBridge event as a rule target
 * receives it (the envelope of ../events/eventbridge-envelope.ts around the detail), and the JSON
 * Schema (draft-04) of a whole EventBridge event derived from the same envelope.
 */
import { z } from 'zod';
import {
  ALL_DETAIL_TYPES,
  EVENT_SCHEMAS as CATALOG_SCHEMAS,
  type DetailType,
  EVENT_VERSION,
  eventJsonSchema,
  type JsonSchema,
} from '../lambdas/events/catalog';
import {
  eventBridgeEventSchema as envelopeSchema,
  eventBridgeEventJsonSchemaParts,
} from '../lambdas/events/eventbridge-envelope';

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

/** The EventBridge fields around `detail` (../events/eventbridge-envelope.ts) with the detail's schema. */
function eventBridgeEventSchema<T extends DetailType>(detailType: T) {
  return envelopeSchema<T, EventSchemas[T]>(detailType, EVENT_SCHEMAS[detailType]);
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
  const { properties, required } = eventBridgeEventJsonSchemaParts(
    detailType,
    { description: `detail of the '${detailType}' event`, ...detail },
    options,
  );
  return {
    $schema,
    title: `${detailType} (EventBridge event)`,
    description: `The '${detailType}' event as an EventBridge rule target receives it (gym-bridge, eventVersion ${EVENT_VERSION})`,
    type: 'object',
    properties,
    required,
  };
}
