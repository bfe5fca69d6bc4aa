/**
 * An SQS-compatible endpoint for the scale bench: what the real `@aws-sdk/client-sqs` (3.11xx,
 * AWS JSON 1.0: `X-Amz-Target: AmazonSQS.SendMessageBatch`, `application/x-amz-json-1.0`) sends the
 * dispatcher's queue adapter, answered over a socket by the one local AWS JSON server
 * (local-aws/aws-json-server.ts). It keeps no message: it checks each request as SQS does
 * (1..10 entries, distinct ids, 256 KiB, DelaySeconds 0..900), answers with MD5OfMessageBody (the
 * SDK verifies it) and counts what was sent: messages, requests, bytes, and the messages per
 * DelaySeconds (the spread of the period as the queue would deliver it).
 *
 * Faults: `failNextEntries(n)`: the next n entries come back in `Failed` (SenderFault false), as
 * SQS reports an entry it could not take; the adapter resubmits them alone.
 */

import { createHash, randomUUID } from 'node:crypto';
import { parsePollBody } from '../../lambdas/common/poll-message';
import { AwsJsonError, type AwsJsonServer, startAwsJsonServer } from '../../local-aws/aws-json-server';

export interface SqsEndpointStats {
  readonly requests: number;
  readonly messages: number;
  readonly failedEntries: number;
  readonly bodyBytes: number;
  /** Messages per DelaySeconds value (index = seconds). */
  readonly byDelaySeconds: number[];
}

export interface SqsEndpoint {
  readonly endpoint: string;
  readonly queueUrl: string;
  stats(): SqsEndpointStats;
  reset(): void;
  failNextEntries(count: number): void;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

function invalid(code: string, message: string): AwsJsonError {
  return new AwsJsonError(code, message, 400, { 'x-amzn-query-error': `${code};Sender` });
}

/** The entries of a SendMessageBatch request, checked as SQS checks them. */
function checkedEntries(input: Record<string, unknown>): Record<string, unknown>[] {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0) throw invalid('EmptyBatchRequest', 'no entries');
  if (entries.length > 10) throw invalid('TooManyEntriesInBatchRequest', 'more than 10 entries');
  const ids = entries.map((e: Record<string, unknown>) => e.Id);
  if (new Set(ids).size !== ids.length) throw invalid('BatchEntryIdsNotDistinct', 'ids are not distinct');
  let bytes = 0;
  for (const e of entries as Record<string, unknown>[]) {
    if (typeof e.MessageBody !== 'string' || e.MessageBody === '') {
      throw invalid('MissingParameter', 'an entry has no MessageBody');
    }
    bytes += Buffer.byteLength(e.MessageBody);
    const delay = e.DelaySeconds ?? 0;
    if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0 || delay > 900) {
      throw invalid('InvalidParameterValue', `DelaySeconds ${String(delay)} is not in 0..900`);
    }
  }
  if (bytes > 256 * 1024) throw invalid('BatchRequestTooLong', 'over 262144 bytes');
  return entries as Record<string, unknown>[];
}

export async function startSqsEndpoint(): Promise<SqsEndpoint> {
  let counts = { requests: 0, messages: 0, failedEntries: 0, bodyBytes: 0, byDelaySeconds: [] as number[] };
  let failEntries = 0;
  let queueUrl = '';
  const sendMessageBatch = (input: Record<string, unknown>) => {
    const entries = checkedEntries(input);
    counts.requests++;
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const e of entries) {
      if (failEntries > 0) {
        failEntries--;
        counts.failedEntries++;
        Failed.push({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'Injected failure' });
        continue;
      }
      const body = e.MessageBody as string;
      const delay = Number(e.DelaySeconds ?? 0);
      counts.messages++;
      counts.bodyBytes += Buffer.byteLength(body);
      // Counted in clubs: a group message carries several (common/poll-message.ts).
      const parsed = parsePollBody(body);
      const clubs = parsed.ok ? parsed.messages.length : 1;
      counts.byDelaySeconds[delay] = (counts.byDelaySeconds[delay] ?? 0) + clubs;
      Successful.push({ Id: e.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(body) });
    }
    return { Successful, Failed };
  };
  const server: AwsJsonServer = await startAwsJsonServer({
    targetPrefix: 'AmazonSQS',
    contentType: 'application/x-amz-json-1.0',
    errorType: (type) => (type.includes('#') ? type : `com.amazonaws.sqs#${type}`),
    operations: {
      SendMessageBatch: sendMessageBatch,
      GetQueueUrl: () => ({ QueueUrl: queueUrl }),
    },
  });
  queueUrl = `${server.endpoint}/000000000000/bench-poll-queue`;
  return {
    endpoint: server.endpoint,
    queueUrl,
    stats: () => ({ ...counts, byDelaySeconds: Array.from(counts.byDelaySeconds, (n) => n ?? 0) }),
    reset: () => {
      counts = { requests: 0, messages: 0, failedEntries: 0, bodyBytes: 0, byDelaySeconds: [] };
    },
    failNextEntries: (count) => {
      failEntries += count;
    },
    close: server.close,
  };
}
