/**
 * A minimal SQS-compatible server for tests: the AWS JSON 1.0 protocol the current SDK uses
 * (`X-Amz-Target: AmazonSQS.<Operation>`, `application/x-amz-json-1.0`), so the real
 * `@aws-sdk/client-sqs` talks to it over a socket (`endpoint`, or AWS_ENDPOINT_URL_SQS; queue URLs
 * point at this server too). Signatures are not checked. In memory, 127.0.0.1, ephemeral port.
 *
 * Operations: CreateQueue, GetQueueUrl, SendMessage, SendMessageBatch (1..10 entries, distinct ids,
 * 256 KiB in total), ReceiveMessage (visibility timeout, receive count; no long polling),
 * DeleteMessage, GetQueueAttributes (approximate counts). Bodies carry MD5OfMessageBody / MD5OfBody,
 * which the SDK verifies. Errors: `{"__type": "com.amazonaws.sqs#<Code>", "message"}` plus the
 * `x-amzn-query-error: <legacy code>;Sender` header, as SQS sends them.
 *
 * Faults: `failNextEntries(n)` (the next n batch entries come back in `Failed`, not the sender's
 * fault), `serverErrorNext(n)` (the next n requests get a 500).
 *
 * Lambda's SQS event source, emulated: `takeEvent(queue)` receives like the event source mapping
 * and returns an SQSEvent; `settle(event, response)` deletes what succeeded and makes the
 * `batchItemFailures` visible again (partial batch responses).
 *
 * The protocol part is the one AWS JSON helper (local-aws/aws-json-server.ts), shared with
 * the local Secrets Manager and the local EventBridge.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  AwsJsonError,
  type AwsJsonOperation,
  requireString,
  startAwsJsonServer,
} from '../../local-aws/aws-json-server';

export interface LocalSqsOptions {
  readonly port?: number;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '000000000000' */
  readonly accountId?: string;
}

export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentAtMs: number;
  receiveCount: number;
  firstReceiveAtMs?: number;
  visibleAtMs: number;
  receiptHandle?: string;
}

export interface LocalQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  /** Every message not yet deleted, in send order. */
  readonly messages: StoredMessage[];
  visibilityTimeoutSec: number;
}

export interface LocalSqs {
  readonly endpoint: string;
  readonly region: string;
  /** Requests per operation. */
  readonly calls: Map<string, number>;
  createQueue(name: string): LocalQueue;
  queue(nameOrUrl: string): LocalQueue;
  /** The next n SendMessageBatch entries fail with InternalError (SenderFault false). */
  failNextEntries(count: number): void;
  /** The next n requests get HTTP 500. */
  serverErrorNext(count: number): void;
  /** Receives up to `max` visible messages as Lambda's event source mapping does. */
  takeEvent(queue: string, max?: number): SQSEvent;
  /** Deletes the records of `event` that did not fail; failed ones become visible again. */
  settle(event: SQSEvent, response: SQSBatchResponse | undefined): void;
  close(): Promise<void>;
}

const MAX_BATCH_ENTRIES = 10;
const MAX_BATCH_BYTES = 256 * 1024;
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** SQS JSON errors: namespaced __type, and the legacy query code in x-amzn-query-error. */
function sqsError(code: string, legacy: string, message: string, status = 400): AwsJsonError {
  return new AwsJsonError(code, message, status, { 'x-amzn-query-error': `${legacy};Sender` });
}

export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const queues = new Map<string, LocalQueue>();
  const pending = { failEntries: 0, serverErrors: 0 };
  let endpoint = '';
  let handles = 0;

  const createQueue = (name: string): LocalQueue => {
    const existing = queues.get(name);
    if (existing) return existing;
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
      throw sqsError('InvalidParameterValue', 'InvalidParameterValue', `Invalid queue name ${name}`);
    }
    const queue: LocalQueue = {
      name,
      url: `${endpoint}/${accountId}/${name}`,
      arn: `arn:aws:sqs:${region}:${accountId}:${name}`,
      messages: [],
      visibilityTimeoutSec: 30,
    };
    queues.set(name, queue);
    return queue;
  };
  const queueOf = (nameOrUrl: unknown): LocalQueue => {
    const name = typeof nameOrUrl === 'string' ? (nameOrUrl.split('/').pop() ?? '') : '';
    const queue = queues.get(name);
    if (!queue) {
      throw sqsError(
        'QueueDoesNotExist',
        'AWS.SimpleQueueService.NonExistentQueue',
        'The specified queue does not exist.',
      );
    }
    return queue;
  };
  const enqueue = (queue: LocalQueue, body: unknown, delaySeconds: unknown): StoredMessage => {
    if (typeof body !== 'string' || body.length === 0) {
      throw sqsError(
        'MissingParameter',
        'MissingParameter',
        'The request must contain the parameter MessageBody.',
      );
    }
    const now = Date.now();
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5OfBody: md5(body),
      sentAtMs: now,
      receiveCount: 0,
      visibleAtMs: now + (typeof delaySeconds === 'number' ? delaySeconds * 1000 : 0),
    };
    queue.messages.push(message);
    return message;
  };
  const receive = (queue: LocalQueue, max: number, visibilitySec: number): StoredMessage[] => {
    const now = Date.now();
    const out: StoredMessage[] = [];
    for (const m of queue.messages) {
      if (out.length >= max) break;
      if (m.visibleAtMs > now) continue;
      m.receiveCount++;
      m.firstReceiveAtMs ??= now;
      m.visibleAtMs = now + visibilitySec * 1000;
      m.receiptHandle = `rh-${++handles}-${m.messageId}`;
      out.push(m);
    }
    return out;
  };
  const remove = (queue: LocalQueue, receiptHandle: unknown): void => {
    const index = queue.messages.findIndex(
      (m) => m.receiptHandle !== undefined && m.receiptHandle === receiptHandle,
    );
    if (index < 0) {
      throw sqsError('ReceiptHandleIsInvalid', 'ReceiptHandleIsInvalid', 'The receipt handle is not valid.');
    }
    queue.messages.splice(index, 1);
  };

  const operations: Record<string, AwsJsonOperation> = {
    CreateQueue: (input) => ({ QueueUrl: createQueue(requireString(input, 'QueueName')).url }),
    GetQueueUrl: (input) => ({ QueueUrl: queueOf(requireString(input, 'QueueName')).url }),
    SendMessage: (input) => {
      const m = enqueue(queueOf(input.QueueUrl), input.MessageBody, input.DelaySeconds);
      return { MessageId: m.messageId, MD5OfMessageBody: m.md5OfBody };
    },
    SendMessageBatch: (input) => {
      const queue = queueOf(input.QueueUrl);
      const entries = input.Entries;
      if (!Array.isArray(entries) || entries.length === 0) {
        throw sqsError(
          'EmptyBatchRequest',
          'AWS.SimpleQueueService.EmptyBatchRequest',
          'There should be at least one entry.',
        );
      }
      if (entries.length > MAX_BATCH_ENTRIES) {
        throw sqsError(
          'TooManyEntriesInBatchRequest',
          'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
          `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}.`,
        );
      }
      const ids = entries.map((e: Record<string, unknown>) => e.Id);
      if (new Set(ids).size !== ids.length) {
        throw sqsError(
          'BatchEntryIdsNotDistinct',
          'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
          'Ids are not distinct.',
        );
      }
      const total = entries.reduce(
        (n: number, e: Record<string, unknown>) => n + Buffer.byteLength(String(e.MessageBody ?? '')),
        0,
      );
      if (total > MAX_BATCH_BYTES) {
        throw sqsError(
          'BatchRequestTooLong',
          'AWS.SimpleQueueService.BatchRequestTooLong',
          'Batch requests cannot be longer than 262144 bytes.',
        );
      }
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const e of entries as Record<string, unknown>[]) {
        if (pending.failEntries > 0) {
          pending.failEntries--;
          Failed.push({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'Injected failure' });
          continue;
        }
        const m = enqueue(queue, e.MessageBody, e.DelaySeconds);
        Successful.push({ Id: e.Id, MessageId: m.messageId, MD5OfMessageBody: m.md5OfBody });
      }
      return { Successful, Failed };
    },
    ReceiveMessage: (input) => {
      const queue = queueOf(input.QueueUrl);
      const max = typeof input.MaxNumberOfMessages === 'number' ? input.MaxNumberOfMessages : 1;
      if (max < 1 || max > 10) {
        throw sqsError(
          'InvalidParameterValue',
          'InvalidParameterValue',
          'MaxNumberOfMessages must be 1..10.',
        );
      }
      const visibility =
        typeof input.VisibilityTimeout === 'number' ? input.VisibilityTimeout : queue.visibilityTimeoutSec;
      const messages = receive(queue, max, visibility);
      return {
        Messages: messages.map((m) => ({
          MessageId: m.messageId,
          ReceiptHandle: m.receiptHandle,
          MD5OfBody: m.md5OfBody,
          Body: m.body,
          Attributes: {
            ApproximateReceiveCount: String(m.receiveCount),
            SentTimestamp: String(m.sentAtMs),
            ApproximateFirstReceiveTimestamp: String(m.firstReceiveAtMs),
          },
        })),
      };
    },
    DeleteMessage: (input) => {
      remove(queueOf(input.QueueUrl), input.ReceiptHandle);
      return {};
    },
    GetQueueAttributes: (input) => {
      const queue = queueOf(input.QueueUrl);
      const now = Date.now();
      const visible = queue.messages.filter((m) => m.visibleAtMs <= now).length;
      return {
        Attributes: {
          ApproximateNumberOfMessages: String(visible),
          ApproximateNumberOfMessagesNotVisible: String(queue.messages.length - visible),
          QueueArn: queue.arn,
        },
      };
    },
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AmazonSQS',
    contentType: 'application/x-amz-json-1.0',
    operations,
    errorType: (type) =>
      type.includes('#') || type === 'UnknownOperationException' ? type : `com.amazonaws.sqs#${type}`,
    beforeOperation: () => {
      if (pending.serverErrors > 0) {
        pending.serverErrors--;
        throw new AwsJsonError('InternalError', 'Injected server error', 500);
      }
    },
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  endpoint = server.endpoint;

  return {
    endpoint,
    region,
    calls: server.calls,
    createQueue,
    queue: (nameOrUrl) => queueOf(nameOrUrl),
    failNextEntries: (count) => {
      pending.failEntries += count;
    },
    serverErrorNext: (count) => {
      pending.serverErrors += count;
    },
    takeEvent: (name, max = 10) => {
      const queue = queueOf(name);
      return {
        Records: receive(queue, max, queue.visibilityTimeoutSec).map(
          (m): SQSRecord => ({
            messageId: m.messageId,
            receiptHandle: m.receiptHandle!,
            body: m.body,
            attributes: {
              ApproximateReceiveCount: String(m.receiveCount),
              SentTimestamp: String(m.sentAtMs),
              SenderId: accountId,
              ApproximateFirstReceiveTimestamp: String(m.firstReceiveAtMs),
            },
            messageAttributes: {},
            md5OfBody: m.md5OfBody,
            eventSource: 'aws:sqs',
            eventSourceARN: queue.arn,
            awsRegion: region,
          }),
        ),
      };
    },
    settle: (event, response) => {
      const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      for (const record of event.Records) {
        const queue = queueOf(record.eventSourceARN.split(':').pop());
        const message = queue.messages.find((m) => m.messageId === record.messageId);
        if (!message) continue;
        if (failed.has(record.messageId)) message.visibleAtMs = Date.now();
        else remove(queue, record.receiptHandle);
      }
    },
    close: server.close,
  };
}
