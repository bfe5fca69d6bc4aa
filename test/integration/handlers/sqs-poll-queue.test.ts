/**
 * SqsPollQueue against the local SQS: batches of 10, failed entries retried alone, clear failures.
 * The client has the deployment's retry settings: a 5xx to the whole request is the SDK's to retry.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsClientConfig } from '../../../lambdas/common/aws-clients';
import type { PollMessage } from '../../../lambdas/common/deployment-contract';
import { parsePollBody } from '../../../lambdas/common/poll-message';
import { type PollQueueEntry, PollQueueError, SqsPollQueue } from '../../../lambdas/common/poll-queue';
import { type LocalSqs, startLocalSqs } from '../../support/local-sqs';

const message = (i: number): PollMessage => ({
  clubId: `club-${String(i).padStart(2, '0')}`,
  sources: ['visits'],
  dispatchedAt: '2026-06-10T12:00:00.000Z',
});
const messages = (n: number): PollQueueEntry[] =>
  Array.from({ length: n }, (_, i) => ({ message: message(i) }));

describe('SqsPollQueue', () => {
  let sqs: LocalSqs;
  let client: SQSClient;
  const queueFor = (name: string, maxAttempts = 5) =>
    new SqsPollQueue({ client, queueUrl: sqs.createQueue(name).url, maxAttempts, sleep: async () => {} });

  beforeAll(async () => {
    sqs = await startLocalSqs();
    client = new SQSClient({
      ...awsClientConfig(),
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await sqs.close();
  });

  it('sends 23 messages in 3 calls and retries only the entries that failed', async () => {
    // Prepare
    const queue = queueFor('retries');
    sqs.failNextEntries(4);
    const callsBefore = sqs.calls.get('SendMessageBatch') ?? 0;
    // Act
    await queue.sendBatch(messages(23));
    // Assess: every message exactly once; 3 batches plus retry calls for the failed entries.
    const bodies = sqs.queue('retries').messages.map((m) => JSON.parse(m.body).clubId as string);
    expect(bodies.sort()).toEqual(messages(23).map((m) => m.message.clubId));
    expect((sqs.calls.get('SendMessageBatch') ?? 0) - callsBefore).toBe(4);
  });

  it('delays a message until its moment, counted when each request (a retry too) is built, at most 900 s', async () => {
    // Prepare: a clock that moves 4 s between the first request and its retry.
    const clock = { nowMs: 1_000_000 };
    const queue = new SqsPollQueue({
      client,
      queueUrl: sqs.createQueue('delays').url,
      sleep: async () => {
        clock.nowMs += 4000;
      },
      now: () => clock.nowMs,
    });
    sqs.failNextEntries(1); // the first entry (club-00) is retried
    // Act
    await queue.sendBatch([
      { message: message(0), notBeforeMs: clock.nowMs + 20_000 },
      { message: message(1), notBeforeMs: clock.nowMs + 12_300 },
      { message: message(2), notBeforeMs: clock.nowMs - 5000 },
      { message: message(3) },
      { message: message(4), notBeforeMs: clock.nowMs + 3_600_000 },
    ]);
    // Assess: each message visible after its DelaySeconds (the local SQS keeps when).
    const delays = Object.fromEntries(
      sqs
        .queue('delays')
        .messages.map((m) => [JSON.parse(m.body).clubId, Math.round((m.visibleAtMs - m.sentAtMs) / 1000)]),
    );
    expect(delays).toEqual({ 'club-00': 16, 'club-01': 13, 'club-02': 0, 'club-03': 0, 'club-04': 900 });
  });

  it('puts clubsPerMessage clubs in a message, in order, visible at the earliest of their moments', async () => {
    // Prepare
    const clock = { nowMs: 1_000_000 };
    const queue = new SqsPollQueue({
      client,
      queueUrl: sqs.createQueue('groups').url,
      clubsPerMessage: 5,
      now: () => clock.nowMs,
    });
    const entries = messages(23).map((e, i) => ({ ...e, notBeforeMs: clock.nowMs + (i + 1) * 1000 }));
    const callsBefore = sqs.calls.get('SendMessageBatch') ?? 0;
    // Act
    await queue.sendBatch(entries);
    // Assess: 5 messages of 5, 5, 5, 5 and 3 clubs in one call, each as early as its first club
    const sent = sqs.queue('groups').messages.map((m) => {
      const body = parsePollBody(m.body);
      if (!body.ok) throw new Error(body.problem);
      return {
        clubs: body.messages.map((p) => p.clubId),
        delay: Math.round((m.visibleAtMs - m.sentAtMs) / 1000),
      };
    });
    sent.sort((a, b) => a.delay - b.delay);
    expect(sent.map((g) => g.clubs.length)).toEqual([5, 5, 5, 5, 3]);
    expect(sent.flatMap((g) => g.clubs)).toEqual(entries.map((e) => e.message.clubId));
    expect(sent.map((g) => g.delay)).toEqual([1, 6, 11, 16, 21]);
    expect((sqs.calls.get('SendMessageBatch') ?? 0) - callsBefore).toBe(1);
    expect(() => new SqsPollQueue({ client, queueUrl: 'x', clubsPerMessage: 21 })).toThrow(/1\.\.20/);
  });

  it("never groups a club twice, nor a fast-lane probe more than 2 s past the group's first moment", async () => {
    // Prepare: three clubs' minute polls a second apart, then each one's probes 15 s apart.
    const clock = { nowMs: 2_000_000 };
    const queue = new SqsPollQueue({
      client,
      queueUrl: sqs.createQueue('lanes').url,
      clubsPerMessage: 20,
      now: () => clock.nowMs,
    });
    const entries: PollQueueEntry[] = [0, 1, 2].map((i) => ({
      message: message(i),
      notBeforeMs: clock.nowMs + i * 1000,
    }));
    for (const k of [1, 2, 3])
      for (const i of [0, 1, 2])
        entries.push({
          message: { ...message(i), lane: 'fast' },
          notBeforeMs: clock.nowMs + i * 1000 + k * 15_000,
        });
    // Act
    await queue.sendBatch(entries);
    // Assess: the minute polls in one message; each round of probes in one of its own, at its moment.
    const sent = sqs.queue('lanes').messages.map((m) => {
      const body = parsePollBody(m.body);
      if (!body.ok) throw new Error(body.problem);
      return {
        lanes: body.messages.map((p) => `${p.clubId}:${p.lane ?? 'minute'}`),
        delay: Math.round((m.visibleAtMs - m.sentAtMs) / 1000),
      };
    });
    sent.sort((a, b) => a.delay - b.delay);
    expect(sent.map((g) => g.delay)).toEqual([0, 15, 30, 45]);
    expect(sent[0]!.lanes).toEqual(['club-00:minute', 'club-01:minute', 'club-02:minute']);
    for (const g of sent.slice(1)) expect(g.lanes).toEqual(['club-00:fast', 'club-01:fast', 'club-02:fast']);
  });

  it('carries up to 50 probes a message, and never mixes them with the minute polls', async () => {
    // Prepare: 60 clubs' probes at one moment, behind 25 minute polls.
    const clock = { nowMs: 3_000_000 };
    const queue = new SqsPollQueue({
      client,
      queueUrl: sqs.createQueue('probes').url,
      clubsPerMessage: 20,
      now: () => clock.nowMs,
    });
    const entries: PollQueueEntry[] = [
      ...messages(25),
      ...Array.from({ length: 60 }, (_, i) => ({
        message: { ...message(i), lane: 'fast' as const },
        notBeforeMs: clock.nowMs + 15_000,
      })),
    ];
    // Act
    await queue.sendBatch(entries);
    // Assess: minute polls 20 + 5, probes 50 + 10; each body parses back whole.
    const sizes = sqs.queue('probes').messages.map((m) => {
      const body = parsePollBody(m.body);
      if (!body.ok) throw new Error(body.problem);
      const lanes = new Set(body.messages.map((p) => p.lane ?? 'minute'));
      expect(lanes.size).toBe(1);
      return `${[...lanes][0]}:${body.messages.length}`;
    });
    expect(sizes.sort()).toEqual(['fast:10', 'fast:50', 'minute:20', 'minute:5']);
    // A body of more than 20 minute polls is refused.
    const tooMany = JSON.stringify({ polls: messages(21).map((e) => e.message) });
    expect(parsePollBody(tooMany)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/more than 20/),
    });
  });

  it('names every club of a group it could not queue', async () => {
    // Prepare
    const queue = new SqsPollQueue({
      client,
      queueUrl: sqs.createQueue('groups-failing').url,
      maxAttempts: 2,
      sleep: async () => {},
      clubsPerMessage: 3,
    });
    sqs.failNextEntries(2 * 2);
    // Act
    const failed = await queue.sendBatch(messages(4)).catch((e: unknown) => e);
    // Assess: both messages failed twice: all four clubs named
    expect(failed).toBeInstanceOf(PollQueueError);
    expect([...(failed as PollQueueError).clubIds].sort()).toEqual([
      'club-00',
      'club-01',
      'club-02',
      'club-03',
    ]);
  });

  it('survives a 5xx answer to the whole request', async () => {
    const queue = queueFor('server-error');
    sqs.serverErrorNext(1);
    await queue.sendBatch(messages(3));
    expect(sqs.queue('server-error').messages).toHaveLength(3);
  });

  it('names the clubs it could not queue, after its attempts or at once for a missing queue', async () => {
    // Prepare
    const flaky = queueFor('always-failing', 3);
    sqs.failNextEntries(3 * 2);
    const missing = new SqsPollQueue({
      client,
      queueUrl: `${sqs.endpoint}/000000000000/missing`,
      sleep: async () => {},
    });
    // Act
    const exhausted = await flaky.sendBatch(messages(2)).catch((e: unknown) => e);
    const callsBefore = sqs.calls.get('SendMessageBatch') ?? 0;
    const refused = await missing.sendBatch(messages(1)).catch((e: unknown) => e);
    // Assess
    expect(exhausted).toBeInstanceOf(PollQueueError);
    expect((exhausted as PollQueueError).clubIds).toEqual(['club-00', 'club-01']);
    expect(refused).toBeInstanceOf(PollQueueError);
    expect((refused as PollQueueError).message).toContain('clubs club-00');
    expect((refused as PollQueueError).cause).toMatchObject({ name: 'QueueDoesNotExist' });
    expect((sqs.calls.get('SendMessageBatch') ?? 0) - callsBefore).toBe(1);
  });
});
