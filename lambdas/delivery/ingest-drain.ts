/**
 * The fan-out draining the ingest queue itself (docs/webhooks.md, "The path of one event"): once
 * its event source has invoked it, a fan-out keeps receiving the bus's events from the ingest
 * queue, ten a receive, while the queue has them (up to a time budget), and fans each receive out
 * as it comes, side by side with the first attempts already in flight; a record is deleted once its
 * deliveries were all attempted or queued. One invocation then carries hundreds of events, not the
 * event source's ten: what an invocation costs by itself (its request, its START, END and REPORT
 * lines, its log line and metrics document, its receive and delete) is shared by all of them.
 *
 * Receives are paced: at most one every `pace` unless the last one came back full, the pace
 * following the arrivals so that each brings about RECEIVE_TARGET events (an SQS request is billed
 * whatever it carries), at the price of up to PACE_MAX_MS of waiting. The first is made at once and
 * ends the drain when empty; a paced receive that brings fewer than `minMessages` ends it (events
 * come too sparsely for it to pay: the event source's long polls take over). The handler starts one
 * only after a batch of DRAIN_MIN_BATCH events or more (a burst of a few events, what a quiet fleet
 * sends, does not pay for a receive that may wait a second for nothing). A container that falls
 * behind (DRAIN_MAX_IN_FLIGHT receives still being delivered) receives no more until one settles. A
 * record whose deliveries could not all be queued is not deleted: it comes back after the queue's
 * visibility timeout, as one the event source gave back does (its deliveries already made are then
 * made again, with the same webhook-ids).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../common/logger';
import type { FanOutResult, IncomingEvent } from './fan-out';

/** A message of the ingest queue, received by the fan-out itself. */
export interface IngestMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
}

/** What the drain needs of the ingest queue. */
export interface IngestQueue {
  /** Up to `max` (at most 10) messages; none after a short wait when the queue is empty. */
  receive(max: number): Promise<IngestMessage[]>;
  /** Deletes received messages (at most 10); throws when some could not be (they come back). */
  delete(receiptHandles: readonly string[]): Promise<void>;
}

export class SqsIngestQueue implements IngestQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    /**
     * How long a receive waits for a first message: a long poll asks every SQS server (a short one
     * samples a few, and with few messages in the queue often brings none).
     */
    private readonly waitSeconds = 1,
  ) {}

  async receive(max: number): Promise<IngestMessage[]> {
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: Math.min(10, Math.max(1, max)),
        WaitTimeSeconds: this.waitSeconds,
      }),
    );
    return (out.Messages ?? []).map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
    }));
  }

  async delete(receiptHandles: readonly string[]): Promise<void> {
    if (receiptHandles.length === 0) return;
    const out = await this.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: receiptHandles.map((ReceiptHandle, i) => ({ Id: String(i), ReceiptHandle })),
      }),
    );
    if ((out.Failed ?? []).length > 0) throw new Error(`${out.Failed!.length} ingest messages not deleted`);
  }
}

/** How long a fan-out invocation keeps receiving (then it ends, and its event source invokes again). */
export const DRAIN_BUDGET_MS = 10_000;
/** The first pace between receives (unless the last came back full): about 10 events each at 40 a second. */
export const RECEIVE_PACE_MS = 250;
/**
 * The pace then follows the arrivals so that a receive brings about RECEIVE_TARGET (an SQS request
 * is billed whatever it carries), within these bounds (the longest is what an event may wait more).
 */
export const RECEIVE_TARGET = 9;
export const PACE_MIN_MS = 100;
export const PACE_MAX_MS = 500;
/**
 * A paced receive bringing fewer ends the drain: an empty one. Draining pays from about two events
 * a second a container (its second of Lambda against an invocation, a receive and a delete an
 * event); a 250 ms pace comes back empty mostly below that.
 */
export const DRAIN_MIN_RECEIVE = 1;
/** An event source's batch of fewer does not start one. */
export const DRAIN_MIN_BATCH = 5;
/**
 * Receives whose deliveries are still being made, at most: beyond, the drain waits for one to
 * settle before it receives again. A container that falls behind takes no more than it can carry:
 * 50 events being fanned out are about a second of a 256 MB function's CPU, well inside a first
 * attempt's 2 s (pulling more would make its own answers late, and hand them off).
 */
export const DRAIN_MAX_IN_FLIGHT = 5;

export interface DrainOptions {
  /** No receive starts after this moment (ms). */
  readonly untilMs: number;
  /** The first pace between receives (then adapted to the arrivals), unless the last came back full. */
  readonly paceMs: number;
  /** A receive bringing fewer messages ends the drain (they are fanned out). @default 1 */
  readonly minMessages?: number;
  /** Receives in progress at most before the next. @default DRAIN_MAX_IN_FLIGHT */
  readonly maxInFlight?: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

export interface DrainResult {
  readonly receives: number;
  readonly messages: number;
  /** Messages not deleted (their deliveries not all queued, or the delete failed): they come back. */
  readonly comeBack: number;
}

/**
 * Receives and fans out (`fanOut`: the events of one receive; resolves with the records to give
 * back) until a receive comes back empty or `untilMs`; resolves once every receive's deliveries
 * are settled and its records deleted.
 */
export async function drainIngest(
  queue: IngestQueue,
  fanOut: (events: readonly IncomingEvent[]) => Promise<Pick<FanOutResult, 'failedRecordIds'>>,
  o: DrainOptions,
): Promise<DrainResult> {
  const inFlight = new Set<Promise<void>>();
  const settled: string[] = [];
  let receives = 0;
  let messages = 0;
  let comeBack = 0;
  const flush = async (all: boolean) => {
    while (settled.length >= (all ? 1 : 10)) {
      const handles = settled.splice(0, 10);
      try {
        await queue.delete(handles);
      } catch (err) {
        comeBack += handles.length;
        logger.warn('webhook fan-out: ingest messages not deleted, they come back', {
          messages: handles.length,
          error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        });
      }
    }
  };
  // At once: the first receive (an empty one ends the drain at the cost of one request), and the
  // one after a full receive. Paced: the others (an empty or sparse one ends the drain).
  let immediate = true;
  let first = true;
  let last = o.now();
  let pace = o.paceMs;
  while (o.now() < o.untilMs) {
    while (inFlight.size >= (o.maxInFlight ?? DRAIN_MAX_IN_FLIGHT)) await Promise.race(inFlight);
    const wait = immediate ? 0 : last + pace - o.now();
    if (wait > 0) await o.sleep(Math.min(wait, o.untilMs - o.now()));
    if (o.now() >= o.untilMs) break;
    last = o.now();
    const got = await receiveOrNone(queue);
    if (got === undefined) break;
    receives++;
    const paced = !immediate;
    const wasFirst = first;
    first = false;
    if (got.length === 0) {
      if (paced || wasFirst) break;
      immediate = false; // the receive right after a full one emptied the queue: the pace then
      continue;
    }
    messages += got.length;
    if (paced) pace = nextPace(pace, got.length);
    immediate = got.length === 10;
    const work = fanOut(got.map((m) => ({ recordId: m.messageId, body: m.body })))
      .then(
        (result) => {
          const back = new Set(result.failedRecordIds);
          comeBack += back.size;
          for (const m of got) if (!back.has(m.messageId)) settled.push(m.receiptHandle);
        },
        () => {
          comeBack += got.length;
        },
      )
      .then(() => flush(false));
    const tracked: Promise<void> = work.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (paced && got.length < (o.minMessages ?? 1)) break;
  }
  await Promise.all([...inFlight]);
  await flush(true);
  return { receives, messages, comeBack };
}

/** A receive; undefined when the queue cannot be read (logged: the event source takes over). */
async function receiveOrNone(queue: IngestQueue): Promise<IngestMessage[] | undefined> {
  try {
    return await queue.receive(10);
  } catch (err) {
    logger.warn('webhook fan-out: the ingest queue could not be read, its event source takes over', {
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    return undefined;
  }
}

/** The pace after a paced receive that brought `n`: toward RECEIVE_TARGET a receive. */
export function nextPace(pace: number, n: number): number {
  const wanted = n >= 10 ? pace * 0.8 : (pace * RECEIVE_TARGET) / Math.max(1, n);
  return Math.round(Math.min(PACE_MAX_MS, Math.max(PACE_MIN_MS, wanted)));
}
