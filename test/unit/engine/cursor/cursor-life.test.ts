/** The cursor's life outside a scan, as pure functions: no store, no socket. */
import { describe, expect, it } from 'vitest';
import { UNAVAILABLE_RETRY_MS } from '../../../../lambdas/engine/club-poll/failure-policy';
import {
  cursorAfterFailure,
  cursorMarkedUnavailable,
  cursorStaleNotified,
  cursorWithBackfillRequest,
  cursorWithoutUnavailable,
} from '../../../../lambdas/engine/cursor/cursor-life';
import { type Cursor, newCursor } from '../../../../lambdas/state/store';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const MINUTE = 60_000;
const cursor = (): Cursor => newCursor('club-1', 'visits');

describe('cursorAfterFailure', () => {
  it('counts failures of one kind in a row and starts over on another kind', () => {
    const once = cursorAfterFailure(cursor(), { kind: 'internal', message: 'boom' }, T0);
    const twice = cursorAfterFailure(once, { kind: 'internal', message: 'boom again' }, T0 + MINUTE);
    const other = cursorAfterFailure(twice, { kind: 'store', message: 'table' }, T0 + 2 * MINUTE);
    expect(once.health).toMatchObject({ consecutiveFailures: 1, lastPollAt: '2026-03-01T10:00:00.000Z' });
    expect(twice.health.consecutiveFailures).toBe(2);
    expect(twice.health.lastError).toEqual({
      kind: 'internal',
      message: 'boom again',
      at: '2026-03-01T10:01:00.000Z',
    });
    expect(other.health.consecutiveFailures).toBe(1);
    expect(other.health.pausedUntil).toBeUndefined();
  });

  it('pauses after a 401 with a doubling back-off, and honours a longer Retry-After of a 429', () => {
    const first = cursorAfterFailure(cursor(), { kind: 'auth', message: '401' }, T0);
    const second = cursorAfterFailure(first, { kind: 'auth', message: '401' }, T0);
    expect(Date.parse(first.health.pausedUntil!)).toBe(T0 + 5 * MINUTE);
    expect(Date.parse(second.health.pausedUntil!)).toBe(T0 + 10 * MINUTE);
    const quota = cursorAfterFailure(
      cursor(),
      { kind: 'quota', message: '429', retryAfterMs: 45 * MINUTE },
      T0,
    );
    expect(Date.parse(quota.health.pausedUntil!)).toBe(T0 + 45 * MINUTE);
  });

  it('keeps at most 500 characters of the reason and leaves the input cursor as it was', () => {
    const before = cursor();
    const after = cursorAfterFailure(before, { kind: 'internal', message: 'x'.repeat(2000) }, T0);
    expect(after.health.lastError?.message).toHaveLength(500);
    expect(before.health).toEqual({ consecutiveFailures: 0 });
  });
});

describe('the unavailable mark', () => {
  it('keeps the first `since` of an episode, moves checkedAt and retryAt, and clears', () => {
    const cause = { kind: 'not-found', status: 404 } as const;
    const marked = cursorMarkedUnavailable(cursor(), cause, 'HTTP 404', T0);
    const again = cursorMarkedUnavailable(marked, cause, 'HTTP 404', T0 + 60 * MINUTE);
    expect(marked.health.unavailable).toEqual({
      kind: 'not-found',
      status: 404,
      reason: 'HTTP 404',
      since: '2026-03-01T10:00:00.000Z',
      checkedAt: '2026-03-01T10:00:00.000Z',
      retryAt: new Date(T0 + UNAVAILABLE_RETRY_MS).toISOString(),
    });
    expect(again.health.unavailable?.since).toBe('2026-03-01T10:00:00.000Z');
    expect(again.health.unavailable?.checkedAt).toBe('2026-03-01T11:00:00.000Z');
    expect(cursorWithoutUnavailable(again).health.unavailable).toBeUndefined();
    const clean = cursor();
    expect(cursorWithoutUnavailable(clean)).toBe(clean);
  });
});

describe('the stale notice and the backfill request', () => {
  it('notes when the stale episode was announced', () => {
    expect(cursorStaleNotified(cursor(), T0).health.staleNotifiedAt).toBe('2026-03-01T10:00:00.000Z');
  });

  it('asks for a backfill once, and a new start drops the progress of the previous one', () => {
    const asked = cursorWithBackfillRequest(cursor(), T0)!;
    expect(asked.backfillFrom).toBe('2026-03-01T10:00:00.000Z');
    expect(cursorWithBackfillRequest(asked, T0)).toBeUndefined();
    const inProgress = {
      ...asked,
      backfillScan: { startedAt: '2026-03-02T00:00:00.000Z' },
    } as unknown as Cursor;
    const restarted = cursorWithBackfillRequest(inProgress, T0 - MINUTE)!;
    expect(restarted.backfillFrom).toBe('2026-03-01T09:59:00.000Z');
    expect(restarted).not.toHaveProperty('backfillScan');
  });
});
