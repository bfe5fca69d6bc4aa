/**
 * The cursor writes a club poll makes besides the scan itself: a failed poll (and the pause it may
 * start), the unavailable mark of a missing endpoint and its clearing, and any other change of one
 * cursor (`updateCursor`: the stale notice, the operational events a cursor owes). Each next cursor
 * comes from cursor-life.ts; the caller may add to it (`CursorAddition`: the operational event that
 * announces the change, written with it); every write is versioned, and one that loses to another
 * writer is re-read and tried once more.
 */

import {
  ConcurrentModificationError,
  type Cursor,
  type CursorStore,
  type SourceName,
  type SourceUnavailable,
} from '../../state/store';
import type { Unavailability } from '../club-poll/failure-policy';
import {
  cursorAfterFailure,
  cursorMarkedUnavailable,
  cursorWithoutUnavailable,
  type PollFailure,
} from './cursor-life';

/** What a caller adds to the next cursor of a write, seeing the cursor it replaces. */
export type CursorAddition = (next: Cursor, previous: Cursor) => Cursor | Promise<Cursor>;

const asIs: CursorAddition = (next) => next;

/** Runs `write` on a fresh read of the cursor, once more if another writer won the first time. */
async function withRetriedCursor<T>(
  store: CursorStore,
  source: SourceName,
  write: (cursor: Cursor) => Promise<T>,
): Promise<T | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const cursor = await store.getCursor(source);
    try {
      return await write(cursor);
    } catch (err) {
      if (!(err instanceof ConcurrentModificationError)) throw err;
    }
  }
  return undefined;
}

/**
 * Marks the source unavailable on its cursor. `fresh`: the cursor had no mark, so this is a new
 * episode (log and announce it). Undefined when another writer kept winning.
 */
export function recordUnavailable(
  store: CursorStore,
  source: SourceName,
  cause: Unavailability,
  error: string,
  nowMs: number,
  add: CursorAddition = asIs,
): Promise<{ mark: SourceUnavailable; fresh: boolean } | undefined> {
  return withRetriedCursor(store, source, async (cursor) => {
    const next = await add(cursorMarkedUnavailable(cursor, cause, error, nowMs), cursor);
    await store.putCursor(next);
    return { mark: next.health.unavailable!, fresh: cursor.health.unavailable === undefined };
  });
}

/** Removes the unavailable mark; the mark it removed, if any. */
export async function clearUnavailableMark(
  store: CursorStore,
  source: SourceName,
): Promise<SourceUnavailable | undefined> {
  const cleared = await withRetriedCursor(store, source, async (cursor) => {
    const { unavailable } = cursor.health;
    if (unavailable) await store.putCursor(cursorWithoutUnavailable(cursor));
    return { unavailable };
  });
  return cleared?.unavailable;
}

/** Records a failed poll on the source's cursor, with the pause a 401 or 429 starts. */
export function recordFailure(
  store: CursorStore,
  source: SourceName,
  failure: PollFailure,
  nowMs: number,
  add: CursorAddition = asIs,
): Promise<Cursor | undefined> {
  return withRetriedCursor(store, source, async (cursor) =>
    store.putCursor(await add(cursorAfterFailure(cursor, failure, nowMs), cursor)),
  );
}

/**
 * Writes `change` of the source's cursor (undefined: nothing to write) and returns the cursor as
 * written, or undefined when nothing was written or another writer kept winning.
 */
export function updateCursor(
  store: CursorStore,
  source: SourceName,
  change: (cursor: Cursor) => Cursor | undefined,
): Promise<Cursor | undefined> {
  return withRetriedCursor(store, source, async (cursor) => {
    const next = change(cursor);
    return next === undefined ? undefined : store.putCursor(next);
  });
}
