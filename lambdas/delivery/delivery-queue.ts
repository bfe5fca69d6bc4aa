/**
 * The delivery queue: an SQS fair queue (a standard queue whose messages carry a MessageGroupId,
 * here the endpoint's id), so that when one endpoint builds a backlog (dead, slow, rate-limited),
 * SQS hands the consumers the other endpoints' messages first ("Amazon SQS fair queues"); a
 * message waits with DelaySeconds (at most 15 minutes) when it is queued, and by its visibility
 * (ChangeMessageVisibility, at most 12 hours per receive) once received. Waits longer than that
 * are taken in steps: the message comes back, is found not due, and is hidden again.
 *
 * `MemoryDeliveryQueue` is the same on a clock, in process: the local demo delivers without AWS
 * with it, and unit tests use it.
 */

import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { chunk } from '../common/concurrency';
import { resubmitFailedEntries } from '../common/retry-partial';
import type { DeliveryMessage } from './delivery-message';

/** SQS: the longest DelaySeconds, and the longest visibility timeout. */
export const MAX_DELAY_SECONDS = 900;
export const MAX_HIDE_SECONDS = 43_200 - 60;
const MAX_BATCH_BYTES = 256 * 1024;

export interface QueuedDelivery {
  readonly message: DeliveryMessage;
  /** 0..MAX_DELAY_SECONDS. */
  readonly delaySeconds: number;
}

export interface Hide {
  readonly receiptHandle: string;
  /** 0..MAX_HIDE_SECONDS. */
  readonly seconds: number;
}

export interface DeliveryQueue {
  /** Queues deliveries; throws when some could not be queued (the caller's message comes back). */
  send(items: readonly QueuedDelivery[]): Promise<void>;
  /** Hides received messages for a while (they come back then); throws when some could not be. */
  hide(items: readonly Hide[]): Promise<void>;
}

/** Seconds to wait for `untilMs`, as one queue wait can hold (the rest is waited again). */
export const delaySecondsUntil = (untilMs: number, nowMs: number, max: number): number =>
  Math.min(max, Math.max(0, Math.ceil((untilMs - nowMs) / 1000)));

export interface SqsDeliveryQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
}

export class SqsDeliveryQueue implements DeliveryQueue {
  readonly #client: SQSClient;
  readonly #url: string;

  constructor(options: SqsDeliveryQueueOptions) {
    this.#client = options.client;
    this.#url = options.queueUrl;
  }

  async send(items: readonly QueuedDelivery[]): Promise<void> {
    for (const batch of batchesOf(items)) {
      const entries = batch.map((item, i) => ({
        Id: String(i),
        MessageBody: JSON.stringify(item.message),
        MessageGroupId: item.message.ep,
        DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(item.delaySeconds))),
      }));
      await resubmitFailedEntries(
        entries,
        async (pending) => {
          const out = await this.#client.send(
            new SendMessageBatchCommand({ QueueUrl: this.#url, Entries: [...pending] }),
          );
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          return pending.filter((e) => failed.has(e.Id));
        },
        { operation: 'SendMessageBatch', maxStalledRounds: 4, baseDelayMs: 100, maxDelayMs: 2000 },
      );
    }
  }

  async hide(items: readonly Hide[]): Promise<void> {
    for (const batch of chunk(items, 10)) {
      const entries = batch.map((item, i) => ({
        Id: String(i),
        ReceiptHandle: item.receiptHandle,
        VisibilityTimeout: Math.min(MAX_HIDE_SECONDS, Math.max(0, Math.round(item.seconds))),
      }));
      await resubmitFailedEntries(
        entries,
        async (pending) => {
          const out = await this.#client.send(
            new ChangeMessageVisibilityBatchCommand({ QueueUrl: this.#url, Entries: [...pending] }),
          );
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          return pending.filter((e) => failed.has(e.Id));
        },
        {
          operation: 'ChangeMessageVisibilityBatch',
          maxStalledRounds: 4,
          baseDelayMs: 100,
          maxDelayMs: 2000,
        },
      );
    }
  }
}

/** Batches of at most 10 messages and 256 KiB. */
function batchesOf(items: readonly QueuedDelivery[]): QueuedDelivery[][] {
  const out: QueuedDelivery[][] = [];
  let current: QueuedDelivery[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item.message));
    if (current.length === 10 || (current.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** A received message, as the delivery use case takes it. */
export interface ReceivedDelivery {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
}

interface MemoryMessage {
  readonly messageId: string;
  readonly body: string;
  visibleAt: number;
  receiptHandle?: string;
}

/** The delivery queue in process, on a clock (the local demo, tests). */
export class MemoryDeliveryQueue implements DeliveryQueue {
  readonly #messages: MemoryMessage[] = [];
  readonly #now: () => number;
  readonly #visibilityMs: number;

  constructor(options: { readonly now?: () => number; readonly visibilityMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#visibilityMs = options.visibilityMs ?? 60_000;
  }

  get size(): number {
    return this.#messages.length;
  }

  /** When the next message becomes visible (undefined: empty). */
  nextVisibleAt(): number | undefined {
    return this.#messages.reduce<number | undefined>(
      (min, m) => (min === undefined || m.visibleAt < min ? m.visibleAt : min),
      undefined,
    );
  }

  async send(items: readonly QueuedDelivery[]): Promise<void> {
    const now = this.#now();
    for (const item of items) {
      this.#messages.push({
        messageId: randomUUID(),
        body: JSON.stringify(item.message),
        visibleAt: now + item.delaySeconds * 1000,
      });
    }
  }

  async hide(items: readonly Hide[]): Promise<void> {
    const now = this.#now();
    for (const item of items) {
      const message = this.#messages.find((m) => m.receiptHandle === item.receiptHandle);
      if (message) message.visibleAt = now + item.seconds * 1000;
    }
  }

  receive(max = 10): ReceivedDelivery[] {
    const now = this.#now();
    const out: ReceivedDelivery[] = [];
    for (const m of this.#messages) {
      if (out.length >= max) break;
      if (m.visibleAt > now) continue;
      m.visibleAt = now + this.#visibilityMs;
      m.receiptHandle = randomUUID();
      out.push({ messageId: m.messageId, receiptHandle: m.receiptHandle, body: m.body });
    }
    return out;
  }

  delete(receiptHandle: string): void {
    const index = this.#messages.findIndex((m) => m.receiptHandle === receiptHandle);
    if (index >= 0) this.#messages.splice(index, 1);
  }
}
