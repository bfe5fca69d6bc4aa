/**
 * Sends poll messages to the SQS poll queue: `clubsPerMessage` clubs a message (a group body, or a
 * club's message alone), SendMessageBatch with up to 10 messages per call, up to five calls in
 * flight. A message with a `notBeforeMs` (the dispatcher's spread of the period) gets
 * the DelaySeconds that makes it visible then, counted from when its request is built (at most
 * SQS's 900 s; none once the moment has passed).
 * A request throttled, answered 5xx or lost in transport is retried by the client's own retry
 * strategy (`common/aws-clients.ts`); when it still fails, its messages are not queued. Entries SQS
 * reports as failed (not the sender's fault) are resubmitted alone by the one partial-failure loop
 * (`common/retry-partial.ts`, the one back-off); entries that succeeded are never sent again.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { sleep as realSleep } from './backoff';
import { chunk, mapWithConcurrency } from './concurrency';
import { MAX_CLUBS_PER_MESSAGE, MAX_PROBES_PER_MESSAGE, type PollMessage } from './deployment-contract';
import { logger } from './logger';
import { serializePollBody } from './poll-message';
import { PartialFailureError, resubmitFailedEntries } from './retry-partial';

/** One message to queue, and when it may become visible. */
export interface PollQueueEntry {
  readonly message: PollMessage;
  /** Epoch ms before which the message is not delivered. @default at once */
  readonly notBeforeMs?: number;
}

export interface PollQueue {
  /** Resolves when every message is queued; otherwise throws PollQueueError. */
  sendBatch(entries: readonly PollQueueEntry[]): Promise<void>;
}

export class PollQueueError extends Error {
  override readonly name = 'PollQueueError';
  constructor(
    message: string,
    /** Clubs whose message could not be queued. */
    readonly clubIds: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SqsPollQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** Rounds per message for entries SQS reports as failed, the first included. @default 5 */
  readonly maxAttempts?: number;
  /** @default 100 */
  readonly baseDelayMs?: number;
  /** @default 2000 */
  readonly maxDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /** The clock `notBeforeMs` is counted on. @default Date.now */
  readonly now?: () => number;
  /**
   * Clubs one message carries (1..MAX_CLUBS_PER_MESSAGE), taken in the order given: the dispatcher
   * gives them in the order of their moments, and a group is visible at its earliest. @default 1
   */
  readonly clubsPerMessage?: number;
}

/** The clubs of one SQS message, and when it may become visible (the earliest of theirs). */
interface QueuedGroup {
  readonly messages: readonly PollMessage[];
  readonly notBeforeMs?: number;
}

/**
 * A fast-lane probe joins a group only if the group's earliest moment is at most this much before
 * its own: a group is visible at its earliest, so a probe runs at most this much early.
 */
export const PROBE_GROUP_SPAN_MS = 3000;

/**
 * Whether `entry` may join `group` (its earliest moment `firstMs`): the minute's polls `size` to a
 * message, the probes among themselves up to MAX_PROBES_PER_MESSAGE within PROBE_GROUP_SPAN_MS.
 */
function joins(group: readonly PollQueueEntry[], entry: PollQueueEntry, size: number, firstMs?: number) {
  // One club once a message: its probes are a period apart, never run side by side.
  if (group.some((e) => e.message.clubId === entry.message.clubId)) return false;
  const probe = entry.message.lane === 'fast';
  if (group.some((e) => (e.message.lane === 'fast') !== probe)) return false;
  if (!probe) return group.length < size;
  if (group.length >= Math.max(size, MAX_PROBES_PER_MESSAGE)) return false;
  if (firstMs === undefined || entry.notBeforeMs === undefined) return true;
  return entry.notBeforeMs - firstMs <= PROBE_GROUP_SPAN_MS;
}

/**
 * Entries in groups, in order; each group visible at the earliest of its moments. A group never
 * holds a club twice, nor the minute's polls and probes together, nor a probe more than
 * PROBE_GROUP_SPAN_MS past its earliest.
 */
function groupEntries(entries: readonly PollQueueEntry[], size: number): QueuedGroup[] {
  const groups: PollQueueEntry[][] = [];
  let current: PollQueueEntry[] = [];
  let firstMs: number | undefined;
  for (const entry of entries) {
    if (current.length > 0 && !joins(current, entry, size, firstMs)) {
      groups.push(current);
      current = [];
      firstMs = undefined;
    }
    current.push(entry);
    if (entry.notBeforeMs !== undefined) firstMs = Math.min(firstMs ?? entry.notBeforeMs, entry.notBeforeMs);
  }
  if (current.length > 0) groups.push(current);
  return groups.map((part) => {
    const moments = part.map((e) => e.notBeforeMs).filter((ms): ms is number => ms !== undefined);
    const messages = part.map((e) => e.message);
    return moments.length > 0 ? { messages, notBeforeMs: Math.min(...moments) } : { messages };
  });
}

export const SQS_BATCH_MAX_ENTRIES = 10;
/** SQS's largest DelaySeconds. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** The DelaySeconds that makes a message visible at `notBeforeMs` (0..900; 0 once it has passed). */
export function delaySecondsUntil(notBeforeMs: number | undefined, nowMs: number): number {
  if (notBeforeMs === undefined) return 0;
  return Math.max(0, Math.min(SQS_MAX_DELAY_SECONDS, Math.ceil((notBeforeMs - nowMs) / 1000)));
}
/** SendMessageBatch calls in flight at once. */
export const SEND_CONCURRENCY = 5;

export class SqsPollQueue implements PollQueue {
  readonly #options: Required<Omit<SqsPollQueueOptions, 'client' | 'queueUrl'>> & SqsPollQueueOptions;

  constructor(options: SqsPollQueueOptions) {
    this.#options = {
      maxAttempts: 5,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      sleep: realSleep,
      random: Math.random,
      now: Date.now,
      clubsPerMessage: 1,
      ...options,
    };
    const size = this.#options.clubsPerMessage;
    if (!Number.isInteger(size) || size < 1 || size > MAX_CLUBS_PER_MESSAGE) {
      throw new RangeError(
        `clubsPerMessage must be a whole number in 1..${MAX_CLUBS_PER_MESSAGE}, got ${size}`,
      );
    }
  }

  async sendBatch(messages: readonly PollQueueEntry[]): Promise<void> {
    const failed: string[] = [];
    let lastCause: unknown;
    // Up to SEND_CONCURRENCY calls in flight: a fleet's minute is hundreds of calls.
    const results = await mapWithConcurrency(
      chunk(groupEntries(messages, this.#options.clubsPerMessage), SQS_BATCH_MAX_ENTRIES),
      SEND_CONCURRENCY,
      (part) => this.#sendChunk(part),
    );
    for (const result of results) {
      failed.push(...result.failed);
      lastCause = result.cause ?? lastCause;
    }
    if (failed.length > 0) {
      throw new PollQueueError(
        `${failed.length} of ${messages.length} poll messages could not be queued (clubs ${failed.slice(0, 10).join(', ')}${failed.length > 10 ? ', ...' : ''})`,
        failed,
        lastCause === undefined ? undefined : { cause: lastCause },
      );
    }
  }

  async #sendChunk(chunk: readonly QueuedGroup[]): Promise<{ failed: string[]; cause?: unknown }> {
    const { client, queueUrl, maxAttempts, baseDelayMs, maxDelayMs, sleep, random, now } = this.#options;
    const entries: SendMessageBatchRequestEntry[] = chunk.map((group, index) => ({
      Id: String(index),
      MessageBody: serializePollBody(group.messages),
    }));
    const clubsOf = (id: string | undefined) => chunk[Number(id)]?.messages.map((m) => m.clubId) ?? ['?'];
    // Each request (a retry too) counts the delay from when it is built.
    const withDelays = (pending: readonly SendMessageBatchRequestEntry[]) => {
      const nowMs = now();
      return pending.map((e) => {
        const delay = delaySecondsUntil(chunk[Number(e.Id)]?.notBeforeMs, nowMs);
        return delay > 0 ? { ...e, DelaySeconds: delay } : e;
      });
    };
    const permanent: string[] = [];
    let inFlight: readonly SendMessageBatchRequestEntry[] = entries;
    const send = async (pending: readonly SendMessageBatchRequestEntry[]) => {
      inFlight = pending;
      const out = await client.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: withDelays(pending) }),
      );
      const retry = new Set<string>();
      for (const f of out.Failed ?? []) {
        if (!f.SenderFault) {
          retry.add(f.Id ?? '');
          continue;
        }
        permanent.push(...clubsOf(f.Id));
        logger.error('poll message refused by SQS', { clubIds: clubsOf(f.Id).join(','), code: f.Code });
      }
      return pending.filter((e) => retry.has(e.Id ?? ''));
    };
    try {
      await resubmitFailedEntries(entries, send, {
        operation: 'SendMessageBatch',
        maxStalledRounds: Number.POSITIVE_INFINITY,
        maxRounds: maxAttempts,
        baseDelayMs,
        maxDelayMs,
        sleep,
        random,
        onRetry: ({ failed, round }) =>
          logger.warn('poll messages failed, retrying them', { count: failed, attempt: round }),
      });
      return { failed: permanent };
    } catch (err) {
      if (err instanceof PartialFailureError) {
        const left = (err.remaining as SendMessageBatchRequestEntry[]).flatMap((e) => clubsOf(e.Id));
        return { failed: [...permanent, ...left] };
      }
      // The client's own retries gave up (or the request was refused): none of these is queued.
      logger.warn('SendMessageBatch failed', { error: err instanceof Error ? err.name : String(err) });
      return { failed: [...permanent, ...inFlight.flatMap((e) => clubsOf(e.Id))], cause: err };
    }
  }
}
