/**
 * Failure paths a local DynamoDB cannot produce on demand: unprocessed batch entries and giving up
 * on them, errors that are not retried. The AWS SDK is mocked (aws-sdk-client-mock); sleeps are
 * recorded, not waited. Throttled calls are the SDK's job: dynamodb-store-throttling.test.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state/dynamodb-store';
import { unpackSeenAt } from '../../../lambdas/state/seen-packs';
import { StoreError } from '../../../lambdas/state/store';

const TABLE = 'state-under-test';
const ddb = mockClient(DynamoDBDocumentClient);

type Key = { pk: string; sk: string };
type PutRequest = { PutRequest: { Item: Key } };

function writeRequestsOf(input: { RequestItems?: Record<string, unknown> }): PutRequest[] {
  return (input.RequestItems?.[TABLE] ?? []) as PutRequest[];
}

function keysOf(input: { RequestItems?: Record<string, { Keys?: unknown[] }> }): Key[] {
  return (input.RequestItems?.[TABLE]?.Keys ?? []) as Key[];
}

describe('DynamoDbStateStore retries and giving up', () => {
  let sleeps: number[];
  let store: DynamoDbStateStore;

  function makeStore(maxAttempts = 5, maxConcurrency = 8): DynamoDbStateStore {
    return new DynamoDbStateStore({
      client: new DynamoDBClient({ region: 'us-east-1' }),
      tableName: TABLE,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      maxAttempts,
      maxConcurrency,
      baseDelayMs: 50,
      maxDelayMs: 400,
    });
  }

  beforeEach(() => {
    ddb.reset();
    sleeps = [];
    store = makeStore();
  });

  afterAll(() => {
    ddb.restore();
  });

  it('resubmits UnprocessedItems of a BatchWriteItem until every item is written', async () => {
    // Prepare: the first full batch of 25 leaves its last 10 unprocessed
    const written = new Set<string>();
    const requests: string[][] = [];
    let leftSomeOnce = false;
    ddb.on(BatchWriteCommand).callsFake((input) => {
      const batch = writeRequestsOf(input);
      requests.push(batch.map((r) => r.PutRequest.Item.sk));
      const unprocessed = batch.length === 25 && !leftSomeOnce ? batch.slice(15) : [];
      leftSomeOnce ||= unprocessed.length > 0;
      for (const r of batch.slice(0, batch.length - unprocessed.length)) written.add(r.PutRequest.Item.sk);
      return unprocessed.length ? { UnprocessedItems: { [TABLE]: unprocessed } } : {};
    });
    const fps = Array.from({ length: 30 }, (_, i) => `fp-${i}`);

    // Act
    await store.parts.seen.putSeen('c1', 'visits', fps, 2_000_000_000);

    // Assess
    expect(written).toEqual(new Set(fps));
    expect(requests.map((r) => r.length).sort((a, b) => a - b)).toEqual([5, 10, 25]);
    expect(requests.find((r) => r.length === 10)).toEqual(fps.slice(15, 25));
    expect(sleeps).toHaveLength(1);
  });

  it('resubmits UnprocessedKeys of a BatchGetItem and merges the answers', async () => {
    // Prepare: 120 keys -> calls of 100 and 20; the 100-key call answers 60 and leaves 40
    const retried: number[] = [];
    let leftSomeOnce = false;
    ddb.on(BatchGetCommand).callsFake((input) => {
      const keys = keysOf(input);
      const answer = (ks: Key[]) => ks.map((k) => ({ sk: k.sk, expiresAt: 2_000_000_000 }));
      if (keys.length === 100 && !leftSomeOnce) {
        leftSomeOnce = true;
        return {
          Responses: { [TABLE]: answer(keys.slice(0, 60)) },
          UnprocessedKeys: { [TABLE]: { Keys: keys.slice(60) } },
        };
      }
      if (keys.length === 40) retried.push(keys.length);
      return { Responses: { [TABLE]: answer(keys) } };
    });
    const fps = Array.from({ length: 120 }, (_, i) => `fp-${i}`);

    // Act
    const seen = await store.parts.seen.filterSeen('c1', 'visits', fps, 1_000);

    // Assess
    expect(seen).toEqual(new Set(fps));
    expect(retried).toEqual([40]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(3);
    expect(sleeps).toHaveLength(1);
  });

  it('resubmits UnprocessedItems of time-ordered seen entries until every entry is written', async () => {
    // Prepare: the first full batch of 25 leaves its last 5 unprocessed, once
    const written = new Map<string, unknown>();
    let leftSomeOnce = false;
    ddb.on(BatchWriteCommand).callsFake((input) => {
      const batch = writeRequestsOf(input);
      const unprocessed = batch.length === 25 && !leftSomeOnce ? batch.slice(20) : [];
      leftSomeOnce ||= unprocessed.length > 0;
      for (const r of batch.slice(0, batch.length - unprocessed.length)) {
        written.set(r.PutRequest.Item.sk, r.PutRequest.Item);
      }
      return unprocessed.length ? { UnprocessedItems: { [TABLE]: unprocessed } } : {};
    });
    // 40 entries in 40 hours: 40 packs (one hour each)
    const at = (i: number) => new Date(Date.UTC(2026, 10, 22) + i * 3_600_000).toISOString();
    const entries = Array.from({ length: 40 }, (_, i) => ({ fingerprint: `fp-${i}`, at: at(i) }));

    // Act
    await store.parts.seen.putSeenAt('c1', 'visits', entries, 2_000_000_000);

    // Assess
    const items = [...written.values()] as { pk: string; sk: string; expiresAt: number; p: string }[];
    expect(items).toHaveLength(40);
    const unpacked = items.flatMap((item) => unpackSeenAt(item.sk, item.p));
    expect(unpacked.map((e) => `${e.at}#${e.fingerprint}`).sort()).toEqual(
      entries.map((e) => `${e.at}#${e.fingerprint}`).sort(),
    );
    expect(items.find((item) => item.sk.startsWith(`${at(7)}~`))).toMatchObject({
      pk: 'CLUB#c1#SEENT#visits',
      expiresAt: 2_000_000_000,
      p: '[[0,"fp-7"]]',
    });
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(3);
    expect(sleeps).toHaveLength(1);
  });

  it('queries a seen range with one key condition, the projection and the asked consistency', async () => {
    // Prepare
    ddb
      .on(QueryCommand)
      .resolvesOnce({
        Items: [{ sk: '2026-11-22T10:00:00.000Z#a#b', expiresAt: 2_000_000_000 }],
        LastEvaluatedKey: { pk: 'p', sk: 's' },
      })
      .resolvesOnce({
        Items: [
          { sk: '2026-11-22T10:00:01.000Z#c', expiresAt: 10 },
          // a pack of the hour the range ends in: its entry at 10:30 is in range, 10:45 is not
          {
            sk: '2026-11-22T10:45:00.000Z~h',
            expiresAt: 2_000_000_000,
            w: 1,
            p: '[[1800000,"d"],[2700000,"e"]]',
          },
        ],
      });

    // Act
    const seen = await store.parts.seen.seenSince('c1', 'members', '2026-11-22T10:00:00.000Z', 1_000, {
      toAt: '2026-11-22T10:40:00.000Z',
    });

    // Assess: a '#' inside a fingerprint survives, the expired entry is filtered out, the pack's
    // entry past toAt too, and the Query reads to the end of toAt's hour
    expect([...seen]).toEqual(['a#b', 'd']);
    const calls = ddb.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': 'CLUB#c1#SEENT#members',
        ':from': '2026-11-22T10:00:00.000Z',
        ':to': '2026-11-22T11:00:00.000Z',
      },
      ProjectionExpression: '#sk, #expiresAt, #g, #v, #m, #p, #w',
      ConsistentRead: false,
    });
    expect(calls[1]).toMatchObject({ ExclusiveStartKey: { pk: 'p', sk: 's' }, ConsistentRead: false });
  });

  it('keeps going while each round makes progress, even past maxAttempts rounds', async () => {
    // Prepare: every call processes exactly one item
    store = makeStore(3);
    ddb.on(BatchWriteCommand).callsFake((input) => {
      const rest = writeRequestsOf(input).slice(1);
      return rest.length ? { UnprocessedItems: { [TABLE]: rest } } : {};
    });

    // Act
    await store.parts.seen.putSeen(
      'c1',
      'visits',
      Array.from({ length: 10 }, (_, i) => `fp-${i}`),
      2_000_000_000,
    );

    // Assess
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(10);
  });

  it('gives up with a StoreError when unprocessed items make no progress', async () => {
    // Prepare
    store = makeStore(4);
    ddb
      .on(BatchWriteCommand)
      .callsFake((input) => ({ UnprocessedItems: { [TABLE]: writeRequestsOf(input) } }));

    // Act
    const result = store.parts.seen.putSeen('c1', 'visits', ['a', 'b'], 2_000_000_000);

    // Assess
    await expect(result).rejects.toBeInstanceOf(StoreError);
    await expect(result).rejects.toThrow(/left 2 entries unprocessed/);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it('does not retry other errors', async () => {
    // Prepare
    const validation = Object.assign(new Error('One or more parameter values were invalid'), {
      name: 'ValidationException',
    });
    ddb.on(GetCommand).rejects(validation);

    // Act
    const result = store.view('c1').getQuotaUsage('2025-03');

    // Assess
    await expect(result).rejects.toBeInstanceOf(StoreError);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('runs independent batch calls concurrently, never more than maxConcurrency at once', async () => {
    // Prepare: 500 fingerprints = 20 BatchWriteItem calls
    store = makeStore(5, 4);
    let inFlight = 0;
    let maxInFlight = 0;
    ddb.on(BatchWriteCommand).callsFake(async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight -= 1;
      return {};
    });

    // Act
    await store.parts.seen.putSeen(
      'c1',
      'visits',
      Array.from({ length: 500 }, (_, i) => `fp-${i}`),
      2_000_000_000,
    );

    // Assess
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(20);
    expect(maxInFlight).toBe(4);
  });
});
