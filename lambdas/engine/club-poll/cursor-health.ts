/**
 * The health a club poll writes on a source's cursor besides the scan itself: a failed poll (and
 * the pause it may start), the unavailable mark of a missing endpoint, and the stale notice. Every
 * write is versioned; one that loses to another writer is re-read and tried once more.
 */

import {
  ConcurrentModificationError,
  type Cursor,
  type CursorStore,
  type SourceName,
  type SourceUnavailable,
} from '../../state/store';
import {
  type FailureKind,
  isPauseKind,
  pauseEndMs,
  UNAVAILABLE_RETRY_MS,
  type Unavailability,
} from '../failure-policy';

/** Runs `write` on a fresh read of the cursor, once more if another writer won the first time. */
async function withRetriedCursor<T>(
  store: CursorStore,
  clubId: string,
  source: SourceName,
  write: (cursor: Cursor) => Promise<T>,
): Promise<T | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const cursor = await store.getCursor(clubId, source);
    try {
      return await write(cursor);
    } catch (err) {
      if (!(err instanceof ConcurrentModificationError)) throw err;
    }
  }
  return undefined;
}

/** The mark of a source found unavailable at `nowMs` (the episode keeps its first `since`). */
export function unavailableMark(
  previous: SourceUnavailable | undefined,
  cause: Unavailability,
  error: string,
  nowMs: number,
): SourceUnavailable {
  const at = new Date(nowMs).toISOString();
  return {
    kind: cause.kind,
    reason: error.slice(0, 500),
    ...(cause.status === undefined ? {} : { status: cause.status }),
    since: previous?.since ?? at,
    checkedAt: at,
    retryAt: new Date(nowMs + UNAVAILABLE_RETRY_MS).toISOString(),
  };
}

/**
 * Marks the source unavailable on its cursor. `fresh`: the cursor had no mark, so this is a new
 * episode (log and announce it). Undefined when another writer kept winning.
 */
export function recordUnavailable(
  store: CursorStore,
  clubId: string,
  source: SourceName,
  cause: Unavailability,
  error: string,
  nowMs: number,
): Promise<{ mark: SourceUnavailable; fresh: boolean } | undefined> {
  return withRetriedCursor(store, clubId, source, async (cursor) => {
    const previous = cursor.health.unavailable;
    const mark = unavailableMark(previous, cause, error, nowMs);
    const health = { ...cursor.health, lastPollAt: new Date(nowMs).toISOString(), unavailable: mark };
    await store.putCursor({ ...cursor, health });
    return { mark, fresh: previous === undefined };
  });
}

/** Removes the unavailable mark; the mark it removed, if any. */
export async function clearUnavailableMark(
  store: CursorStore,
  clubId: string,
  source: SourceName,
): Promise<SourceUnavailable | undefined> {
  const cleared = await withRetriedCursor(store, clubId, source, async (cursor) => {
    const { unavailable, ...health } = cursor.health;
    if (!unavailable) return { unavailable };
    await store.putCursor({ ...cursor, health });
    return { unavailable };
  });
  return cleared?.unavailable;
}

/** Records a failed poll on the source's cursor, with the pause a 401 or 429 starts. */
export function recordFailure(
  store: CursorStore,
  clubId: string,
  source: SourceName,
  failure: { readonly kind: FailureKind; readonly message: string; readonly retryAfterMs?: number },
  nowMs: number,
): Promise<Cursor | undefined> {
  const { kind, message, retryAfterMs } = failure;
  return withRetriedCursor(store, clubId, source, (cursor) => {
    const failures = (cursor.health.lastError?.kind === kind ? cursor.health.consecutiveFailures : 0) + 1;
    const at = new Date(nowMs).toISOString();
    const health = {
      ...cursor.health,
      lastPollAt: at,
      consecutiveFailures: failures,
      lastError: { kind, message: message.slice(0, 500), at },
      ...(isPauseKind(kind)
        ? { pausedUntil: new Date(pauseEndMs(kind, failures, nowMs, retryAfterMs)).toISOString() }
        : {}),
    };
    return store.putCursor({ ...cursor, health });
  });
}

/** Notes on the cursor that its stale episode was announced (a lost race is left to the winner). */
export async function markStaleNotified(store: CursorStore, cursor: Cursor, nowMs: number): Promise<void> {
  try {
    await store.putCursor({
      ...cursor,
      health: { ...cursor.health, staleNotifiedAt: new Date(nowMs).toISOString() },
    });
  } catch (err) {
    if (!(err instanceof ConcurrentModificationError)) throw err;
  }
}
