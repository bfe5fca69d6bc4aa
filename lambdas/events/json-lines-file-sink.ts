/**
 * Appends events to a file, one JSON object per line: `{ source, detailType, time, detail }`
 * (`time` is the event's occurredAt, the value EventBridge would get as Time).
 *
 * Each publish() writes all its lines with a single append and fsyncs before resolving, so a
 * resolved publish is on disk, and a crash leaves at worst a partial last line (readers should
 * skip a line that does not parse). Calls on one sink are serialised; the file is opened in
 * append mode, so other processes appending to the same file do not overwrite each other.
 */
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type BridgeEvent, DEFAULT_EVENT_SOURCE, validateEvent } from './catalog';
import { type EventSink, PublishError } from './event-sink';
import { validateEventSource } from './event-source';

export interface JsonLinesRecord {
  readonly source: string;
  readonly detailType: string;
  readonly time: string;
  readonly detail: BridgeEvent['detail'];
}

export class JsonLinesFileSink implements EventSink {
  private queue: Promise<void> = Promise.resolve();

  /**
   * @param options.source the `source` of every line (the same value the stack gives a stage:
   *   lambdas/events/event-source.ts). @default DEFAULT_EVENT_SOURCE. An invalid one throws
   *   EventSourceError here, before anything is written.
   */
  constructor(
    readonly path: string,
    private readonly options: { readonly source?: string } = {},
  ) {
    if (options.source !== undefined) validateEventSource(options.source, 'event source');
  }

  publish(events: readonly BridgeEvent[]): Promise<void> {
    const run = this.queue.then(() => this.append(events));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async append(events: readonly BridgeEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const event of events) validateEvent(event);
    const source = this.options.source ?? DEFAULT_EVENT_SOURCE;
    const text = events
      .map((event) => {
        const record: JsonLinesRecord = {
          source,
          detailType: event.detailType,
          time: event.detail.occurredAt,
          detail: event.detail,
        };
        return JSON.stringify(record) + '\n';
      })
      .join('');
    try {
      await mkdir(dirname(this.path), { recursive: true });
      const file = await open(this.path, 'a');
      try {
        await file.appendFile(text, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
    } catch (err) {
      throw new PublishError(`could not append ${events.length} events to ${this.path}`, {
        failedEventIds: events.map((e) => e.detail.eventId),
        attempts: 1,
        cause: err,
      });
    }
  }
}

/** Reads a JSON-lines events file; a torn last line (crash mid-write) is skipped. */
export function parseJsonLines(text: string): JsonLinesRecord[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const records: JsonLinesRecord[] = [];
  lines.forEach((line, index) => {
    try {
      records.push(JSON.parse(line) as JsonLinesRecord);
    } catch (err) {
      if (index !== lines.length - 1) throw err;
    }
  });
  return records;
}
