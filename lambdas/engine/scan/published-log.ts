/**
 * The events last published for a subject, kept on its snapshot (`fields.published`, newest
 * first, at most PUBLISHED_KEPT) so that `explain` can say what a member or prospect was told
 * about and by which poll, without an item of its own: the snapshot is written with the events
 * anyway, and a BatchGetItem bills it by the 4 KB whatever its size (docs/state.md).
 */
import type { BridgeEvent } from '../../events/catalog';
import type { Snapshot } from '../../state/store';

const PUBLISHED_FIELD = 'published';
export const PUBLISHED_KEPT = 5;

/** One published event: its eventId, detail-type and the poll's observedAt (UTC ISO). */
export interface PublishedEntry {
  readonly eventId: string;
  readonly detailType: string;
  readonly observedAt: string;
}

const isEntry = (v: unknown): v is PublishedEntry =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as PublishedEntry).eventId === 'string' &&
  typeof (v as PublishedEntry).detailType === 'string' &&
  typeof (v as PublishedEntry).observedAt === 'string';

/** The log a snapshot holds (none for snapshots stored before it existed). */
export function publishedOf(snapshot: Snapshot | undefined): PublishedEntry[] {
  const log = snapshot?.fields[PUBLISHED_FIELD];
  return Array.isArray(log) ? log.filter(isEntry) : [];
}

/**
 * `next` with the log of `before` and, in front, the events this poll publishes for the subject
 * (an event published again from an intent keeps its place: same eventId, listed once).
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
  return { ...next, fields: { ...next.fields, [PUBLISHED_FIELD]: log.slice(0, PUBLISHED_KEPT) } };
}
