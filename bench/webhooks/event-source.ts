/**
 * Lambda's SQS event source mapping, emulated for the webhook bench ("Configuring scaling behavior
 * for SQS event source mappings", Lambda Developer Guide): pollers long-poll the queue (20 s,
 * batches of the mapping's size, no batching window) and each invokes the function with what it
 * got, one invocation at a time, on a container of its own (a runtime built once, kept warm); it
 * starts with five and adds one while batches come full (a backlog), up to the mapping's maximum
 * concurrency, and lets the extra ones go when a poll comes back empty. A receive asks for at most
 * 10 messages (SQS's limit), so a batch of more is several receives. After an invocation the
 * records not in `batchItemFailures` are deleted (DeleteMessageBatch, ten at a time), the others
 * left as the function left them (partial batch responses). The SQS calls are the real SDK's, so the queue
 * counts them: Lambda's polling is billed as SQS requests.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export type InvokeFn = (event: SQSEvent, context: LambdaContext) => Promise<SQSBatchResponse>;

export interface LambdaContext {
  readonly awsRequestId: string;
  readonly functionName: string;
  readonly functionVersion: string;
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB: string;
  getRemainingTimeInMillis(): number;
}

export interface EventSourceOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly timeoutSec: number;
  readonly memoryMb: number;
  readonly functionName: string;
  /** A container: the function's handler over a runtime of its own. */
  readonly container: () => InvokeFn;
  /** Pollers at rest. @default 5 (Lambda's) */
  readonly minPollers?: number;
  /**
   * MaximumBatchingWindowInSeconds: a poller that got fewer than a batch keeps receiving until the
   * batch is full or this long has passed since its first message. @default 0 (the template's)
   */
  readonly batchingWindowSec?: number;
}

export interface InvocationFigures {
  invocations: number;
  records: number;
  /** Σ billed duration (each invocation's wall time, rounded up to the ms). */
  billedMs: number;
  durationsMs: number[];
  itemFailures: number;
  containers: number;
  peakConcurrency: number;
  errors: number;
}

export class EventSource {
  readonly figures: InvocationFigures = {
    invocations: 0,
    records: 0,
    billedMs: 0,
    durationsMs: [],
    itemFailures: 0,
    containers: 0,
    peakConcurrency: 0,
    errors: 0,
  };
  readonly #o: EventSourceOptions;
  readonly #idle: InvokeFn[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #pollers = 0;
  #busy = 0;
  #stopped = false;

  constructor(options: EventSourceOptions) {
    this.#o = options;
  }

  start(): void {
    setMaxListeners(this.#o.maxConcurrency + 10, this.#abort.signal);
    for (let i = 0; i < (this.#o.minPollers ?? 5); i++) this.#spawn();
  }

  /** Stops polling (a long poll still open ends with the queue) and waits for the invocations. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await Promise.all([...this.#running]);
  }

  #spawn(): void {
    if (this.#pollers >= this.#o.maxConcurrency) return;
    this.#pollers++;
    const run = this.#poll().finally(() => {
      this.#pollers--;
      this.#running.delete(run);
    });
    this.#running.add(run);
  }

  async #poll(): Promise<void> {
    const o = this.#o;
    while (!this.#stopped) {
      const messages = await this.#receive(Math.min(10, o.batchSize), 20);
      if (messages === undefined) return;
      if (messages.length === 0) {
        if (this.#pollers > (o.minPollers ?? 5)) return;
        continue;
      }
      const windowEnd = Date.now() + (o.batchingWindowSec ?? 0) * 1000;
      while (messages.length < o.batchSize && Date.now() < windowEnd) {
        const more = await this.#receive(
          Math.min(10, o.batchSize - messages.length),
          (windowEnd - Date.now()) / 1000,
        );
        if (more === undefined) return;
        messages.push(...more);
      }
      if (messages.length === o.batchSize) this.#spawn();
      await this.#invoke(messages);
    }
  }

  /** One long poll; undefined when the source is stopped. */
  async #receive(max: number, waitSec: number): Promise<Message[] | undefined> {
    try {
      const got = await this.#o.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.#o.queueUrl,
          MaxNumberOfMessages: max,
          WaitTimeSeconds: Math.min(20, Math.max(0, waitSec)),
          MessageSystemAttributeNames: ['All'],
        }),
        { abortSignal: this.#abort.signal },
      );
      return got.Messages ?? [];
    } catch (err) {
      if (this.#stopped) return undefined;
      throw err;
    }
  }

  async #invoke(messages: Message[]): Promise<void> {
    const o = this.#o;
    const f = this.figures;
    const fn = this.#idle.pop() ?? this.#newContainer();
    this.#busy++;
    f.peakConcurrency = Math.max(f.peakConcurrency, this.#busy);
    const event: SQSEvent = {
      Records: messages.map((m) => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body!,
        attributes: m.Attributes as SQSEvent['Records'][number]['attributes'],
        messageAttributes: {},
        md5OfBody: m.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: o.queueArn,
        awsRegion: 'us-east-1',
      })),
    };
    const started = performance.now();
    const deadline = Date.now() + o.timeoutSec * 1000;
    let back = new Set<string>();
    try {
      const out = await fn(event, {
        awsRequestId: randomUUID(),
        functionName: o.functionName,
        functionVersion: '$LATEST',
        invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${o.functionName}`,
        memoryLimitInMB: String(o.memoryMb),
        getRemainingTimeInMillis: () => deadline - Date.now(),
      });
      back = new Set(out.batchItemFailures.map((b) => b.itemIdentifier));
    } catch {
      // A failed invocation: every record comes back after its visibility timeout.
      f.errors++;
      back = new Set(event.Records.map((r) => r.messageId));
    }
    const ms = Math.ceil(performance.now() - started);
    this.#busy--;
    this.#idle.push(fn);
    f.invocations++;
    f.records += messages.length;
    f.billedMs += ms;
    f.durationsMs.push(ms);
    f.itemFailures += back.size;
    const done = event.Records.filter((r) => !back.has(r.messageId));
    for (let i = 0; i < done.length; i += 10) {
      await o.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: o.queueUrl,
          Entries: done.slice(i, i + 10).map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
  }

  #newContainer(): InvokeFn {
    this.figures.containers++;
    return this.#o.container();
  }
}
