/**
 * Generates docs/asyncapi.json, the AsyncAPI 3 document of the bridge's bus, from the catalog (as
 * cli/catalog-markdown.ts generates docs/events.md): one channel (the bus, `gym-bridge-{stage}`), one
 * operation (the bridge sends), and one message per detail-type whose payload is the whole
 * EventBridge event with that detail's JSON Schema (draft-04, `eventBridgeEventJsonSchema`), and
 * whose example is the catalog's example event as EventBridge delivers it (the PutEvents entry the
 * publisher's `toEntry` builds, wrapped as a rule target receives it). A test checks that the
 * committed file equals this output and that the AsyncAPI parser reports no error.
 */
import { readFileSync } from 'node:fs';
import {
  ALL_DETAIL_TYPES,
  type BridgeEvent,
  DEFAULT_EVENT_SOURCE,
  type DetailType,
  detailTypeKey,
  EVENT_DESCRIPTIONS,
  EVENT_VERSION,
} from '../lambdas/events/catalog';
import { toEntry } from '../lambdas/events/put-events-batches';
import { eventBridgeEventJsonSchema } from './consumer';
import { exampleEvents } from './examples';

export const ASYNCAPI_VERSION = '3.1.0';
/** `schemaFormat` of the payloads: the catalog's JSON Schemas are draft-04. */
export const PAYLOAD_SCHEMA_FORMAT = 'application/schema+json;version=draft-04';
const EXAMPLE_ACCOUNT = '123456789012';
const EXAMPLE_REGION = 'eu-west-1';

/**
 * An example event as a rule target receives it: the publisher's PutEvents entry for the event,
 * wrapped by EventBridge (version "0", an id, account, region, `time` in whole seconds). The id is
 * the eventId laid out as a UUID so that the document is the same on every run.
 */
export function exampleDeliveredEvent(
  event: BridgeEvent,
  source = DEFAULT_EVENT_SOURCE,
): Record<string, unknown> {
  const { entry } = toEntry(event, source, `gym-bridge-prod`);
  const id = event.detail.eventId;
  return {
    version: '0',
    id: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: EXAMPLE_ACCOUNT,
    time: (entry.Time ?? new Date(event.detail.occurredAt)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: EXAMPLE_REGION,
    resources: entry.Resources ?? [],
    detail: JSON.parse(entry.Detail ?? '{}') as unknown,
  };
}

/** The AsyncAPI message id of a detail-type: its `DETAIL_TYPES` key ('Payment Failed' -> 'PaymentFailed'). */
export const messageId = (detailType: DetailType): string => detailTypeKey(detailType);

/** The document's `info`: title, version and what the events are. */
function documentInfo(version: string): Record<string, unknown> {
  return {
    title: 'gym-bridge events',
    version,
    description: [
      'The events gym-bridge publishes to its Amazon EventBridge bus: changes it detects by polling a gym',
      'club reporting API (visits, payments, POS transactions, disbursements, debt collection, members,',
      'prospects, class attendance) and operational events about the clubs it polls.',
      '',
      `Generated from the zod catalog (lambdas/events/catalog.ts), like the event catalog page docs/events.md; eventVersion ${EVENT_VERSION}.`,
      'Every payload is the whole EventBridge event as a rule target receives it; `detail` follows the',
      'JSON Schema (draft-04) of its detail-type. Delivery is at least once: de-duplicate on',
      '`detail.eventId`. Tolerate new fields; a breaking change bumps `detail.eventVersion`',
      '(docs/events-versioning.md).',
    ].join('\n'),
  };
}

/** One message per detail-type: the EventBridge event's JSON Schema and an example of it. */
function componentMessages(): Record<string, unknown> {
  const examples = exampleEvents();
  return Object.fromEntries(
    ALL_DETAIL_TYPES.map((detailType) => [
      messageId(detailType),
      {
        name: detailType,
        title: detailType,
        summary: EVENT_DESCRIPTIONS[detailType],
        contentType: 'application/json',
        payload: { schemaFormat: PAYLOAD_SCHEMA_FORMAT, schema: eventBridgeEventJsonSchema(detailType) },
        examples: [{ name: messageId(detailType), payload: exampleDeliveredEvent(examples[detailType]) }],
      },
    ]),
  );
}

export function buildAsyncApiDocument(version: string): Record<string, unknown> {
  const refs = ALL_DETAIL_TYPES.map((t) => [messageId(t), { $ref: `#/components/messages/${messageId(t)}` }]);
  return {
    asyncapi: ASYNCAPI_VERSION,
    info: documentInfo(version),
    defaultContentType: 'application/json',
    channels: {
      bus: {
        address: 'gym-bridge-{stage}',
        title: 'The bridge event bus',
        description:
          'The custom EventBridge bus of a deployment, `gym-bridge-<stage>`. Events of stage prod have ' +
          '`source` gym-bridge, other stages `gym-bridge.<stage>`. Subscribe with an EventBridge rule on ' +
          '`source`, `detail-type` and `detail` fields.',
        parameters: {
          stage: { description: 'The deployment stage', enum: ['dev', 'prod'], examples: ['prod'] },
        },
        messages: Object.fromEntries(refs),
      },
    },
    operations: {
      publishEvents: {
        action: 'send',
        title: 'The bridge publishes events',
        description:
          'The poller puts every detected change on the bus (PutEvents, 10 entries per call, failed entries retried).',
        channel: { $ref: '#/channels/bus' },
        messages: ALL_DETAIL_TYPES.map((t) => ({ $ref: `#/channels/bus/messages/${messageId(t)}` })),
      },
    },
    components: {
      messages: componentMessages(),
    },
  };
}

/**
 * `info.version` of the document: the version of the bridge's package (package.json), the version
 * a released schema snapshot is filed under (docs/schemas/released/v<version>/).
 */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The document as committed in docs/asyncapi.json (2-space JSON, trailing newline). */
export function renderAsyncApiJson(version = packageVersion()): string {
  return `${JSON.stringify(buildAsyncApiDocument(version), null, 2)}\n`;
}
