/**
 * docs/asyncapi.json: generated from the catalog (the committed file is the generator's output),
 * valid for the AsyncAPI project's own parser, one message per detail-type whose example is valid
 * against its payload schema and parses with the consumer module.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { ALL_DETAIL_TYPES, parseBridgeEvent } from '@gym-bridge/events';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildAsyncApiDocument,
  messageId,
  PAYLOAD_SCHEMA_FORMAT,
  packageVersion,
  renderAsyncApiJson,
} from '../../../event-tooling/asyncapi';
import { exampleEvents } from '../../../event-tooling/examples';
import { checkAgainstSchema } from '../events/mini-json-schema';

const FILE = join(process.cwd(), 'docs', 'asyncapi.json');

type Message = {
  name: string;
  payload: { schemaFormat: string; schema: Record<string, unknown> };
  examples: { payload: unknown }[];
};

describe('AsyncAPI document of the bus (docs/asyncapi.json)', () => {
  let committed: string;
  beforeAll(async () => {
    committed = await readFile(FILE, 'utf8');
  });

  it('equals the generator output (run `npm run --silent cli -- schemas --asyncapi docs/asyncapi.json`)', () => {
    expect(committed).toBe(renderAsyncApiJson());
  });

  it('validates with @asyncapi/parser: no error or warning diagnostics', async () => {
    const { document, diagnostics } = await new Parser().parse(committed);
    const problems = diagnostics
      .filter((d) => d.severity <= 1) // 0 error, 1 warning
      .map((d) => `${d.code} ${d.path.join('.')}: ${d.message}`);
    expect(problems).toEqual([]);
    expect(document).toBeDefined();
    expect(document?.version()).toBe('3.1.0');
    expect(document?.info().version()).toBe(packageVersion());
    expect(
      document
        ?.channels()
        .all()
        .map((c) => c.address()),
    ).toEqual(['gym-bridge-{stage}']);
    const operations = document?.operations().all() ?? [];
    expect(operations.map((o) => [o.id(), o.action()])).toEqual([['publishEvents', 'send']]);
    expect(
      operations[0]
        ?.messages()
        .all()
        .map((m) => m.name()),
    ).toEqual(ALL_DETAIL_TYPES);
    const messages = document?.messages().all() ?? [];
    expect(messages.map((m) => m.name()).sort()).toEqual([...ALL_DETAIL_TYPES].sort());
  });

  it('the parser catches a broken document (the check can fail)', async () => {
    const broken = buildAsyncApiDocument('0.0.0') as { operations: { publishEvents: { action: string } } };
    broken.operations.publishEvents.action = 'publish';
    const { diagnostics } = await new Parser().parse(JSON.stringify(broken));
    expect(diagnostics.some((d) => d.severity === 0)).toBe(true);
  });

  it('has one message per detail-type, its payload the EventBridge event schema, its example valid', () => {
    const doc = JSON.parse(committed) as {
      components: { messages: Record<string, Message> };
      channels: { bus: { messages: Record<string, unknown> } };
    };
    const messages = doc.components.messages;
    expect(Object.keys(messages)).toEqual(ALL_DETAIL_TYPES.map(messageId));
    expect(Object.keys(doc.channels.bus.messages)).toEqual(ALL_DETAIL_TYPES.map(messageId));
    for (const detailType of ALL_DETAIL_TYPES) {
      const message = messages[messageId(detailType)];
      expect(message?.name).toBe(detailType);
      expect(message?.payload.schemaFormat).toBe(PAYLOAD_SCHEMA_FORMAT);
      const schema = message?.payload.schema as { properties: { 'detail-type': { enum: string[] } } };
      expect(schema.properties['detail-type'].enum).toEqual([detailType]);
      const example = message?.examples[0]?.payload;
      expect(checkAgainstSchema(message?.payload.schema ?? {}, example)).toEqual([]);
      const parsed = parseBridgeEvent(example, detailType);
      expect(parsed.detail).toEqual(exampleEvents()[detailType].detail);
    }
  });
});
