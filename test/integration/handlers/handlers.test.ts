/**
 * The dispatch and poll handlers in one warm container (./handlers-fixture.ts), one story in order:
 * due clubs dispatched to SQS, polled from the queue and published to the bus exactly as the
 * journal changed (with one EMF document an invocation), a club secret read once within its cache
 * TTL, malformed messages dropped, a club whose API is down retried alone (and a message of several
 * clubs back whole), and a club paused on a rejected API key or a spent quota with its one Club
 * Credentials Rejected / Club Quota Low event. Each test starts from what the earlier ones left.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbClubRegistry } from '../../../lambdas/clubs';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { ENV, METRIC } from '../../../lambdas/common/deployment-contract';
import { parsePollBody } from '../../../lambdas/common/poll-message';
import type { DispatchSummary } from '../../../lambdas/handlers/dispatch';
import { createDispatchHandler } from '../../../lambdas/handlers/dispatch-handler';
import { dispatchRuntimeFromEnv } from '../../../lambdas/handlers/dispatch-runtime';
import { DEFAULT_SOURCES } from '../../../lambdas/sources';
import type { DynamoDbStateStore } from '../../../lambdas/state';
import type { LocalEventBridge } from '../../../local-aws/local-eventbridge';
import type { Sandbox } from '../../../sandbox';
import { actualKeys, compare, expectedKeys } from '../../support/ground-truth';
import type { LocalSecretsManager } from '../../support/local-secrets-manager';
import type { LocalSqs } from '../../support/local-sqs';
import {
  awsCredentials,
  downClub,
  type Handler,
  lambdaContext,
  MINUTE,
  PREFIX,
  QUEUE,
  startWarmContainer,
  type WarmContainer,
} from './handlers-fixture';

describe('dispatch and poll handlers', () => {
  let container: WarmContainer;
  let sandbox: Sandbox;
  let quotaSandbox: Sandbox;
  let bus: LocalEventBridge;
  let sqs: LocalSqs;
  let sm: LocalSecretsManager;
  let registry: DynamoDbClubRegistry;
  let store: DynamoDbStateStore;
  let dispatch: Handler<unknown, DispatchSummary>;
  let clubs: ClubConfig[];
  let stdout: string[];
  let emf: WarmContainer['emf'];
  let onboard: WarmContainer['onboard'];
  let events: WarmContainer['events'];
  let runPoll: WarmContainer['runPoll'];
  let advance: WarmContainer['advance'];

  beforeAll(async () => {
    container = await startWarmContainer();
    ({
      sandbox,
      quotaSandbox,
      bus,
      sqs,
      sm,
      registry,
      store,
      dispatch,
      clubs,
      stdout,
      emf,
      onboard,
      events,
      runPoll,
      advance,
    } = container);
  });
  afterAll(() => container.close());

  it('dispatches due clubs to SQS, polls them from the queue and publishes exactly the journal to the bus', async () => {
    // Prepare: two healthy clubs.
    const [a, b] = [clubs[0]!, clubs[1]!];
    await onboard(a);
    await onboard(b);

    // Act 1: first dispatch and poll (silent baselines).
    const first = await dispatch({}, lambdaContext('dispatch'));
    const firstEvent = sqs.takeEvent(QUEUE);
    const firstResponse = await runPoll(firstEvent);
    const baselineSeq = sandbox.journal.lastSeq;
    const afterBaseline = events().length;
    // Nothing is due moments later (the busiest cadence is one minute; 20 s is outside the 30 s
    // due tolerance).
    advance(20_000);
    const idle = await dispatch({}, lambdaContext('dispatch'));

    // Act 2: two hours of club activity later, every source is due again.
    advance(2 * 60 * MINUTE);
    const boundary = sandbox.journal.lastSeq;
    const second = await dispatch({}, lambdaContext('dispatch'));
    const secondEvent = sqs.takeEvent(QUEUE);
    const mark = stdout.length;
    const secondResponse = await runPoll(secondEvent);

    // Assess: one message per club, every source, batches settled, queue empty.
    expect(first).toMatchObject({ clubs: 2, messages: 2, due: 2 * DEFAULT_SOURCES.length, failed: 0 });
    expect(firstEvent.Records.map((r) => JSON.parse(r.body).clubId).sort()).toEqual([a.clubId, b.clubId]);
    expect(JSON.parse(firstEvent.Records[0]!.body).sources).toEqual(DEFAULT_SOURCES);
    expect(firstResponse.batchItemFailures).toEqual([]);
    expect(afterBaseline).toBe(0);
    expect(idle).toMatchObject({ clubs: 2, messages: 0 });
    expect(second).toMatchObject({ clubs: 2, messages: 2 });
    expect(secondResponse.batchItemFailures).toEqual([]);
    expect(sqs.queue(QUEUE).messages).toEqual([]);
    // Exactly the sandbox's changes of those two clubs, each once, with the deployment's source.
    const entries = sandbox.journal
      .entries(baselineSeq)
      .filter((e) => e.clubId === a.clubId || e.clubId === b.clubId)
      // Class attendance is experimental: not polled unless a club lists it.
      .filter((e) => e.kind !== 'classAttendance');
    const result = compare(expectedKeys(entries, [boundary]), actualKeys(events()));
    expect(result.expected).toBeGreaterThan(20);
    expect(result.missing).toEqual([]);
    expect(result.spurious).toEqual([]);
    expect(new Set(bus.events.map((e) => e.source))).toEqual(new Set(['gym-bridge.test']));
    // Metrics: ONE service-wide EMF document for the invocation's two club polls (a club's own
    // figures are on its `club polled` line): the counts summed, a duration per poll.
    const [doc, ...more] = emf(mark);
    expect(more).toEqual([]);
    expect(doc![METRIC.eventsPublished]).toBe(events(a.clubId).length + events(b.clubId).length);
    expect(doc![METRIC.apiRequests]).toBeGreaterThanOrEqual(2 * DEFAULT_SOURCES.length);
    expect(doc![METRIC.pollErrors]).toBe(0);
    expect(doc![METRIC.pollDuration]).toHaveLength(2);
    expect(doc).not.toHaveProperty('ClubId');
    expect(doc!.service).toBe('gym-bridge-test');
  });

  it('reads a club secret once for many polls within its cache TTL (warm container)', async () => {
    // Prepare: past the 30-minute TTL of what the first test read; three messages for club 1.
    const a = clubs[0]!;
    const secretName = `${PREFIX}${a.clubId}`;
    advance(31 * MINUTE);
    const before = sm.getSecretValueCalls(secretName);
    const sender = new SQSClient({
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: awsCredentials,
    });
    const send = async () => {
      const body = JSON.stringify({
        clubId: a.clubId,
        sources: ['visits'],
        dispatchedAt: new Date().toISOString(),
      });
      await sender.send(new SendMessageCommand({ QueueUrl: sqs.queue(QUEUE).url, MessageBody: body }));
    };
    // Act: two messages in one invocation (concurrent polls), then one more invocation.
    await send();
    await send();
    const together = await runPoll(sqs.takeEvent(QUEUE));
    advance(MINUTE);
    await send();
    const later = await runPoll(sqs.takeEvent(QUEUE));
    sender.destroy();
    // Assess: three polls, one GetSecretValue.
    expect(together.batchItemFailures).toEqual([]);
    expect(later.batchItemFailures).toEqual([]);
    expect(sm.getSecretValueCalls(secretName) - before).toBe(1);
  });

  it('drops malformed messages and messages for unknown clubs instead of retrying them', async () => {
    // Prepare
    const sender = new SQSClient({
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: awsCredentials,
    });
    const url = sqs.queue(QUEUE).url;
    for (const body of [
      'not json at all',
      JSON.stringify({ clubId: 'club-1', sources: ['nope'], dispatchedAt: new Date().toISOString() }),
      JSON.stringify({ clubId: 'ghost-club', sources: ['visits'], dispatchedAt: new Date().toISOString() }),
    ]) {
      await sender.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
    }
    sender.destroy();
    const before = bus.events.length;
    // Act
    const event = sqs.takeEvent(QUEUE);
    const response = await runPoll(event);
    // Assess
    expect(event.Records).toHaveLength(3);
    expect(response.batchItemFailures).toEqual([]);
    expect(sqs.queue(QUEUE).messages).toEqual([]);
    expect(bus.events.length).toBe(before);
  });

  it('reports only the club whose API is down as a batch item failure, and retries it', async () => {
    // Prepare: a club whose API does not answer, polled in one batch with a healthy club.
    const down = await downClub('down-club');
    await onboard(down);
    advance(20 * MINUTE);
    // Act
    const summary = await dispatch({}, lambdaContext('dispatch'));
    const event = sqs.takeEvent(QUEUE);
    const response = await runPoll(event);
    const retried = sqs.takeEvent(QUEUE);
    // Assess
    const downMessage = event.Records.find((r) => JSON.parse(r.body).clubId === 'down-club')!;
    expect(summary.messages).toBeGreaterThanOrEqual(2); // down-club and at least one healthy club
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: downMessage.messageId }]);
    expect(retried.Records.map((r) => [r.messageId, r.attributes.ApproximateReceiveCount])).toEqual([
      [downMessage.messageId, '2'],
    ]);
    const cursor = await store.view('down-club').getCursor('visits');
    expect(cursor.health.lastError?.kind).toBe('unavailable');
    sqs.settle(retried, { batchItemFailures: [] }); // leave the queue empty for the next tests
    await registry.disable('down-club');
  }, 20_000);

  it('a message of several clubs comes back whole for a club that is down; its polled clubs are skipped on the retry', async () => {
    // Prepare: a dispatcher putting 20 clubs in a message; a club whose API does not answer
    const groups = createDispatchHandler(
      dispatchRuntimeFromEnv({ ...process.env, [ENV.pollClubsPerMessage]: '20' }),
    );
    const down = await downClub('down-in-group');
    await onboard(down);
    advance(20 * MINUTE);
    // Act
    const summary = await groups({}, lambdaContext('dispatch'));
    const event = sqs.takeEvent(QUEUE);
    const healthy = parsePollBody(event.Records[0]!.body);
    const used = () => clubs.slice(0, 2).map((c) => sandbox.requestCounts(c.clubId).used);
    const initial = used();
    const response = await runPoll(event);
    const before = used();
    const retried = sqs.takeEvent(QUEUE);
    const again = await runPoll(retried);
    // Assess: one message for every club due; back whole, then its healthy clubs skipped (no request)
    expect(event.Records).toHaveLength(1);
    expect(healthy.ok && healthy.messages.map((m) => m.clubId)).toContain('down-in-group');
    expect(healthy.ok && healthy.messages.length).toBe(summary.messages);
    expect(summary.messages).toBeGreaterThanOrEqual(2);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }]);
    expect(retried.Records.map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['2']);
    expect(again.batchItemFailures).toHaveLength(1);
    expect(before.reduce((a, b) => a + b)).toBeGreaterThan(initial.reduce((a, b) => a + b));
    expect(used()).toEqual(before);
    sqs.settle(sqs.takeEvent(QUEUE), { batchItemFailures: [] }); // leave the queue empty for the next tests
    await registry.disable('down-in-group');
  }, 30_000);

  it('pauses a club whose API key is rejected and emits Club Credentials Rejected once', async () => {
    // Prepare: club 3 onboarded with a wrong API key.
    const bad = { ...clubs[2]!, credentials: { ...clubs[2]!.credentials, apiKey: 'not-the-key' } };
    await onboard(bad);
    const secretName = `${PREFIX}${bad.clubId}`;
    // Act: dispatch and poll; then the next dispatch; then a stray message for the club.
    await dispatch({}, lambdaContext('dispatch'));
    const event = sqs.takeEvent(QUEUE);
    const mark = stdout.length;
    const response = await runPoll(event);
    advance(2 * MINUTE);
    const next = await dispatch({}, lambdaContext('dispatch'));
    const nextEvent = sqs.takeEvent(QUEUE);
    const nextClubs = nextEvent.Records.map((r) => JSON.parse(r.body).clubId);
    sqs.settle(nextEvent, { batchItemFailures: [] });
    const requestsBefore = sandbox.requestCounts(bad.clubId).used;
    const sender = new SQSClient({
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: awsCredentials,
    });
    await sender.send(
      new SendMessageCommand({
        QueueUrl: sqs.queue(QUEUE).url,
        MessageBody: JSON.stringify({
          clubId: bad.clubId,
          sources: ['visits'],
          dispatchedAt: new Date().toISOString(),
        }),
      }),
    );
    sender.destroy();
    const stray = await runPoll(sqs.takeEvent(QUEUE));
    // Assess
    expect(response.batchItemFailures).toEqual([]); // a 401 is not retried: the club is paused
    const rejected = events(bad.clubId).filter((e) => e.detailType === 'Club Credentials Rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.detail).toMatchObject({ reason: 'apiKey', consecutiveFailures: 1 });
    expect(JSON.stringify(bus.events)).not.toContain('not-the-key');
    expect(next.clubs).toBeGreaterThanOrEqual(3); // evaluated, but not dispatched
    expect(nextClubs).not.toContain(bad.clubId);
    expect(stray.batchItemFailures).toEqual([]);
    expect(sandbox.requestCounts(bad.clubId).used).toBe(requestsBefore);
    const rejectedInDocs = emf(mark).map((d) => Number(d[METRIC.credentialsRejected] ?? 0));
    expect(rejectedInDocs.reduce((n, x) => n + x, 0)).toBe(1);
    // The rejected secret was dropped from the cache: the stray poll read it again.
    expect(sm.getSecretValueCalls(secretName)).toBe(2);
  });

  it('backs a rate-limited club off until its quota returns and emits Club Quota Low once', async () => {
    // Prepare: a club with 4 requests a month left at the API.
    const limited = parseClubsFile(quotaSandbox.clubsFile())[0]!;
    await onboard(limited);
    // Act: dispatch and poll (the 5th request gets 429); dispatch again; a stray message.
    await dispatch({}, lambdaContext('dispatch'));
    const event = sqs.takeEvent(QUEUE);
    const response = await runPoll(event);
    advance(10 * MINUTE);
    quotaSandbox.advance(10 * MINUTE);
    const next = await dispatch({}, lambdaContext('dispatch'));
    const nextEvent = sqs.takeEvent(QUEUE);
    const nextClubs = nextEvent.Records.map((r) => JSON.parse(r.body).clubId);
    sqs.settle(nextEvent, { batchItemFailures: [] });
    const rejectedBefore = quotaSandbox.requestCounts('quota-club').rejected;
    const sender = new SQSClient({
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: awsCredentials,
    });
    await sender.send(
      new SendMessageCommand({
        QueueUrl: sqs.queue(QUEUE).url,
        MessageBody: JSON.stringify({
          clubId: 'quota-club',
          sources: ['visits'],
          dispatchedAt: new Date().toISOString(),
        }),
      }),
    );
    sender.destroy();
    await runPoll(sqs.takeEvent(QUEUE));
    // Assess
    expect(event.Records.map((r) => JSON.parse(r.body).clubId)).toContain('quota-club');
    expect(response.batchItemFailures).toEqual([]);
    const low = events('quota-club').filter((e) => e.detailType === 'Club Quota Low');
    expect(low).toHaveLength(1);
    expect(low[0]!.detail).toMatchObject({ reason: 'rate-limited', limit: 1_000_000 });
    expect(next.clubs).toBeGreaterThanOrEqual(4);
    expect(nextClubs).not.toContain('quota-club');
    expect(quotaSandbox.requestCounts('quota-club').rejected).toBe(rejectedBefore);
    // Paused until the API's quota month ends (Retry-After), not for minutes.
    const cursors = await store.view('quota-club').listCursors();
    const pausedUntil = Math.max(...cursors.map((c) => Date.parse(c.health.pausedUntil ?? '1970-01-01')));
    expect(pausedUntil).toBeGreaterThanOrEqual(Date.parse('2026-04-01T00:00:00Z'));
  });
});
