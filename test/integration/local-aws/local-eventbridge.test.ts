/**
 * The real @aws-sdk/client-eventbridge, over a real socket, against the local EventBridge endpoint,
 * with injected entry failures, throttles and server errors.
 */
import {
  CreateEventBusCommand,
  DescribeEventBusCommand,
  EventBridgeClient,
  PutEventsCommand,
} from '@aws-sdk/client-eventbridge';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EVENT_SOURCE } from '../../../lambdas/events/catalog';
import { EventBridgeSink, PublishError } from '../../../lambdas/events/publisher';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { largeEvents, visitEvents } from '../../unit/events/fixtures';

let local: LocalEventBridge;
let client: EventBridgeClient;

const clientFor = (endpoint: string, maxAttempts = 1) =>
  new EventBridgeClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts,
  });

const sinkFor = (c: EventBridgeClient, maxAttempts = 10) =>
  new EventBridgeSink({ client: c, busName: 'gym-bridge', maxAttempts, baseDelayMs: 2, maxDelayMs: 20 });

const receivedIds = () => local.events.map((e) => (e.detail as { eventId: string }).eventId);

beforeEach(async () => {
  local = await startLocalEventBridge({ port: 0, seed: 42 });
  client = clientFor(local.endpoint);
});
afterEach(async () => {
  client.destroy();
  await local.close();
});

describe('EventBridgeSink -> local EventBridge (real SDK, real socket)', () => {
  it('delivers every event once, as sent', async () => {
    const events = visitEvents(57);
    await sinkFor(client).publish(events);

    expect(local.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(local.stats.putEventsRequests).toBe(6);
    // Requests run concurrently, so arrival order across requests may vary (EventBridge has no order).
    expect(receivedIds().sort()).toEqual(events.map((e) => e.detail.eventId).sort());
    const first = local.events.find(
      (e) => (e.detail as { eventId: string }).eventId === events[0]!.detail.eventId,
    );
    expect(first).toMatchObject({
      eventBusName: 'gym-bridge',
      source: DEFAULT_EVENT_SOURCE,
      detailType: 'Member Visit Recorded',
      detail: events[0]!.detail,
      time: new Date(events[0]!.detail.occurredAt).toISOString(),
    });
  });

  it('with random entry failures and throttles, delivers every event exactly once', async () => {
    local.faults.failEntryRate = 0.3;
    local.faults.throttleRate = 0.3;
    const events = visitEvents(200);
    await sinkFor(client, 30).publish(events);

    expect(local.stats.failedEntries).toBeGreaterThan(10);
    expect(local.stats.throttledRequests).toBeGreaterThan(2);
    const ids = receivedIds();
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(events.map((e) => e.detail.eventId).sort());
  });

  it('survives server errors and composes with the SDK retrying throttles itself', async () => {
    const sdkRetrying = clientFor(local.endpoint, 3);
    local.faults.throttleNext(1);
    local.faults.serverErrorNext(3);
    const events = visitEvents(12);
    await sinkFor(sdkRetrying).publish(events);
    sdkRetrying.destroy();
    expect(receivedIds().sort()).toEqual(events.map((e) => e.detail.eventId).sort());
  });

  it('throws PublishError with every undelivered eventId when entries never succeed', async () => {
    local.faults.failEntryRate = 1;
    const events = visitEvents(4);
    const error = (await sinkFor(client, 3)
      .publish(events)
      .catch((e: unknown) => e)) as PublishError;
    expect(error).toBeInstanceOf(PublishError);
    expect([...error.failedEventIds].sort()).toEqual(events.map((e) => e.detail.eventId).sort());
    expect(error.attempts).toBe(3);
    expect(local.events).toHaveLength(0);
    expect(local.stats.failedEntries).toBe(12);
  });

  it('throws PublishError when the endpoint keeps throttling', async () => {
    local.faults.throttleRate = 1;
    await expect(sinkFor(client, 3).publish(visitEvents(2))).rejects.toMatchObject({
      name: 'PublishError',
      attempts: 3,
    });
    expect(local.stats.throttledRequests).toBe(3);
  });

  it('sends large events in requests the endpoint accepts (it enforces the 256 KB limit)', async () => {
    const events = largeEvents(9, 80_000);
    await sinkFor(client).publish(events);
    expect(receivedIds().sort()).toEqual(events.map((e) => e.detail.eventId).sort());
    expect(local.stats.putEventsRequests).toBe(3);
  });

  it('is reachable through AWS_ENDPOINT_URL_EVENTBRIDGE, as the CLI uses it', async () => {
    const previous = process.env.AWS_ENDPOINT_URL_EVENTBRIDGE;
    process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = local.endpoint;
    try {
      const fromEnv = new EventBridgeClient({
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      await sinkFor(fromEnv).publish(visitEvents(1));
      fromEnv.destroy();
    } finally {
      if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_EVENTBRIDGE;
      else process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = previous;
    }
    expect(local.events).toHaveLength(1);
  });
});

describe('local EventBridge endpoint behaves like the service', () => {
  it('creates and describes buses, refusing duplicates and unknown names', async () => {
    const created = await client.send(new CreateEventBusCommand({ Name: 'orders' }));
    expect(created.EventBusArn).toBe('arn:aws:events:us-east-1:000000000000:event-bus/orders');
    await expect(client.send(new CreateEventBusCommand({ Name: 'orders' }))).rejects.toMatchObject({
      name: 'ResourceAlreadyExistsException',
    });
    const described = await client.send(new DescribeEventBusCommand({ Name: 'orders' }));
    expect(described.Arn).toBe(created.EventBusArn);
    await expect(client.send(new DescribeEventBusCommand({ Name: 'nope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('refuses more than 10 entries and requests of 256 KB or more', async () => {
    const entry = { Source: 's', DetailType: 'd', Detail: '{}' };
    await expect(
      client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry) })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    const big = { ...entry, Detail: JSON.stringify({ x: 'y'.repeat(100_000) }) };
    await expect(client.send(new PutEventsCommand({ Entries: [big, big, big] }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(local.events).toHaveLength(0);
  });

  it('answers per entry: malformed detail, missing bus (when buses are not auto-created)', async () => {
    const strict = await startLocalEventBridge({ autoCreateBuses: false });
    const strictClient = clientFor(strict.endpoint);
    try {
      const out = await strictClient.send(
        new PutEventsCommand({
          Entries: [
            { Source: 's', DetailType: 'd', Detail: '{"ok":true}' },
            { Source: 's', DetailType: 'd', Detail: 'not json' },
            { Source: 's', DetailType: 'd', Detail: '{}', EventBusName: 'missing' },
          ],
        }),
      );
      expect(out.FailedEntryCount).toBe(2);
      expect(out.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual([
        'ok',
        'MalformedDetail',
        'InvalidArgument',
      ]);
      expect(strict.events.map((e) => e.detail)).toEqual([{ ok: true }]);
    } finally {
      strictClient.destroy();
      await strict.close();
    }
  });

  it('injects faults reproducibly from its seed', async () => {
    const runOnce = async () => {
      const seeded = await startLocalEventBridge({ seed: 7, failEntryRate: 0.5 });
      const seededClient = clientFor(seeded.endpoint);
      const entries = Array.from({ length: 10 }, (_, i) => ({
        Source: 's',
        DetailType: 'd',
        Detail: `{"i":${i}}`,
      }));
      const out = await seededClient.send(new PutEventsCommand({ Entries: entries }));
      seededClient.destroy();
      await seeded.close();
      return out.Entries?.map((e) => (e.ErrorCode ? 'x' : 'o')).join('');
    };
    const first = await runOnce();
    expect(first).toMatch(/x/);
    expect(first).toMatch(/o/);
    expect(await runOnce()).toBe(first);
  });
});

describe('watching what arrives (local-aws)', () => {
  it('calls onEvent with every accepted entry, and keepEvents: false keeps none in memory', async () => {
    const seen: string[] = [];
    const watcher = await startLocalEventBridge({
      port: 0,
      keepEvents: false,
      onEvent: (e) =>
        seen.push(`${e.eventBusName}/${e.detailType}/${(e.detail as { eventId: string }).eventId}`),
    });
    const c = clientFor(watcher.endpoint);
    try {
      const events = visitEvents(12);
      watcher.faults.failNext(1); // a failed entry is not accepted, so not reported
      await sinkFor(c).publish(events);
      expect(seen.sort()).toEqual(
        events.map((e) => `gym-bridge/Member Visit Recorded/${e.detail.eventId}`).sort(),
      );
      expect(watcher.events).toEqual([]);
    } finally {
      c.destroy();
      await watcher.close();
    }
  });
});
