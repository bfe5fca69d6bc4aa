/** Which club/sources the dispatcher calls overdue, and which it leaves to other signals. */
import { describe, expect, it } from 'vitest';
import {
  assessOverdue,
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  isMarkedUnavailable,
} from '../../../lambdas/engine/dispatch/source-overdue';
import { scheduleClub } from '../../../lambdas/engine/schedule/scheduling';
import { SOURCE_ORDER } from '../../../lambdas/sources';
import { type Cursor, newCursor, type SourceName } from '../../../lambdas/state';

const NOW = Date.parse('2026-06-10T12:00:00.000Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A cursor whose last success was `agoMs` before NOW (and `health` merged in). */
function cursor(
  source: SourceName,
  agoMs: number | undefined,
  health: Partial<Cursor['health']> = {},
): Cursor {
  const at = agoMs === undefined ? undefined : iso(NOW - agoMs);
  return {
    ...newCursor('club-1', source),
    baselineDone: at !== undefined,
    ...(at ? { watermark: at } : {}),
    health: {
      consecutiveFailures: 0,
      ...(at ? { lastPollAt: at, lastSuccessAt: at } : {}),
      ...health,
    },
    stats: { lastPages: 1, lastRecords: 0, lastEvents: 0 },
  };
}

function assess(
  cursors: Cursor[],
  options: { sources?: SourceName[]; updatedAt?: string; quotaUsed?: number; minimumMs?: number } = {},
) {
  const schedule = scheduleClub({
    plan: 'basic',
    ...(options.sources ? { sources: options.sources } : {}),
    cursors,
    quotaUsed: options.quotaUsed ?? 0,
    nowMs: NOW,
  });
  return assessOverdue({
    record: { clubId: 'club-1', ...(options.updatedAt ? { updatedAt: options.updatedAt } : {}) },
    cursors,
    schedule,
    nowMs: NOW,
    ...(options.minimumMs === undefined ? {} : { minimumMs: options.minimumMs }),
  });
}

describe('assessOverdue', () => {
  it('counts a source whose last success is older than max(3 x cadence, the minimum), not a fresh one', () => {
    const result = assess(
      [
        cursor('members', 20 * MINUTE, {
          consecutiveFailures: 6,
          lastPollAt: iso(NOW - 2 * MINUTE),
          lastError: {
            kind: 'unavailable',
            message: 'connect ECONNREFUSED 10.0.0.1:443',
            at: iso(NOW - 2 * MINUTE),
          },
        }),
        cursor('visits', 2 * MINUTE),
        cursor('prospects', (DEFAULT_SOURCE_OVERDUE_MINUTES - 1) * MINUTE),
      ],
      { sources: ['members', 'visits', 'prospects'] },
    );
    expect(result.checked).toBe(3);
    expect(result.overdue).toEqual([
      {
        clubId: 'club-1',
        source: 'members',
        sinceSuccessSeconds: 1200,
        cadenceSeconds: 60,
        allowedSeconds: DEFAULT_SOURCE_OVERDUE_MINUTES * 60,
        lastSuccessAt: iso(NOW - 20 * MINUTE),
        consecutiveFailures: 6,
        lastErrorKind: 'unavailable',
        lastErrorAt: iso(NOW - 2 * MINUTE),
        reason: 'connect ECONNREFUSED 10.0.0.1:443',
      },
    ]);
    expect(result.oldestSuccessAgeSeconds).toBe(1200);
  });

  it('the minimum is a setting: 5 minutes catches a 6-minute-old source', () => {
    const cursors = [cursor('members', 6 * MINUTE)];
    expect(assess(cursors, { sources: ['members'] }).overdue).toEqual([]);
    expect(assess(cursors, { sources: ['members'], minimumMs: 5 * MINUTE }).overdue).toHaveLength(1);
  });

  it('does not widen the allowance for failure back-off: a source failing for an hour is overdue', () => {
    const result = assess([cursor('visits', 60 * MINUTE, { consecutiveFailures: 12 })], {
      sources: ['visits'],
    });
    expect(result.overdue.map((o) => o.source)).toEqual(['visits']);
    expect(result.overdue[0]!.allowedSeconds).toBe(DEFAULT_SOURCE_OVERDUE_MINUTES * 60);
    expect(result.overdue[0]!.reason).toMatch(/no error is stored/);
  });

  it('leaves out a club paused now (credentials or 429: their own alarms), and measures from the pause end once it is over', () => {
    const paused = assess([cursor('members', 6 * 60 * MINUTE, { pausedUntil: iso(NOW + 10 * MINUTE) })], {
      sources: ['members'],
    });
    expect(paused).toEqual({ checked: 0, overdue: [] });
    const justResumed = assess([cursor('members', 6 * 60 * MINUTE, { pausedUntil: iso(NOW - 2 * MINUTE) })], {
      sources: ['members'],
    });
    expect(justResumed.overdue).toEqual([]);
    expect(justResumed.oldestSuccessAgeSeconds).toBe(120);
    const resumedLongAgo = assess(
      [cursor('members', 6 * 60 * MINUTE, { pausedUntil: iso(NOW - 30 * MINUTE) })],
      {
        sources: ['members'],
      },
    );
    expect(resumedLongAgo.overdue.map((o) => o.sinceSuccessSeconds)).toEqual([1800]);
  });

  it('leaves out a source marked unavailable for the club', () => {
    const unavailable = {
      ...cursor('classAttendance', 3 * 24 * 60 * MINUTE),
      health: {
        consecutiveFailures: 0,
        lastSuccessAt: iso(NOW - 3 * 24 * 60 * MINUTE),
        unavailable: {
          reason: 'HTTP 404',
          since: iso(NOW - 3 * 24 * 60 * MINUTE),
          retryAt: iso(NOW + 60 * MINUTE),
        },
      },
    } as Cursor;
    expect(isMarkedUnavailable(unavailable)).toBe(true);
    expect(isMarkedUnavailable(cursor('members', 0))).toBe(false);
    const result = assess([unavailable, cursor('members', MINUTE)], {
      sources: ['classAttendance', 'members'],
    });
    expect(result).toEqual({ checked: 1, overdue: [], oldestSuccessAgeSeconds: 60 });
  });

  it('leaves out sources held back because the month budget is spent (QuotaHigh says so)', () => {
    const result = assess([cursor('members', 3 * 60 * MINUTE)], { sources: ['members'], quotaUsed: 900_000 });
    expect(result).toEqual({ checked: 0, overdue: [] });
  });

  it('measures a source that never succeeded from the club record, and a re-enabled club from its re-enabling', () => {
    const never = assess([], { sources: ['members'], updatedAt: iso(NOW - 40 * MINUTE) });
    expect(never.overdue).toMatchObject([{ source: 'members', sinceSuccessSeconds: 2400 }]);
    expect(never.overdue[0]).not.toHaveProperty('lastSuccessAt');
    expect(never.overdue[0]!.reason).toMatch(/no poll of this source has succeeded yet/);
    const reenabled = assess([cursor('members', 3 * 24 * 60 * MINUTE)], {
      sources: ['members'],
      updatedAt: iso(NOW - 5 * MINUTE),
    });
    expect(reenabled.overdue).toEqual([]);
    // Nothing to measure from: not counted (the club appears once it has a record time or a success).
    expect(assess([], { sources: ['members'] })).toEqual({ checked: 1, overdue: [] });
  });

  it('checks every default source of a club polled long ago', () => {
    const result = assess(SOURCE_ORDER.map((s) => cursor(s, 2 * 60 * MINUTE)));
    expect(result.overdue.length).toBe(result.checked);
    expect(result.checked).toBeGreaterThan(0);
  });
});
