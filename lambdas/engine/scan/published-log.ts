/**
 * The events last published for a subject, kept on its snapshot (`fields.published`, newest
 * first, at most PUBLISHED_KEPT, intents excepted) so that `explain` can say what a member or prospect was told
 * about and by which poll, without an item of its own: the snapshot is written with the events
 * anyway, and a BatchGetItem bills it by the 4 KB whatever its size (docs/state.md).
 */
import type { BridgeEvent } from '../../events/catalog';
import type { Snapshot } from '../../state/store';

const PUBLISHED_FIELD = 'published';
export const PUBLISHED_KEPT = 3;

/** One published event: its eventId, detail-type and the poll's observedAt (UTC ISO). */
export interface PublishedEntry {
  readonly eventId: string;
  readonly detailType: string;
  readonly observedAt: string;
}

/** Stored as one string an entry, `<observedAt> <eventId> <detailType>`: a small item stays one write unit. */
const encode = (e: PublishedEntry) => `${e.observedAt} ${e.eventId} ${e.detailType}`;

function decode(value: unknown): PublishedEntry | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\S+) ([0-9a-f]{32}) (.+)$/.exec(value);
  return m ? { observedAt: m[1]!, eventId: m[2]!, detailType: m[3]! } : undefined;
}

/** The log a snapshot holds (none for snapshots stored before it existed). */
export function publishedOf(snapshot: Snapshot | undefined): PublishedEntry[] {
  const log = snapshot?.fields[PUBLISHED_FIELD];
  return Array.isArray(log) ? log.map(decode).filter((e) => e !== undefined) : [];
}

/** A snapshot without its log: the states of an intent (their events are rebuilt when published again). */
export function withoutPublished(snapshot: Snapshot): Snapshot {
  if (!(PUBLISHED_FIELD in snapshot.fields)) return snapshot;
  const { [PUBLISHED_FIELD]: _log, ...fields } = snapshot.fields;
  return { ...snapshot, fields };
}

/**
 * `next` with the log of `before` and, in front, the events this poll publishes for the subject
 * (an event published again from an intent keeps one place: same eventId, listed once).
 */
export function withPublished(
  next: Snapshot,
  before: Snapshot | undefined,
  events: readonly BridgeEvent[],
): Snapshot {
  const fresh = events.map((e) => ({
    eventId: e.detail.eventId,
    detailType: e.detailType,
    observedAt: e.detail.observedAt,
  }));
  const ids = new Set(fresh.map((e) => e.eventId));
  const log = [...fresh.reverse(), ...publishedOf(before).filter((e) => !ids.has(e.eventId))];
  if (log.length === 0) return next;
  return { ...next, fields: { ...next.fields, [PUBLISHED_FIELD]: log.slice(0, PUBLISHED_KEPT).map(encode) } };
}
