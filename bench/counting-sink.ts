/**
 * An EventSink that does everything EventBridgeSink does before the network (validate each event
 * against the catalog, build the PutEvents entries, group them into requests of at most 10 entries
 * and 256 KB) and counts the result instead of sending it: events, PutEvents requests, bytes, and
 * the 64 KB chunks EventBridge bills. An optional observer sees each published batch (freshness).
 */
import { type BridgeEvent, DEFAULT_EVENT_SOURCE, validateEvent } from '../lambdas/events/catalog';
import type { EventSink } from '../lambdas/events/event-sink';
import { batchEntries, toEntry } from '../lambdas/events/put-events-batches';

export interface SinkCounts {
  events: number;
  putEventsRequests: number;
  bytes: number;
  /** EventBridge bills every started 64 KB of an entry as one event. */
  billedEvents: number;
  /** Wall time inside publish(), ms. */
  wallMs: number;
  byDetailType: Record<string, number>;
}

export function emptySinkCounts(): SinkCounts {
  return { events: 0, putEventsRequests: 0, bytes: 0, billedEvents: 0, wallMs: 0, byDetailType: {} };
}

export function addSinkCounts(into: SinkCounts, more: SinkCounts): SinkCounts {
  into.events += more.events;
  into.putEventsRequests += more.putEventsRequests;
  into.bytes += more.bytes;
  into.billedEvents += more.billedEvents;
  into.wallMs += more.wallMs;
  for (const [k, v] of Object.entries(more.byDetailType))
    into.byDetailType[k] = (into.byDetailType[k] ?? 0) + v;
  return into;
}

const CHUNK_BYTES = 64 * 1024;

export class CountingSink implements EventSink {
  counts: SinkCounts = emptySinkCounts();

  constructor(private readonly onPublished?: (events: readonly BridgeEvent[]) => void) {}

  take(): SinkCounts {
    const taken = this.counts;
    this.counts = emptySinkCounts();
    return taken;
  }

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    if (events.length === 0) return;
    const started = performance.now();
    for (const event of events) validateEvent(event);
    const prepared = events.map((event) => toEntry(event, DEFAULT_EVENT_SOURCE, 'bench-bus'));
    const requests = batchEntries(prepared);
    const c = this.counts;
    c.events += events.length;
    c.putEventsRequests += requests.length;
    for (const p of prepared) {
      c.bytes += p.size;
      c.billedEvents += Math.max(1, Math.ceil(p.size / CHUNK_BYTES));
    }
    for (const e of events) c.byDetailType[e.detailType] = (c.byDetailType[e.detailType] ?? 0) + 1;
    c.wallMs += performance.now() - started;
    this.onPublished?.(events);
  }
}
