/**
 * Publishing events. `EventBridgeSink` is the production sink; `JsonLinesFileSink` and
 * `MemorySink` (re-exported here) serve the CLI and tests. All honour the `EventSink` contract:
 * `publish()` resolves only when every event is delivered, otherwise it throws.
 *
 * EventBridgeSink, per call of publish():
 * 1. Validates every event against the catalog (nothing is sent if one is invalid).
 * 2. Sets aside entries too large for PutEvents even alone: they are reported in the final
 *    PublishError (`oversizedEventIds`), never truncated, and never block the other events.
 * 3. Sends the rest in requests of at most 10 entries and under 256 KB, a few requests at a time.
 * 4. A request throttled, answered 5xx or lost in transport is first retried by the client's own
 *    retry strategy (`common/aws-clients.ts`). Entries that still fail (per-entry ErrorCode, or
 *    that request when the SDK gave up) are resubmitted alone by the one partial-failure loop
 *    (`common/retry-partial.ts`, the one back-off); entries that were accepted are never sent
 *    again. Non-retryable failures (access denied, malformed detail, a missing bus) stop at once.
 * 5. After `maxAttempts` rounds, throws PublishError listing the failed eventIds (never the
 *    event contents).
 * A subject's transitions (a member's status, a payment's responses...) go in order: in waves of
 * one event per subject, each wave after the one before is delivered, so a retried entry never
 * lands after a later transition of its subject (a consumer that follows the chain stays right).
 */
import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { sleep as realSleep } from '../common/backoff';
import { mapWithConcurrency } from '../common/concurrency';
import { logger } from '../common/logger';
import { PartialFailureError, resubmitFailedEntries } from '../common/retry-partial';
import { type BridgeEvent, DEFAULT_EVENT_SOURCE, DETAIL_TYPES, validateEvent } from './catalog';
import { type EventSink, PublishError, summariseIds } from './event-sink';
import { validateEventSource } from './event-source';
import { batchEntries, MAX_REQUEST_BYTES, type PreparedEntry, toEntry } from './put-events-batches';

export { type EventSink, PublishError } from './event-sink';
export { JsonLinesFileSink } from './json-lines-file-sink';
export { MemorySink } from './memory-sink';

export interface EventBridgeSinkOptions {
  readonly client: EventBridgeClient;
  /** Name or ARN of the event bus. */
  readonly busName: string;
  /** EventBridge `source` of every entry. @default DEFAULT_EVENT_SOURCE ('gym-bridge') */
  readonly source?: string;
  /** Rounds per event, the first one included (each request also gets the client's own retries). @default 8 */
  readonly maxAttempts?: number;
  /** Backoff before retry n is random in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]. @default 100 */
  readonly baseDelayMs?: number;
  /** Cap of one backoff. @default 5000 */
  readonly maxDelayMs?: number;
  /** PutEvents requests in flight at once. @default 4 */
  readonly concurrency?: number;
  /** @default setTimeout-based */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** Per-entry codes EventBridge documents as not retryable. */
const PERMANENT_ENTRY_ERRORS = new Set([
  'AccessDeniedException',
  'InvalidAccountIdException',
  'InvalidArgument',
  'MalformedDetail',
  'RedactionFailure',
  'NotAuthorizedForSourceException',
  'NotAuthorizedForDetailTypeException',
]);

const THROTTLING_ERRORS = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
]);

interface DeliveryOutcome {
  readonly permanent: PreparedEntry[];
  /** Retryable entries still failing after the last round. */
  pending: PreparedEntry[];
  readonly errorCodes: Set<string>;
  attempts: number;
  lastCause?: unknown;
}

const PROGRAMMING_ERRORS = new Set(['TypeError', 'ReferenceError', 'SyntaxError', 'RangeError']);

interface AttemptResult {
  readonly retry: PreparedEntry[];
  readonly permanent: PreparedEntry[];
  /** Error codes seen in this attempt, for logs and the final message. */
  readonly errorCodes: Set<string>;
  lastCause?: unknown;
}

export class EventBridgeSink implements EventSink {
  private readonly client: EventBridgeClient;
  private readonly busName: string;
  private readonly source: string;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly concurrency: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(options: EventBridgeSinkOptions) {
    this.client = options.client;
    this.busName = options.busName;
    // An invalid source would fail every entry of every PutEvents: refuse it here (EventSourceError).
    this.source = validateEventSource(options.source ?? DEFAULT_EVENT_SOURCE, 'event source');
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 8);
    this.baseDelayMs = Math.max(0, options.baseDelayMs ?? 100);
    this.maxDelayMs = Math.max(0, options.maxDelayMs ?? 5000);
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
  }

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const event of events) validateEvent(event);

    const prepared = events.map((event) => toEntry(event, this.source, this.busName));
    const oversized = prepared.filter((p) => p.size > MAX_REQUEST_BYTES);
    const outcome = await this.deliverInOrder(
      prepared.filter((p) => p.size <= MAX_REQUEST_BYTES),
      new Map(prepared.map((p, i) => [p, subjectKey(events[i]!)])),
    );
    const { permanent, pending, errorCodes, attempts } = outcome;
    const failed = [...oversized, ...permanent, ...pending];
    if (failed.length === 0) return;
    const failedIds = failed.map((f) => f.eventId);
    const parts = [
      pending.length > 0 ? `${pending.length} still failing after ${attempts} attempts` : '',
      permanent.length > 0 ? `${permanent.length} rejected permanently` : '',
      oversized.length > 0 ? `${oversized.length} larger than the PutEvents limit` : '',
    ].filter(Boolean);
    const codes = errorCodes.size > 0 ? ` (${[...errorCodes].sort().join(', ')})` : '';
    throw new PublishError(
      `${failed.length} of ${events.length} events not delivered to bus '${this.busName}': ${parts.join(', ')}${codes}; eventIds: ${summariseIds(failedIds)}`,
      {
        failedEventIds: failedIds,
        oversizedEventIds: oversized.map((o) => o.eventId),
        attempts,
        cause: outcome.lastCause,
      },
    );
  }

  /**
   * Sends the entries in waves holding at most one event per subject and detail-type, each wave
   * after the one before is delivered: a subject's transitions (a re-published A -> B, then
   * B -> C) reach the bus in order even when an entry fails and is retried, or requests run
   * concurrently. A subject whose event is not delivered has its later events held (pending).
   */
  private async deliverInOrder(
    entries: readonly PreparedEntry[],
    keys: ReadonlyMap<PreparedEntry, string>,
  ): Promise<DeliveryOutcome> {
    const total: DeliveryOutcome = { permanent: [], pending: [], errorCodes: new Set(), attempts: 0 };
    const failedSubjects = new Set<string>();
    for (const wave of subjectWaves(entries, keys)) {
      const held = wave.filter((e) => failedSubjects.has(keys.get(e)!));
      total.pending.push(...held);
      const outcome = await this.deliver(wave.filter((e) => !failedSubjects.has(keys.get(e)!)));
      total.permanent.push(...outcome.permanent);
      total.pending.push(...outcome.pending);
      for (const code of outcome.errorCodes) total.errorCodes.add(code);
      total.attempts = Math.max(total.attempts, outcome.attempts);
      if (outcome.lastCause !== undefined) total.lastCause = outcome.lastCause;
      for (const e of [...outcome.permanent, ...outcome.pending]) failedSubjects.add(keys.get(e)!);
    }
    return total;
  }

  /** Sends the entries, resubmitting the retryable failures alone; reports what is left. */
  private async deliver(entries: readonly PreparedEntry[]): Promise<DeliveryOutcome> {
    const outcome: DeliveryOutcome = { permanent: [], pending: [], errorCodes: new Set(), attempts: 0 };
    let roundCodes = new Set<string>();
    try {
      outcome.attempts = await resubmitFailedEntries(
        entries,
        async (pending) => {
          const result = await this.attempt(pending);
          outcome.permanent.push(...result.permanent);
          for (const code of result.errorCodes) outcome.errorCodes.add(code);
          if (result.lastCause !== undefined) outcome.lastCause = result.lastCause;
          roundCodes = result.errorCodes;
          return result.retry;
        },
        {
          operation: 'PutEvents',
          maxStalledRounds: Number.POSITIVE_INFINITY,
          maxRounds: this.maxAttempts,
          baseDelayMs: this.baseDelayMs,
          maxDelayMs: this.maxDelayMs,
          sleep: this.sleep,
          random: this.random,
          onRetry: ({ failed, round, delayMs }) =>
            logger.warn('PutEvents: retrying failed entries', {
              attempt: round,
              retrying: failed,
              errorCodes: [...roundCodes],
              delayMs,
            }),
        },
      );
    } catch (err) {
      if (!(err instanceof PartialFailureError)) throw err;
      outcome.pending = err.remaining as PreparedEntry[];
      outcome.attempts = err.rounds;
    }
    return outcome;
  }

  /** Sends every pending entry once, `concurrency` requests at a time. */
  private async attempt(pending: readonly PreparedEntry[]): Promise<AttemptResult> {
    const result: AttemptResult = { retry: [], permanent: [], errorCodes: new Set() };
    await mapWithConcurrency(batchEntries(pending), this.concurrency, (batch) =>
      this.sendBatch(batch, result),
    );
    return result;
  }

  private async sendBatch(batch: readonly PreparedEntry[], result: AttemptResult): Promise<void> {
    let output: PutEventsCommandOutput;
    try {
      output = await this.client.send(new PutEventsCommand({ Entries: batch.map((b) => b.entry) }));
    } catch (err) {
      const code = errorName(err);
      result.errorCodes.add(code);
      result.lastCause = err;
      (isRetryableRequestError(err) ? result.retry : result.permanent).push(...batch);
      return;
    }
    const entries: readonly PutEventsResultEntry[] = output.Entries ?? [];
    if (entries.length !== batch.length) {
      // A response that does not account for every entry: treat the batch as not delivered.
      // Resending may duplicate some, which at-least-once delivery allows (ids are stable).
      result.errorCodes.add('IncompleteResponse');
      result.retry.push(...batch);
      return;
    }
    entries.forEach((entry, index) => {
      const prepared = batch[index]!;
      if (!entry.ErrorCode && entry.EventId) return;
      const code = entry.ErrorCode ?? 'MissingEventId';
      result.errorCodes.add(code);
      (PERMANENT_ENTRY_ERRORS.has(code) ? result.permanent : result.retry).push(prepared);
    });
  }
}

function errorName(err: unknown): string {
  if (err instanceof Error) return err.name || 'Error';
  return 'UnknownError';
}

/**
 * Throttling, 5xx and transport errors (no HTTP response at all) are worth retrying; any other
 * 4xx (access denied, validation, bus not found) will fail the same way again.
 */
export function isRetryableRequestError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
  if (e.name && THROTTLING_ERRORS.has(e.name)) return true;
  if (e.$retryable) return true;
  const status = e.$metadata?.httpStatusCode;
  // No HTTP status: the request never got an answer (connection refused, reset, timeout).
  // Programming errors are not transport errors, though, and would fail the same way again.
  if (status === undefined) return !PROGRAMMING_ERRORS.has(e.name ?? '');
  return status === 429 || status >= 500;
}

/**
 * The order a subject's transitions keep on the bus (used by EventBridgeSink): events of one chain
 * (a member's status, a member's contact preferences, a prospect's status, a payment's responses)
 * are sent in waves, one event of a chain per wave, each wave after the one before is delivered.
 */
/** Detail-types that describe a subject's transitions, by the chain they belong to. */
const CHAINS: Readonly<Record<string, string>> = {
  [DETAIL_TYPES.MemberStatusChanged]: 'member-status',
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 'member-contact',
  [DETAIL_TYPES.ProspectStatusChanged]: 'prospect-status',
  [DETAIL_TYPES.PaymentSucceeded]: 'payment',
  [DETAIL_TYPES.PaymentFailed]: 'payment',
};

/**
 * What an event's order is kept within: its chain (a member's status, a payment's responses...)
 * for a transition, else the event alone (visits, joins and the like need no order).
 */
export function subjectKey(event: BridgeEvent): string {
  const detail = event.detail as { clubId?: unknown; subject?: unknown; data?: unknown; eventId: string };
  const chain = CHAINS[event.detailType];
  if (chain === undefined) return `event\u0000${detail.eventId}`;
  const data = (typeof detail.data === 'object' && detail.data !== null ? detail.data : {}) as Record<
    string,
    unknown
  >;
  const record = data.Id ?? data.ProspectId ?? data.Number ?? '';
  return `${chain}\u0000${String(detail.clubId)}\u0000${JSON.stringify(detail.subject ?? {})}\u0000${String(record)}`;
}

/**
 * The entries in waves: the n-th wave holds each subject's n-th event, in the order given (the
 * same event again, by eventId, goes with its first copy: a duplicate is no transition).
 */
export function subjectWaves(
  entries: readonly PreparedEntry[],
  keys: ReadonlyMap<PreparedEntry, string>,
): PreparedEntry[][] {
  const waves: PreparedEntry[][] = [];
  const chains = new Map<string, string[]>();
  for (const entry of entries) {
    const key = keys.get(entry)!;
    const ids = chains.get(key) ?? [];
    chains.set(key, ids);
    let n = ids.indexOf(entry.eventId);
    if (n < 0) n = ids.push(entry.eventId) - 1;
    const wave = waves[n] ?? [];
    waves[n] = wave;
    wave.push(entry);
  }
  return waves;
}
