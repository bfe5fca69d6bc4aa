/**
 * PutEvents request entries and how they are grouped into requests.
 *
 * Limits (EventBridge PutEvents): at most 10 entries per request, and the entries of a request
 * must total less than 256 KB, counted as AWS documents it ("Calculating PutEvents event entry
 * size"): 14 bytes for Time when set, plus the UTF-8 bytes of Source, DetailType, Detail and of
 * each Resources entry. EventBusName does not count.
 */
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { BridgeEvent } from './catalog';

export const MAX_ENTRIES_PER_REQUEST = 10;
/** "less than 256 KB": the largest total a request may have. */
export const MAX_REQUEST_BYTES = 256 * 1024 - 1;
const TIME_BYTES = 14;

export interface PreparedEntry {
  readonly eventId: string;
  readonly entry: PutEventsRequestEntry;
  readonly size: number;
}

export function toEntry(event: BridgeEvent, source: string, busName: string): PreparedEntry {
  const entry: PutEventsRequestEntry = {
    Source: source,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
    EventBusName: busName,
    Time: new Date(event.detail.occurredAt),
  };
  return { eventId: event.detail.eventId, entry, size: entrySize(entry) };
}

export function entrySize(entry: PutEventsRequestEntry): number {
  let size = entry.Time ? TIME_BYTES : 0;
  size += Buffer.byteLength(entry.Source ?? '', 'utf8');
  size += Buffer.byteLength(entry.DetailType ?? '', 'utf8');
  if (entry.Detail) size += Buffer.byteLength(entry.Detail, 'utf8');
  for (const resource of entry.Resources ?? []) size += Buffer.byteLength(resource, 'utf8');
  return size;
}

/**
 * Groups entries into requests of at most `maxEntries` and `maxBytes`, keeping their order.
 * Every entry must fit alone (callers set oversized entries aside first).
 */
export function batchEntries<T extends { readonly size: number }>(
  entries: readonly T[],
  maxEntries = MAX_ENTRIES_PER_REQUEST,
  maxBytes = MAX_REQUEST_BYTES,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (entry.size > maxBytes) throw new RangeError(`entry of ${entry.size} bytes exceeds ${maxBytes}`);
    if (current.length === maxEntries || bytes + entry.size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += entry.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
