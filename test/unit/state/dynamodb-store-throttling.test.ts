/**
 * Throttled calls: retried by the AWS SDK's own retry strategy (`common/aws-clients.ts`), not by
 * the store. The throttle comes from a fake HTTP layer under a real DynamoDBClient, so it goes
 * through the SDK's retry middleware; timers are faked, and every retry wait is recorded.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state/dynamodb-store';
import { StoreError } from '../../../lambdas/state/store';
import { type FakeAnswer, fakeDynamoDb, okAnswer, throttledAnswer } from './fake-dynamodb-http';

const TABLE = 'state-under-test';

describe('DynamoDbStateStore on throttling (the SDK retry strategy)', () => {
  let timeouts: MockInstance<typeof setTimeout>;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    timeouts = vi.spyOn(globalThis, 'setTimeout');
  });

  afterEach(() => {
    // The spy first: it was laid over the fake setTimeout, and restoring it after the real timers
    // came back would put the fake (a stopped clock) back for every later file of the worker.
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  /** The store over a fake DynamoDB answering `answer`, with `maxAttempts` per call. */
  function storeAnswering(answer: (operation: string, attempt: number) => FakeAnswer, maxAttempts = 5) {
    const fake = fakeDynamoDb(answer, { maxAttempts });
    const store = new DynamoDbStateStore({ client: fake.client, tableName: TABLE });
    return { store, requests: fake.requests };
  }

  /** Runs the call to its end, firing every retry wait at once. */
  async function settle<T>(promise: Promise<T>): Promise<T | unknown> {
    let done = false;
    const outcome = promise.then(
      (value) => value,
      (err: unknown) => err,
    );
    void outcome.finally(() => {
      done = true;
    });
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(25_000);
    }
    return outcome;
  }

  /** The retry waits the SDK scheduled, in ms. */
  const waits = () => timeouts.mock.calls.map((call) => Number(call[1] ?? 0));

  it('retries a throttled seen Query and gives up with a StoreError naming Query', async () => {
    // Prepare: the first Query is throttled once then answered; every later one is throttled
    const { store, requests } = storeAnswering((operation, attempt) =>
      operation === 'Query' && attempt === 2 ? okAnswer({ Items: [], Count: 0 }) : throttledAnswer(),
    );

    // Act
    const first = await settle(
      store.parts.seen.seenSince('c1', 'visits', '2026-11-22T10:00:00.000Z', 1, { consistentRead: true }),
    );
    const error = await settle(store.parts.seen.seenSince('c1', 'visits', '2026-11-22T10:00:00.000Z', 1));

    // Assess
    expect((first as Set<string>).size).toBe(0);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ operation: 'Query' });
    expect((error as StoreError).cause).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(requests).toEqual(Array(2 + 5).fill('Query'));
  });

  it('backs off and retries on ProvisionedThroughputExceededException, with growing capped delays', async () => {
    // Prepare: three throttles, then the item is absent
    const { store, requests } = storeAnswering((operation, attempt) =>
      operation === 'GetItem' && attempt <= 3 ? throttledAnswer() : okAnswer({}),
    );

    // Act
    const cursor = (await settle(store.view('c1').getCursor('visits'))) as { version: number };

    // Assess: the SDK's throttling back-off (installed @smithy/core: 1 s doubling, capped at 20 s);
    // no state item: the previous layout's cursor items are read after it
    expect(cursor.version).toBe(0);
    expect(requests.slice(0, 4)).toEqual(['GetItem', 'GetItem', 'GetItem', 'GetItem']);
    expect(requests.slice(4)).toEqual(['Query']);
    expect(waits()).toHaveLength(3);
    waits().forEach((ms, attempt) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(Math.min(20_000, 1_000 * 2 ** attempt));
    });
  });

  it('retries a throttled batch call as a whole', async () => {
    // Prepare
    const { store, requests } = storeAnswering((_operation, attempt) =>
      attempt === 1 ? throttledAnswer('ThrottlingException') : okAnswer({ UnprocessedItems: {} }),
    );

    // Act
    await settle(
      store.parts.snapshots.putSnapshots('c1', 'MEMBER', [
        { id: '1', hash: 'h', fields: {}, updatedAt: 'u' },
      ]),
    );

    // Assess
    expect(requests).toEqual(['BatchWriteItem', 'BatchWriteItem']);
    expect(waits()).toHaveLength(1);
  });

  it('gives up with a StoreError carrying the cause when throttling never stops', async () => {
    // Prepare
    const { store, requests } = storeAnswering(() => throttledAnswer(), 4);

    // Act
    const error = await settle(store.openClub('c1', 'poller-1', 60_000, Date.now()));

    // Assess
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ operation: 'UpdateItem' });
    expect((error as StoreError).cause).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect((error as StoreError).message).toMatch(/after 4 attempts.*ProvisionedThroughputExceededException/);
    expect(requests).toEqual(Array(4).fill('UpdateItem'));
  });
});
