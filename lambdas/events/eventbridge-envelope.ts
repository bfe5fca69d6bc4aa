/**
 * The EventBridge envelope: the fields EventBridge puts around `detail` when a rule target (a
 * Lambda, an SQS queue, ...) receives an event
 * (https://docs.aws.amazon.com/eventbridge/latest/ref/overiew-event-structure.html).
 *
 * Written once, here, in zod. Everything else derives from it: the consumer module's event
 * schemas (`@gym-bridge/events`), the JSON Schemas (draft-04) of the schema registry and of the
 * AsyncAPI document (`eventBridgeEventJsonSchemaParts`), and the type of a delivered event
 * (`EventBridgeEnvelopeFields`). zod only, no Node built-in: the consumer module bundles it.
 */
import { z } from 'zod';
import type { JsonSchema } from './catalog';

/** `source` of any deployment (the consumer module's schemas). */
const ANY_SOURCE = z
  .string()
  .min(1)
  .describe('The bridge deployment\'s event source ("gym-bridge" unless configured)');

/**
 * The same in the JSON Schemas: their published wording (docs/asyncapi.json, the package's
 * schemas) differs from the zod schema's description, and both are kept as published.
 */
const ANY_SOURCE_JSON = ANY_SOURCE.describe(
  'The event source of the deployment ("gym-bridge" unless configured)',
);

/** `source` pinned to one deployment's value (the registry's schemas). */
const pinnedSource = (source: string) => z.literal(source).describe('The event source of the deployment');

// D is left unconstrained, as z.object's shape is: a catalog schema indexed by a generic detail-type
// (the consumer module's) satisfies no narrower bound.
function envelopeObject<T extends string, D, S extends z.ZodType>(detailType: T, detail: D, source: S) {
  return z.object({
    version: z.string().describe('EventBridge envelope version, "0"'),
    id: z.string().describe('EventBridge event id (differs per publication: de-duplicate on detail.eventId)'),
    'detail-type': z.literal(detailType).describe('The detail-type'),
    source,
    account: z.string().describe('AWS account of the bus'),
    time: z.iso.datetime().describe('The event time, UTC, whole seconds: detail.occurredAt'),
    region: z.string().describe('AWS region of the bus'),
    resources: z.array(z.string()).describe("Always empty for the bridge's events"),
    detail,
    'replay-name': z.string().optional().describe('Set when the event comes from an archive replay'),
  });
}

/** zod schema of an EventBridge event of one detail-type whose `detail` is `detail`. */
export function eventBridgeEventSchema<T extends string, D>(detailType: T, detail: D) {
  return envelopeObject(detailType, detail, ANY_SOURCE);
}

/** The envelope's fields as a rule target receives them (`detail` typed by the caller). */
export type EventBridgeEnvelopeFields = Omit<
  z.infer<ReturnType<typeof eventBridgeEventSchema<string, z.ZodNull>>>,
  'detail'
>;

export interface EnvelopeJsonSchemaOptions {
  /** Pin `source` to this value. @default any non-empty string */
  readonly source?: string;
  /** Keep the descriptions of the envelope's fields. @default true */
  readonly descriptions?: boolean;
  /** Include the optional `replay-name`. @default true */
  readonly replayName?: boolean;
}

/**
 * The hand-written order of a field's keywords, kept so that the generated documents
 * (docs/asyncapi.json, the registry's schemas) stay the same text.
 */
const KEYWORD_ORDER = ['type', 'enum', 'items', 'description', 'minLength', 'format'];

function ordered(field: JsonSchema, descriptions: boolean): JsonSchema {
  const keys = KEYWORD_ORDER.filter((key) => key in field && (descriptions || key !== 'description'));
  return Object.fromEntries(keys.map((key) => [key, field[key]]));
}

/**
 * `properties` and `required` of the JSON Schema (draft-04) of a whole EventBridge event, from
 * the zod envelope, with `detailJson` (the detail's JSON Schema) under `properties.detail`. `time`
 * is `format: date-time` only (zod's pattern for it is left out).
 */
export function eventBridgeEventJsonSchemaParts(
  detailType: string,
  detailJson: JsonSchema,
  options: EnvelopeJsonSchemaOptions = {},
): { properties: JsonSchema; required: string[] } {
  const source = options.source === undefined ? ANY_SOURCE_JSON : pinnedSource(options.source);
  let schema: z.ZodObject = envelopeObject(detailType, z.object({}), source);
  if (options.replayName === false) schema = schema.omit({ 'replay-name': true });
  const json = z.toJSONSchema(schema, { target: 'draft-04', io: 'output' }) as {
    properties: Record<string, JsonSchema>;
    required: string[];
  };
  const properties = Object.fromEntries(
    Object.entries(json.properties).map(([key, field]) => [
      key,
      key === 'detail' ? detailJson : ordered(field, options.descriptions !== false),
    ]),
  );
  return { properties, required: json.required };
}
