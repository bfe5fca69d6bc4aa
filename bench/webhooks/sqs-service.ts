/**
 * The webhook bench's SQS endpoint: the AWS JSON 1.0 protocol the real `@aws-sdk/client-sqs` speaks
 * (what the delivery code sends: SendMessageBatch with MessageGroupId and DelaySeconds,
 * ChangeMessageVisibilityBatch), over fair queues (./fair-queue.ts), plus what the Lambda event
 * source mapping and the EventBridge rule target call (ReceiveMessage with long polling,
 * DeleteMessageBatch, SendMessage). Every request is counted per client, queue and operation with
 * the requests SQS bills for it: one per started 64 KB of its payload (SQS pricing). A client is
 * told apart by the queue URL it was given: `<endpoint>/<account>/<client>/<queue>` (the SDK sends
 * the URL with each request; a URL on the endpoint's own origin keeps the SDK on the endpoint).
 */
import { type FairQueue, FairQueue as Queue } from './fair-queue';
import { type JsonService, JsonServiceError, startJsonService } from './json-service';

const CHUNK = 64 * 1024;
const MAX_WAIT_SECONDS = 20;

/** Per `<client> <queue>` and operation: requests, and the requests billed (64 KB chunks). */
export type SqsCounts = Record<
  string,
  Record<string, { requests: number; billed: number; messages: number }>
>;

export interface SqsService {
  readonly endpoint: string;
  /** SendMessage as if over the wire (counted as one request each): EventBridge's rule target. */
  sendMessage(queueUrl: string, body: string): void;
  counts(): SqsCounts;
  reset(): void;
  close(): Promise<void>;
}

/** The queues by name. */
export class SqsQueues {
  readonly #queues = new Map<string, FairQueue>();
  closed = false;

  /** A new, empty queue (one of that name before is emptied and closed). */
  create(name: string, visibilityTimeoutSec: number): void {
    this.#queues.get(name)?.close();
    this.#queues.set(name, new Queue(name, name, visibilityTimeoutSec));
  }

  get(url: unknown): FairQueue | undefined {
    return this.#queues.get(String(url).split('/').pop() ?? '');
  }

  counts(name: string) {
    return this.#queues.get(name)?.counts() ?? { visible: 0, notVisible: 0, inFlight: 0 };
  }

  close(): void {
    this.closed = true;
    for (const q of this.#queues.values()) q.close();
  }
}

const sqsError = (code: string, message: string) => new JsonServiceError(code, message);

type Count = (q: FairQueue, client: string, op: string, bytes: number, messages: number) => void;
type Input = Record<string, unknown>;

/** The queue a URL names, and the client it was given to (`<endpoint>/<account>/<client>/<queue>`). */
function queueOf(queues: SqsQueues, url: unknown): [FairQueue, string] {
  const q = queues.get(url);
  if (!q) throw sqsError('QueueDoesNotExist', 'The specified queue does not exist.');
  return [q, String(url).split('/').at(-2) ?? '-'];
}

function entriesOf(input: Input): Input[] {
  const entries = input.Entries as Input[] | undefined;
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > 10)
    throw sqsError('TooManyEntriesInBatchRequest', 'a batch holds 1 to 10 entries');
  return entries;
}

/** What the rule target and the functions send. */
function sendOperations(queues: SqsQueues, count: Count) {
  return {
    SendMessage: (input: Input) => {
      const [q, client] = queueOf(queues, input.QueueUrl);
      const body = String(input.MessageBody ?? '');
      const m = q.send(body, Number(input.DelaySeconds ?? 0), input.MessageGroupId as string | undefined);
      count(q, client, 'SendMessage', Buffer.byteLength(body), 1);
      return { MessageId: m.messageId, MD5OfMessageBody: m.md5 };
    },
    SendMessageBatch: (input: Input) => {
      const [q, client] = queueOf(queues, input.QueueUrl);
      const entries = entriesOf(input);
      let bytes = 0;
      const Successful = entries.map((e) => {
        const body = String(e.MessageBody ?? '');
        const delay = Number(e.DelaySeconds ?? 0);
        if (!(delay >= 0 && delay <= 900)) throw sqsError('InvalidParameterValue', 'DelaySeconds 0..900');
        bytes += Buffer.byteLength(body);
        const m = q.send(body, delay, e.MessageGroupId as string | undefined);
        return { Id: e.Id, MessageId: m.messageId, MD5OfMessageBody: m.md5 };
      });
      if (bytes > 256 * 1024) throw sqsError('BatchRequestTooLong', 'over 256 KiB');
      count(q, client, 'SendMessageBatch', bytes, entries.length);
      return { Successful, Failed: [] };
    },
  };
}

/** What the event sources and the delivery function call on received messages. */
function receiveOperations(queues: SqsQueues, count: Count) {
  return {
    ReceiveMessage: async (input: Input) => {
      const [q, client] = queueOf(queues, input.QueueUrl);
      const max = Number(input.MaxNumberOfMessages ?? 1);
      if (!(Number.isInteger(max) && max >= 1 && max <= 10))
        throw sqsError('InvalidParameterValue', 'MaxNumberOfMessages 1..10');
      const waitMs = Math.min(MAX_WAIT_SECONDS, Number(input.WaitTimeSeconds ?? 0)) * 1000;
      const visibility = input.VisibilityTimeout === undefined ? undefined : Number(input.VisibilityTimeout);
      const deadline = Date.now() + waitMs;
      let got = q.receive(max, visibility);
      while (got.length === 0 && !queues.closed && Date.now() < deadline) {
        await q.waitForMessages(deadline - Date.now());
        got = q.receive(max, visibility);
      }
      const Messages = got.map((m) => ({
        MessageId: m.messageId,
        ReceiptHandle: m.receiptHandle,
        MD5OfBody: m.md5,
        Body: m.body,
        Attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          SentTimestamp: String(m.sentAtMs),
          ...(m.group ? { MessageGroupId: m.group } : {}),
        },
      }));
      const bytes = Messages.reduce((n, m) => n + Buffer.byteLength(m.Body), 0);
      count(q, client, got.length > 0 ? 'ReceiveMessage' : 'ReceiveMessage (empty)', bytes, got.length);
      return { Messages };
    },
    DeleteMessageBatch: (input: Input) => {
      const [q, client] = queueOf(queues, input.QueueUrl);
      const entries = entriesOf(input);
      count(q, client, 'DeleteMessageBatch', 0, entries.length);
      for (const e of entries) q.delete(String(e.ReceiptHandle));
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    },
    ChangeMessageVisibilityBatch: (input: Input) => {
      const [q, client] = queueOf(queues, input.QueueUrl);
      const entries = entriesOf(input);
      count(q, client, 'ChangeMessageVisibilityBatch', 0, entries.length);
      const Failed: unknown[] = [];
      const Successful: unknown[] = [];
      for (const e of entries) {
        const ok = q.changeVisibility(String(e.ReceiptHandle), Number(e.VisibilityTimeout ?? 0));
        if (ok) Successful.push({ Id: e.Id });
        else Failed.push({ Id: e.Id, SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: 'stale' });
      }
      return { Successful, Failed };
    },
  };
}

export async function startSqsService(queues: SqsQueues, latencyMs: () => number): Promise<SqsService> {
  let counts: SqsCounts = {};
  const count: Count = (q, client, op, bytes, messages) => {
    const key = `${client} ${q.name}`;
    const byOp = counts[key] ?? {};
    counts[key] = byOp;
    const c = byOp[op] ?? { requests: 0, billed: 0, messages: 0 };
    byOp[op] = c;
    c.requests++;
    c.billed += Math.max(1, Math.ceil(bytes / CHUNK));
    c.messages += messages;
  };
  const sends = sendOperations(queues, count);
  const service: JsonService = await startJsonService({
    targetPrefix: 'AmazonSQS',
    contentType: 'application/x-amz-json-1.0',
    operations: { ...sends, ...receiveOperations(queues, count) },
    latencyMs,
    errorType: (type) => `com.amazonaws.sqs#${type}`,
  });
  return {
    endpoint: service.endpoint,
    sendMessage: (queueUrl, body) => {
      sends.SendMessage({ QueueUrl: queueUrl, MessageBody: body });
    },
    counts: () => counts,
    reset: () => {
      counts = {};
    },
    close: () => service.close(),
  };
}
