/**
 * Operational events, delivered at least once (docs/publishing.md, "Operational events"): the same
 * guarantee as record events, with the same tool as a state source's snapshot intents.
 *
 * - An announcement is written as **owed** on a cursor (`health.owedEvents`) in the same write as
 *   the state it announces: the refusal that starts a pause, the unavailable mark, the stale notice
 *   with the failure that makes it due; the club's quota alert on the club's first cursor. Then it
 *   is published.
 * - Once delivered it is removed from the cursor. A publish that fails leaves it owed, and the
 *   next poll of the club publishes what its cursors owe before anything else: the same event,
 *   under the same eventId, whether or not its condition is still there. A crash anywhere in
 *   between leaves it owed too, or unwritten together with its state (then the next poll finds the
 *   condition unannounced and announces it).
 * - The next poll also announces a stale episode recorded without its notice: after an incomplete
 *   scan the notice is a write of its own, after the scan's.
 *
 * The cursors ride on the club state item the poll writes at its close anyway: a normal poll owes
 * nothing and writes nothing more. A cursor owes at most MAX_OWED_EVENTS; beyond that the oldest
 * is dropped with an ERROR line (an event bus down for days: the events are about episodes, a
 * handful a source).
 */

import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { type BridgeEvent, validateEvent } from '../../events/catalog';
import type { EventSink } from '../../events/event-sink';
import { staleEvent } from '../../sources/operational-events';
import type { Cursor, CursorStore, OwedEvent, SourceName } from '../../state/store';
import { cursorStaleNotified } from '../cursor/cursor-life';
import { updateCursor } from '../cursor/cursor-writes';
import { isPauseKind } from './failure-policy';

/** Events one cursor keeps owed at most. */
export const MAX_OWED_EVENTS = 8;

const idOf = (event: OwedEvent | BridgeEvent): string => event.detail.eventId;

/** The cursor owing `event` too (unchanged when it already does); the oldest dropped past the cap. */
export function withOwed(cursor: Cursor, event: BridgeEvent): Cursor {
  const owed = cursor.health.owedEvents ?? [];
  if (owed.some((e) => idOf(e) === idOf(event))) return cursor;
  const next = [...owed, event as unknown as OwedEvent];
  for (const dropped of next.splice(0, Math.max(0, next.length - MAX_OWED_EVENTS))) {
    logger.error('operational event dropped: its cursor owes too many undelivered ones', {
      clubId: cursor.clubId,
      source: cursor.source,
      detailType: dropped.detailType,
      eventId: idOf(dropped),
      max: MAX_OWED_EVENTS,
    });
  }
  return { ...cursor, health: { ...cursor.health, owedEvents: next } };
}

/** The cursor without the owed events of `eventIds`; undefined when it owes none of them. */
export function withoutOwed(cursor: Cursor, eventIds: ReadonlySet<string>): Cursor | undefined {
  const owed = cursor.health.owedEvents;
  if (!owed?.some((e) => eventIds.has(idOf(e)))) return undefined;
  const { owedEvents: _removed, ...health } = cursor.health;
  const left = owed.filter((e) => !eventIds.has(idOf(e)));
  return { ...cursor, health: left.length > 0 ? { ...health, owedEvents: left } : health };
}

export interface AnnouncerScope {
  /** The poll's session store (cursor writes are kept in the session). */
  readonly store: CursorStore;
  readonly sink: EventSink;
  readonly club: Pick<ClubConfig, 'clubId' | 'plan' | 'piiPolicy'>;
  readonly now: () => number;
}

export class Announcer {
  /** Operational events delivered by this poll, in order. */
  readonly delivered: BridgeEvent[] = [];
  readonly #ids = new Set<string>();

  constructor(private readonly scope: AnnouncerScope) {}

  wasDelivered(eventId: string): boolean {
    return this.#ids.has(eventId);
  }

  /**
   * Publishes `event`, which `source`'s cursor owes, and removes it from there once delivered. A
   * failed publish is logged and leaves it owed. True when delivered (by this call or earlier in
   * the poll).
   */
  async deliver(source: SourceName, event: BridgeEvent): Promise<boolean> {
    const delivered = this.wasDelivered(idOf(event)) || (await this.#publish([event], source));
    if (delivered) await this.#forget(source, new Set([idOf(event)]));
    return delivered;
  }

  /**
   * A club-level event (the quota alert): owed on the club's first cursor (the club has one once
   * it has polled anything; without one it is only published), then delivered.
   */
  async announceForClub(event: BridgeEvent): Promise<boolean> {
    if (this.wasDelivered(idOf(event))) return true;
    const { store } = this.scope;
    const [first] = await store.listCursors();
    if (!first) return this.#publish([event], undefined);
    await updateCursor(store, first.source, (c) => {
      const next = withOwed(c, event);
      return next === c ? undefined : next;
    });
    return this.deliver(first.source, event);
  }

  /**
   * At the start of a poll, before its sources: what the cursors owe, published (one call per
   * cursor that owes something), and a stale episode recorded without its notice, announced.
   * Returns the cursors as they are after: re-read when a write was tried, as one may have taken
   * effect and then failed (the session's checkpoint it triggered), and a source polled from the
   * cursor read before would lose its own write to a version conflict.
   */
  async catchUp(cursors: readonly Cursor[], staleAfterMs: number): Promise<readonly Cursor[]> {
    let tried = false;
    for (const cursor of cursors) {
      const owed = cursor.health.owedEvents ?? [];
      const error = cursor.health.lastError;
      const stale = error && !isPauseKind(error.kind) ? Date.parse(error.at) : undefined;
      if (owed.length > 0) await this.#deliverOwed(cursor.source, owed);
      if (stale !== undefined) await this.announceStale(cursor.source, staleAfterMs, stale);
      tried ||= owed.length > 0 || stale !== undefined;
    }
    return tried ? this.scope.store.listCursors() : cursors;
  }

  /**
   * Announces Club Data Stale for `source` when it has had no success for `staleAfterMs` as of
   * `judgedAtMs` (its failure) and this episode was not announced yet: the notice and the owed
   * event in one cursor write, then the publish. True when a notice was written.
   */
  async announceStale(source: SourceName, staleAfterMs: number, judgedAtMs?: number): Promise<boolean> {
    const { store, club } = this.scope;
    const nowMs = this.scope.now();
    let owed: BridgeEvent | undefined;
    const written = await updateCursor(store, source, (cursor) => {
      owed = staleEvent(club, cursor, nowMs, staleAfterMs, judgedAtMs);
      return owed ? withOwed(cursorStaleNotified(cursor, nowMs), owed) : undefined;
    }).catch((err: unknown) => {
      logger.error('could not write the stale notice', { clubId: club.clubId, source, err });
      return undefined;
    });
    if (!written || !owed) return false;
    await this.deliver(source, owed);
    return true;
  }

  /** Publishes what one cursor owes; an event the catalog no longer accepts is dropped (ERROR). */
  async #deliverOwed(source: SourceName, owed: readonly OwedEvent[]): Promise<void> {
    const valid: BridgeEvent[] = [];
    const done = new Set<string>();
    for (const event of owed) {
      try {
        valid.push(validateEvent(event));
      } catch (err) {
        logger.error('owed operational event dropped: the catalog refuses it', {
          clubId: this.scope.club.clubId,
          source,
          detailType: event.detailType,
          eventId: idOf(event),
          err,
        });
        done.add(idOf(event));
      }
    }
    if (valid.length > 0 && (await this.#publish(valid, source))) for (const e of valid) done.add(idOf(e));
    if (done.size > 0) await this.#forget(source, done);
  }

  async #publish(events: BridgeEvent[], source: SourceName | undefined): Promise<boolean> {
    try {
      await this.scope.sink.publish(events);
    } catch (err) {
      logger.warn('operational event not published: owed to the next poll, same eventId', {
        clubId: this.scope.club.clubId,
        ...(source ? { source } : {}),
        detailTypes: events.map((e) => e.detailType),
        eventIds: events.map(idOf),
        err,
      });
      return false;
    }
    for (const event of events) {
      if (this.#ids.has(idOf(event))) continue;
      this.#ids.add(idOf(event));
      this.delivered.push(event);
    }
    return true;
  }

  /** Removes delivered events from the cursor; a failed write leaves them owed (sent again). */
  async #forget(source: SourceName, eventIds: ReadonlySet<string>): Promise<void> {
    const { store, club } = this.scope;
    await updateCursor(store, source, (c) => withoutOwed(c, eventIds)).catch((err: unknown) => {
      logger.error('could not note delivered operational events: the next poll sends them again', {
        clubId: club.clubId,
        source,
        err,
      });
    });
  }
}
