/** The scheduling rules one at a time: first polls, back-off, pauses, activity, quota stretch, hard cap. */
import { describe, expect, it } from 'vitest';
import {
  failureBackoffMs,
  MAX_FAILURE_BACKOFF_MS,
} from '../../../../lambdas/engine/club-poll/failure-policy';
import { SOURCE_CADENCE } from '../../../../lambdas/engine/schedule/cadence';
import {
  estimateActivityPerHour,
  estimatePollCost,
  FIRST_POLL_COST_ESTIMATE,
  pagesFor,
} from '../../../../lambdas/engine/schedule/cost-estimate';
import { quotaBudget } from '../../../../lambdas/engine/schedule/quota-budget';
import { scheduleClub } from '../../../../lambdas/engine/schedule/scheduling';
import { DEFAULT_SOURCES, SOURCE_ORDER } from '../../../../lambdas/sources';
import { type Cursor, newCursor, type SourceName } from '../../../../lambdas/state/store';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = Date.parse('2026-04-16T00:00:00.000Z'); // half of April gone

/** A cursor last polled `agoMs` before NOW that read `records` records in `pages` pages. */
function polled(source: SourceName, agoMs: number, records: number, extra: Partial<Cursor> = {}): Cursor {
  const at = NOW - agoMs;
  return {
    ...newCursor('club-1', source),
    version: 3,
    baselineDone: true,
    watermark: new Date(at).toISOString(),
    ...extra,
    health: { consecutiveFailures: 0, lastPollAt: new Date(at).toISOString(), ...extra.health },
    stats: {
      lastPages: pagesFor(records),
      lastRecords: records,
      lastSweepAtMs: at - 30 * MINUTE,
      ...extra.stats,
    },
  };
}

const allPolled = (agoMs: number, records = 10) => SOURCE_ORDER.map((s) => polled(s, agoMs, records));

describe('quotaBudget', () => {
  it('keeps the reserve free and spreads what is left over the rest of the month', () => {
    // Act
    const budget = quotaBudget('basic', 300_000, NOW);
    // Assess: April has 30 days; NOW is 15 days in.
    expect(budget.limit).toBe(1_000_000);
    expect(budget.budget).toBe(900_000);
    expect(budget.remaining).toBe(600_000);
    expect(budget.month).toBe('2026-04');
    expect(budget.elapsedShare).toBeCloseTo(0.5, 6);
    expect(budget.usedShare).toBeCloseTo(1 / 3, 6);
    expect(budget.affordablePerHour).toBeCloseTo(600_000 / (15 * 24), 6);
    expect(quotaBudget('advanced', 0, NOW, 0.2).budget).toBe(4_000_000);
  });

  it('has nothing left once the budget is spent, and refuses a reserve outside [0, 1)', () => {
    expect(quotaBudget('basic', 950_000, NOW).remaining).toBe(0);
    expect(() => quotaBudget('basic', 0, NOW, 1)).toThrow(RangeError);
    expect(() => quotaBudget('basic', 0, NOW, -0.1)).toThrow(RangeError);
  });
});

describe('scheduleClub', () => {
  it('makes every enabled source of a new club due, in poll order', () => {
    // Act
    const plan = scheduleClub({ plan: 'basic', cursors: [], quotaUsed: 0, nowMs: NOW });
    // Assess
    expect(plan.due).toEqual(DEFAULT_SOURCES);
    expect(plan.due).not.toContain('classAttendance'); // experimental: only when a club lists it
    expect(plan.sources.every((s) => s.reason === 'first-poll')).toBe(true);
    expect(plan.dueCost).toBe(DEFAULT_SOURCES.length * FIRST_POLL_COST_ESTIMATE);
    const only = scheduleClub({
      plan: 'basic',
      sources: ['visits', 'members'],
      cursors: [],
      quotaUsed: 0,
      nowMs: NOW,
    });
    expect(only.due).toEqual(['members', 'visits']);
  });

  it('does not make a paused club due, and says until when', () => {
    // Prepare: a 401 paused the club (one cursor carries the pause).
    const pausedUntil = new Date(NOW + 20 * MINUTE).toISOString();
    const cursors = allPolled(2 * HOUR);
    cursors[0] = { ...cursors[0]!, health: { ...cursors[0]!.health, pausedUntil } };
    // Act
    const paused = scheduleClub({ plan: 'basic', cursors, quotaUsed: 0, nowMs: NOW });
    const after = scheduleClub({ plan: 'basic', cursors, quotaUsed: 0, nowMs: NOW + 21 * MINUTE });
    // Assess
    expect(paused.due).toEqual([]);
    expect(paused.pausedUntilMs).toBe(Date.parse(pausedUntil));
    expect(paused.sources.every((s) => s.reason === 'paused' && s.dueAtMs === Date.parse(pausedUntil))).toBe(
      true,
    );
    expect(after.due.length).toBeGreaterThan(0);
  });

  it('backs a failing source off exponentially, up to 30 minutes', () => {
    const cadence = SOURCE_CADENCE.visits;
    expect(failureBackoffMs(cadence, 0)).toBe(0);
    expect(failureBackoffMs(cadence, 1)).toBe(2 * MINUTE);
    expect(failureBackoffMs(cadence, 3)).toBe(8 * MINUTE);
    expect(failureBackoffMs(cadence, 40)).toBe(MAX_FAILURE_BACKOFF_MS);
    expect(MAX_FAILURE_BACKOFF_MS).toBe(30 * MINUTE);
    // A busy visits source that failed 3 times in a row waits 8 minutes, not its busy 1-2 minutes.
    const failing = polled('visits', 5 * MINUTE, 400, {
      health: { consecutiveFailures: 3, lastError: { kind: 'unavailable', message: '503', at: '' } },
    });
    const plan = scheduleClub({
      plan: 'basic',
      sources: ['visits'],
      cursors: [failing],
      quotaUsed: 0,
      nowMs: NOW,
    });
    expect(plan.due).toEqual([]);
    expect(plan.sources[0]!.intervalMs).toBe(8 * MINUTE);
    expect(plan.sources[0]!.dueAtMs).toBe(NOW + 3 * MINUTE);
  });

  it("estimates a source's activity from its last query window (for the cost estimate)", () => {
    // Prepare: one visits cursor read 300 records in its last window, another none.
    const busy = polled('visits', 0, 300);
    const quiet = polled('visits', 0, 0);
    // Act
    const busyActivity = estimateActivityPerHour('visits', busy)!;
    const quietActivity = estimateActivityPerHour('visits', quiet)!;
    // Assess: the tail window is the 1 h lookback plus the 1 min interval.
    expect(busyActivity).toBeCloseTo(300 / (61 / 60), 6);
    expect(quietActivity).toBe(0);
    // Unknown activity: a state source's full baseline tells the club's size, not its activity.
    const baseline = polled('members', 0, 3000, { stats: { lastSweepAtMs: NOW } });
    expect(estimateActivityPerHour('members', baseline)).toBeUndefined();
  });

  it('polls a source at its fixed interval, busy or quiet (activity changes the cost, not the cadence)', () => {
    // Prepare: the same source, once busy, once quiet, both polled 2 minutes ago.
    const busy = polled('visits', 2 * MINUTE, 3000);
    const quiet = polled('visits', 2 * MINUTE, 0);
    // Act
    const schedule = (cursor: Cursor) =>
      scheduleClub({ plan: 'basic', sources: ['visits'], cursors: [cursor], quotaUsed: 0, nowMs: NOW });
    const [busyPlan, quietPlan] = [schedule(busy), schedule(quiet)];
    // Assess
    expect(SOURCE_CADENCE.visits.intervalMs).toBe(MINUTE);
    expect(busyPlan.sources[0]!.intervalMs).toBe(MINUTE);
    expect(quietPlan.sources[0]!.intervalMs).toBe(MINUTE);
    expect(busyPlan.sources[0]!.cost).toBeGreaterThan(quietPlan.sources[0]!.cost);
  });

  it('estimates a poll by its query window: a tail, or a sweep once one is due', () => {
    // Prepare: payment history, 20 records an hour (the last tail read its 1 h tail + 1 min of them;
    // the scheduler assumes the tail of a confirmed zone reading: an unconfirmed club's longer tail
    // only makes it overestimate the activity, which errs towards polling sooner).
    const cursor = polled('paymentHistory', 0, 20 * (1 + 1 / 60), {
      stats: { lastSweepAtMs: NOW - 10 * MINUTE, lastWholeSweepAtMs: NOW - 10 * MINUTE },
    });
    // Act + Assess: a tail 5 minutes later reads ~20 records (1 page); after the hourly sweep
    // falls due it reads 10 days (~4,800 records: 10 pages).
    expect(estimatePollCost('paymentHistory', cursor, 5 * MINUTE)).toBe(1);
    expect(estimatePollCost('paymentHistory', cursor, 55 * MINUTE)).toBe(10);
    // The hourly sweep is of the whole window, whatever paid sweeps came since: only the last
    // whole sweep counts (a cursor from before paid windows has no mark, so its next sweep is whole).
    const paidSince = { ...cursor, stats: { ...cursor.stats, lastWholeSweepAtMs: NOW - 58 * MINUTE } };
    expect(estimatePollCost('paymentHistory', paidSince, 5 * MINUTE)).toBe(10);
    const { lastWholeSweepAtMs: _w, ...older } = cursor.stats!;
    expect(estimatePollCost('paymentHistory', { ...cursor, stats: older }, 5 * MINUTE)).toBe(10);
    expect(estimatePollCost('visits', undefined, MINUTE)).toBe(FIRST_POLL_COST_ESTIMATE);
  });

  it('stretches every interval when the club is ahead of its month, and not when it is behind', () => {
    // Prepare: the same busy club, once with plenty left, once with 1,000 requests for 15 days.
    const cursors = allPolled(MINUTE, 400);
    // Act
    const relaxed = scheduleClub({ plan: 'basic', cursors, quotaUsed: 100_000, nowMs: NOW });
    const tight = scheduleClub({ plan: 'basic', cursors, quotaUsed: 899_000, nowMs: NOW });
    // Assess
    expect(relaxed.stretch).toBe(1);
    expect(tight.stretch).toBeGreaterThan(5);
    for (const [i, s] of tight.sources.entries()) {
      expect(s.intervalMs).toBeCloseTo(relaxed.sources[i]!.intervalMs * tight.stretch, 3);
    }
  });

  it('takes due sources only while their estimated cost fits in what is left of the budget', () => {
    // Prepare: a new club (every source due, a first poll estimated at FIRST_POLL_COST_ESTIMATE
    // requests) with room for two first polls only.
    const left = 2 * FIRST_POLL_COST_ESTIMATE + 5;
    // Act
    const plan = scheduleClub({ plan: 'basic', cursors: [], quotaUsed: 900_000 - left, nowMs: NOW });
    const spent = scheduleClub({
      plan: 'basic',
      cursors: allPolled(2 * HOUR),
      quotaUsed: 900_000,
      nowMs: NOW,
    });
    // Assess
    expect(plan.due).toEqual(SOURCE_ORDER.slice(0, 2));
    expect(plan.dueCost).toBeLessThanOrEqual(left);
    expect(plan.sources.filter((s) => s.reason === 'quota-exhausted')).toHaveLength(
      DEFAULT_SOURCES.length - 2,
    );
    expect(spent.due).toEqual([]);
    expect(
      spent.sources.every((s) => s.reason === 'quota-exhausted' && s.dueAtMs === spent.budget.monthEndMs),
    ).toBe(true);
  });

  it('resumes an unfinished scan after the minimum interval', () => {
    const scan = { fromdate: '', nextOffset: 1000, startedAt: '', pages: 2, records: 1000 };
    const cursor = polled('members', 2 * MINUTE, 1000, { scan });
    const plan = scheduleClub({
      plan: 'basic',
      sources: ['members'],
      cursors: [cursor],
      quotaUsed: 0,
      nowMs: NOW,
    });
    expect(plan.due).toEqual(['members']);
    expect(plan.sources[0]!.reason).toBe('resume-scan');
  });
});

describe('scheduleClub: sources whose endpoint is missing for the club', () => {
  it('does not make an unavailable source due before its retryAt, nor count it against the quota', () => {
    // Prepare: classAttendance enabled, its endpoint found missing an hour ago (retry in 5 h)
    const retryAt = new Date(NOW + 5 * HOUR).toISOString();
    const cursors = [
      polled('members', 2 * HOUR, 10),
      polled('classAttendance', HOUR, 0, {
        health: {
          consecutiveFailures: 0,
          unavailable: {
            kind: 'not-found',
            reason: 'classAttendance: HTTP 404 not found',
            status: 404,
            since: new Date(NOW - HOUR).toISOString(),
            checkedAt: new Date(NOW - HOUR).toISOString(),
            retryAt,
          },
        },
      }),
    ];
    const input = {
      plan: 'basic' as const,
      sources: ['members', 'classAttendance'] as SourceName[],
      quotaUsed: 0,
    };
    // Act
    const now = scheduleClub({ ...input, cursors, nowMs: NOW });
    const later = scheduleClub({ ...input, cursors, nowMs: Date.parse(retryAt) + MINUTE });
    // Assess
    expect(now.due).toEqual(['members']);
    expect(now.sources.find((s) => s.source === 'classAttendance')).toMatchObject({
      due: false,
      reason: 'unavailable',
      dueAtMs: Date.parse(retryAt),
    });
    expect(later.due).toEqual(['members', 'classAttendance']);
  });
});
