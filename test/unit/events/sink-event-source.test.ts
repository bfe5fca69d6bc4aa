/** Both sinks take the stage's `source` and refuse one EventBridge would refuse, before writing anything. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventSourceError, eventSourceForStage } from '../../../lambdas/events/event-source';
import { parseJsonLines } from '../../../lambdas/events/json-lines-file-sink';
import { EventBridgeSink, JsonLinesFileSink } from '../../../lambdas/events/publisher';
import { visitEvents } from './fixtures';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-sink-source-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sinks and the event source', () => {
  it("the JSON-lines sink writes the stage's source on every line", async () => {
    const path = join(dir, 'events.jsonl');
    await new JsonLinesFileSink(path, { source: eventSourceForStage('dev') }).publish(visitEvents(2));
    const records = parseJsonLines(await readFile(path, 'utf8'));
    expect(records.map((r) => r.source)).toEqual(['gym-bridge.dev', 'gym-bridge.dev']);
  });

  it.each(['aws.gyms', '', 'gym bridge'])(
    'both sinks refuse the source %j at construction',
    async (source) => {
      const path = join(dir, 'refused.jsonl');
      expect(() => new JsonLinesFileSink(path, { source })).toThrow(EventSourceError);
      expect(
        () =>
          new EventBridgeSink({
            client: new EventBridgeClient({ region: 'us-east-1' }),
            busName: 'bus',
            source,
          }),
      ).toThrow(EventSourceError);
      expect(await readdir(dir)).toEqual([]);
    },
  );
});
