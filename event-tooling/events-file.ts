/**
 * Replaying an events file (the JSON lines `poll --events-file` writes) onto a bus, the second way
 * of replay.ts: `parseEventsFile` parses and validates every line first (a malformed line is an
 * EventsFileError naming its line number, and nothing is sent), `sendEvents` then publishes through
 * EventBridgeSink (PutEvents in batches of 10, failed entries retried), reporting progress.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { type BridgeEvent, EventValidationError, validateEvent } from '../lambdas/events/catalog';
import { eventSourceProblem } from '../lambdas/events/event-source';
import { EventBridgeSink } from '../lambdas/events/publisher';

/** A line of an events file that cannot be sent: its number (1-based) and why. */
export class EventsFileError extends Error {
  override readonly name = 'EventsFileError';
  constructor(
    readonly line: number,
    reason: string,
    readonly path = 'events file',
  ) {
    super(`${path}, line ${line}: ${reason}`);
  }
}

export interface FileEvent {
  /** 1-based line number in the file. */
  readonly line: number;
  /** The EventBridge source the line was written with. */
  readonly source: string;
  readonly event: BridgeEvent;
}

export interface ParsedEventsFile {
  readonly events: FileEvent[];
  /** A last line cut short by a crash mid-write (no newline, not JSON): skipped, reported. */
  readonly tornLastLine?: number;
}

/**
 * Parses and validates every line of an events file (`{ source, detailType, time, detail }` per
 * line, json-lines-file-sink.ts) before anything is sent. Blank lines are skipped; a last line
 * without its newline that does not parse is a torn write (the sink's documented crash outcome)
 * and is reported, not sent; any other bad line is an EventsFileError with its number.
 */
export function parseEventsFile(text: string, path = 'events file'): ParsedEventsFile {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const events: FileEvent[] = [];
  let tornLastLine: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const number = i + 1;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (err) {
      if (i === lines.length - 1 && !endsWithNewline) {
        tornLastLine = number;
        continue;
      }
      throw new EventsFileError(number, `not JSON (${(err as Error).message})`, path);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      throw new EventsFileError(number, 'not a JSON object { source, detailType, time, detail }', path);
    const { source, detailType, detail } = record as Record<string, unknown>;
    if (typeof source !== 'string')
      throw new EventsFileError(
        number,
        "no 'source' string (expected { source, detailType, time, detail })",
        path,
      );
    const problem = eventSourceProblem(source);
    if (problem)
      throw new EventsFileError(number, `source '${source.slice(0, 80)}' is not usable: ${problem}`, path);
    let event: BridgeEvent;
    try {
      event = validateEvent({ detailType, detail });
    } catch (err) {
      if (err instanceof EventValidationError) throw new EventsFileError(number, err.message, path);
      throw err;
    }
    events.push({ line: number, source, event });
  }
  return { events, ...(tornLastLine === undefined ? {} : { tornLastLine }) };
}

export interface SendOptions {
  readonly client: EventBridgeClient;
  readonly busName: string;
  /** Replaces every line's own source. */
  readonly sourceOverride?: string;
  /** Events per publish() call (the sink splits it into PutEvents of 10). @default 40 */
  readonly chunkSize?: number;
  readonly onProgress?: (sent: number, total: number) => void;
  /** Passed to the sink (tests). */
  readonly sink?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
}

/** Thrown when a chunk could not be delivered: how many were sent before, and the sink's error. */
export class ReplaySendError extends Error {
  override readonly name = 'ReplaySendError';
  constructor(
    readonly sent: number,
    readonly total: number,
    cause: unknown,
  ) {
    super(
      `${sent} of ${total} events sent, then: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * Sends the events in file order through EventBridgeSink (validated, PutEvents of at most 10,
 * failed entries retried with backoff), a chunk at a time so progress can be told. A chunk that
 * still fails ends the replay with ReplaySendError (events of it may have been delivered: their
 * eventIds are stable, consumers de-duplicate).
 */
export async function sendEvents(events: readonly FileEvent[], options: SendOptions): Promise<number> {
  const chunkSize = Math.max(1, options.chunkSize ?? 40);
  const sinks = new Map<string, EventBridgeSink>();
  const sinkFor = (source: string) => {
    let sink = sinks.get(source);
    if (!sink) {
      sink = new EventBridgeSink({
        client: options.client,
        busName: options.busName,
        source,
        ...(options.sink ?? {}),
      });
      sinks.set(source, sink);
    }
    return sink;
  };
  let sent = 0;
  let i = 0;
  while (i < events.length) {
    const source = options.sourceOverride ?? events[i]!.source;
    const chunk: BridgeEvent[] = [];
    while (
      i < events.length &&
      chunk.length < chunkSize &&
      (options.sourceOverride ?? events[i]!.source) === source
    ) {
      chunk.push(events[i]!.event);
      i++;
    }
    try {
      await sinkFor(source).publish(chunk);
    } catch (err) {
      throw new ReplaySendError(sent, events.length, err);
    }
    sent += chunk.length;
    options.onProgress?.(sent, events.length);
  }
  return sent;
}
