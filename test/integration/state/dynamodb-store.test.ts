import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state/dynamodb-store';
import { packSeenAt } from '../../../lambdas/state/seen-packs';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { describeStateStoreContract } from '../../unit/state/state-store-contract';

let db: Dynalite;

beforeAll(async () => {
  db = await startDynalite();
});

afterAll(async () => {
  await db.close();
});

describeStateStoreContract('DynamoDbStateStore on dynalite', async () => {
  let now = 0;
  const tableName = await createTestTable(db.client);
  const store = new DynamoDbStateStore({ client: db.client, tableName, now: () => now });
  return {
    store,
    setNow: (ms) => {
      now = ms;
    },
  };
});

interface SentRequest {
  command: string;
  consistentRead: unknown;
  lastEvaluatedKey: boolean;
}

/** A client of the same dynalite that records every request it sends and whether a page followed. */
function recordingClient(sent: SentRequest[]): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { ConsistentRead?: unknown };
      const output = result.output as { LastEvaluatedKey?: unknown };
      sent.push({
        command: String(context.commandName),
        consistentRead: input.ConsistentRead,
        lastEvaluatedKey: output.LastEvaluatedKey !== undefined,
      });
      return result;
    },
    { step: 'initialize', name: 'recordRequests' },
  );
  return client;
}

describe('DynamoDbStateStore time-ordered seen set on dynalite', () => {
  it('follows LastEvaluatedKey past a 1 MB Query page, eventually consistent unless asked', async () => {
    // Prepare: 1,300 entries of about 1 KB, 1.2 MB of packs of 32 KB
    const sent: SentRequest[] = [];
    const client = recordingClient(sent);
    const store = new DynamoDbStateStore({ client, tableName: await createTestTable(db.client) });
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 22) + ms).toISOString();
    const entries = Array.from({ length: 1_300 }, (_, i) => ({
      fingerprint: `${String(i).padStart(4, '0')}${'f'.repeat(896)}`,
      at: at(i * 10),
    }));
    await store.parts.seen.putSeenAt('c1', 'visits', entries, 2_000_000_000);
    const writes = sent.splice(0);

    // Act
    const eventual = await store.parts.seen.seenSince('c1', 'visits', at(0), 1_000);
    const eventualQueries = sent.splice(0);
    const strong = await store.parts.seen.seenSince('c1', 'visits', at(0), 1_000, { consistentRead: true });
    const strongQueries = sent.splice(0);

    // Assess
    const packs = packSeenAt('CLUB#c1#SEENT#visits', entries).length;
    expect(packs).toBeGreaterThan(25);
    expect(writes.filter((r) => r.command === 'BatchWriteItemCommand')).toHaveLength(Math.ceil(packs / 25));
    expect(eventual.size).toBe(1_300);
    expect(strong).toEqual(eventual);
    expect(eventualQueries.length).toBeGreaterThanOrEqual(2);
    expect(eventualQueries.every((r) => r.command === 'QueryCommand' && r.consistentRead === false)).toBe(
      true,
    );
    expect(eventualQueries.map((r) => r.lastEvaluatedKey)).toEqual([
      ...eventualQueries.slice(1).map(() => true),
      false,
    ]);
    expect(strongQueries.length).toBe(eventualQueries.length);
    expect(strongQueries.every((r) => r.consistentRead === true)).toBe(true);
    client.destroy();
  });

  it('answers an empty range without a request', async () => {
    // Prepare
    const sent: SentRequest[] = [];
    const client = recordingClient(sent);
    const store = new DynamoDbStateStore({ client, tableName: await createTestTable(db.client) });

    // Act
    const seen = await store.parts.seen.seenSince('c1', 'visits', '2026-11-22T10:00:00.000Z', 1, {
      toAt: '2026-11-22T10:00:00.000Z',
    });

    // Assess
    expect(seen.size).toBe(0);
    expect(sent).toEqual([]);
    client.destroy();
  });
});
