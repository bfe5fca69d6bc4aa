/**
 * The scale bench's SQS-compatible endpoint, reached by the real @aws-sdk/client-sqs through the
 * real SqsPollQueue: the protocol the SDK speaks, per-entry failures resubmitted, delays counted,
 * and a request SQS would refuse refused.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsEndpoint, startSqsEndpoint } from '../../../bench/scale/sqs-endpoint';
import { awsClientConfig } from '../../../lambdas/common/aws-clients';
import { SqsPollQueue } from '../../../lambdas/common/poll-queue';

const message = (i: number) => ({
  clubId: `club-${i}`,
  sources: ['visits' as const],
  dispatchedAt: '2026-06-10T12:00:00.000Z',
});

describe('bench SQS endpoint', () => {
  let sqs: SqsEndpoint;
  let client: SQSClient;

  beforeAll(async () => {
    sqs = await startSqsEndpoint();
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

  it("takes the SDK's SendMessageBatch calls, fails the entries it is told to, and the adapter resubmits them", async () => {
    // Prepare
    sqs.reset();
    sqs.failNextEntries(3);
    const nowMs = 1_000_000;
    const queue = new SqsPollQueue({
      client,
      queueUrl: sqs.queueUrl,
      sleep: async () => {},
      now: () => nowMs,
    });
    // Act: 25 messages, half of them delayed by 7 s.
    await queue.sendBatch(
      Array.from({ length: 25 }, (_, i) => ({
        message: message(i),
        ...(i % 2 ? { notBeforeMs: nowMs + 7000 } : {}),
      })),
    );
    // Assess: every message taken once; 3 batches plus one resubmission.
    const stats = sqs.stats();
    expect(stats).toMatchObject({ messages: 25, failedEntries: 3, requests: 4 });
    expect(stats.byDelaySeconds[0]).toBe(13);
    expect(stats.byDelaySeconds[7]).toBe(12);
  });

  it('refuses a batch SQS would refuse, naming the reason', async () => {
    const send = (Entries: { Id: string; MessageBody: string; DelaySeconds?: number }[]) =>
      client.send(new SendMessageBatchCommand({ QueueUrl: sqs.queueUrl, Entries }));
    await expect(send([{ Id: 'a', MessageBody: 'x', DelaySeconds: 901 }])).rejects.toThrow(
      /DelaySeconds 901/,
    );
    await expect(
      send([
        { Id: 'a', MessageBody: 'x' },
        { Id: 'a', MessageBody: 'y' },
      ]),
    ).rejects.toMatchObject({ name: 'BatchEntryIdsNotDistinct' });
  });
});
