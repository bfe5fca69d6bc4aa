/**
 * Sweeps paid for by the quota the plan leaves unused: late changes (a dishonour, a refund) are
 * found sooner while the club stays at its target share, and the engine and the scheduler agree.
 */
import { describe, expect, it } from 'vitest';
import { PLAN_QUOTAS } from '../../../../lambdas/common/plans';
import { planRegularScan } from '../../../../lambdas/engine/scan/plan';
import { SOURCE_CADENCE } from '../../../../lambdas/engine/schedule/cadence';
import { demandPerHour, estimateActivityPerHour } from '../../../../lambdas/engine/schedule/cost-estimate';
import { scheduleClub } from '../../../../lambdas/engine/schedule/scheduling';
import {
  LATE_CHANGE_ORDER,
  MIN_SWEEP_INTERVAL_MS,
  SWEEP_TARGET_SHARE,
  sweepIntervals,
} from '../../../../lambdas/engine/schedule/sweep-budget';
import { DEFAULT_SOURCES, SOURCES } from '../../../../lambdas/sources';
import { type Cursor, newCursor, type SourceName } from '../../../../lambdas/state/store';

const NOW = Date.parse('2026-11-15T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MONTH_HOURS = 30 * 24;

/** A typical club's sources, polled a minute ago with these records in their last tail. */
const RECORDS: Partial<Record<SourceName, number>> = {
  visits: 80,
  paymentHistory: 15,
  posTransactions: 6,
  disbursements: 300,
  debtCollection: 2,
  members: 3,
  prospects: 4,
};

function cursors(): Cursor[] {
  const at = new Date(NOW - MINUTE).toISOString();
  return DEFAULT_SOURCES.map((source) => ({
    ...newCursor('club-1', source),
    baselineDone: true,
    watermark: at,
    health: { consecutiveFailures: 0, lastPollAt: at, lastSuccessAt: at },
    stats: { lastRecords: RECORDS[source] ?? 1, lastPages: 1, lastSweepAtMs: NOW - 30 * MINUTE },
  }));
}

const states = (list: Cursor[]) =>
  list.map((cursor) => ({
    source: cursor.source,
    cursor,
    activity: estimateActivityPerHour(cursor.source, cursor),
    baseIntervalMs: SOURCE_CADENCE[cursor.source].intervalMs,
  }));

describe('demandPerHour with a paid window', () => {
  it("counts payments' paid sweeps over their 6 days and the hourly 10 days on top, other sources' paid sweeps whole", () => {
    // Prepare: payment history at 900 records an hour (a 10-day window is 216,000 rows, 433 pages)
    const at = new Date(NOW - MINUTE).toISOString();
    const cursor = (source: SourceName, lastRecords: number): Cursor => ({
      ...newCursor('club-1', source),
      baselineDone: true,
      watermark: at,
      health: { consecutiveFailures: 0, lastPollAt: at, lastSuccessAt: at },
      stats: {
        lastRecords,
        lastPages: 1,
        lastSweepAtMs: NOW - 30 * MINUTE,
        lastWholeSweepAtMs: NOW - 30 * MINUTE,
      },
    });
    const payments = states([cursor('paymentHistory', 900 * (1 + 1 / 60))]);
    const activity = payments[0]!.activity!;
    const pages = (windowMs: number) => Math.floor(Math.ceil((activity * windowMs) / HOUR) / 500) + 1;
    const DAY = 24 * HOUR;
    // Act
    const paid = demandPerHour(payments, 1, { paymentHistory: 10 * MINUTE });
    const unpaid = demandPerHour(payments, 1);
    // Assess: tails every minute, 6 days every 10 minutes, 10 days every hour
    expect(paid).toBeCloseTo(
      60 * pages(HOUR + MINUTE) + 6 * pages(6 * DAY + 10 * MINUTE) + pages(10 * DAY + HOUR),
      6,
    );
    expect(unpaid).toBeCloseTo(60 * pages(HOUR + MINUTE) + pages(10 * DAY + HOUR), 6);
    // Disbursements have no paid window: a paid sweep reads the whole 7 days, in place of the own one
    const disbursements = states([cursor('disbursements', 300)]);
    const d = SOURCES.disbursements;
    const dPages = (windowMs: number) =>
      Math.floor(Math.ceil((disbursements[0]!.activity! * windowMs) / HOUR) / 500) + 1;
    expect(demandPerHour(disbursements, 1, { disbursements: 10 * MINUTE })).toBeCloseTo(
      60 * dPages(d.tailLookbackMs + MINUTE) + 6 * dPages(d.sweep!.windowMs + 10 * MINUTE),
      6,
    );
  });
});

describe('sweepIntervals', () => {
  it('spends the unused quota on sweeps, payments first, never faster than the floor (7 minutes), within the target', () => {
    // Act
    const list = cursors();
    const sweeps = sweepIntervals({
      plan: 'basic',
      sources: DEFAULT_SOURCES,
      cursors: list,
      quotaUsed: 0,
      nowMs: NOW,
    });
    // Assess
    expect(sweeps.paymentHistory).toBeDefined();
    expect(sweeps.paymentHistory!).toBeLessThan(SOURCES.paymentHistory.sweep!.everyMs);
    for (const [source, ms] of Object.entries(sweeps)) {
      expect(ms).toBeGreaterThanOrEqual(MIN_SWEEP_INTERVAL_MS);
      expect(ms).toBeLessThan(SOURCES[source as SourceName].sweep!.everyMs);
      expect(ms % MINUTE).toBe(0);
    }
    const granted = Object.keys(sweeps) as SourceName[];
    const order = granted.map((s) => LATE_CHANGE_ORDER.indexOf(s));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const target = (SWEEP_TARGET_SHARE * PLAN_QUOTAS.basic) / MONTH_HOURS;
    expect(demandPerHour(states(list), 1, sweeps)).toBeLessThanOrEqual(target);
    expect(demandPerHour(states(list), 1, sweeps)).toBeGreaterThan(demandPerHour(states(list), 1));
  });

  it('gives nothing to a club at or past its target share, and less to one ahead of its month', () => {
    // Prepare: half the month gone
    const list = cursors();
    const input = { plan: 'basic' as const, sources: DEFAULT_SOURCES, cursors: list, nowMs: NOW };
    // Act
    const spent = sweepIntervals({ ...input, quotaUsed: SWEEP_TARGET_SHARE * PLAN_QUOTAS.basic });
    const ahead = sweepIntervals({ ...input, quotaUsed: 0.4 * PLAN_QUOTAS.basic });
    const behind = sweepIntervals({ ...input, quotaUsed: 0 });
    const advanced = sweepIntervals({ ...input, plan: 'advanced', quotaUsed: 0 });
    // Assess
    expect(spent).toEqual({});
    expect(ahead.paymentHistory ?? Number.POSITIVE_INFINITY).toBeGreaterThan(behind.paymentHistory!);
    expect(advanced.paymentHistory!).toBeLessThanOrEqual(behind.paymentHistory!);
  });

  it('is what the scheduler counts: scheduleClub carries the same sweeps', () => {
    const list = cursors();
    const input = {
      plan: 'basic' as const,
      sources: DEFAULT_SOURCES,
      cursors: list,
      quotaUsed: 1000,
      nowMs: NOW,
    };
    expect(scheduleClub(input).sweeps).toEqual(sweepIntervals(input));
  });
});

describe('the scan plan with a sweep period from the budget', () => {
  it('sweeps when the shorter period has passed, and tails when it has not', () => {
    // Prepare: payments swept 3 minutes ago, its whole window 30 minutes ago (its own period is an hour)
    const base = cursors().find((c) => c.source === 'paymentHistory')!;
    const stats = { ...base.stats, lastSweepAtMs: NOW - 3 * MINUTE, lastWholeSweepAtMs: NOW - 30 * MINUTE };
    const given = { ...base, stats };
    const ctx = {
      clubId: 'club-1',
      timeZone: 'Europe/London',
      unstatedZone: 'local' as const,
      unstatedZoneConfirmed: true,
      piiPolicy: 'minimal' as const,
    };
    // Act / Assess
    expect(planRegularScan(given, SOURCES.paymentHistory, ctx, NOW).mode).toBe('tail');
    expect(planRegularScan(given, SOURCES.paymentHistory, ctx, NOW, 2 * MINUTE).mode).toBe('sweep');
    expect(planRegularScan(given, SOURCES.paymentHistory, ctx, NOW, 5 * MINUTE).mode).toBe('tail');
    // The paid sweep reads the paid window (6 days), the hourly one the whole window (10 days)
    const paid = planRegularScan(given, SOURCES.paymentHistory, ctx, NOW, 2 * MINUTE);
    const whole = planRegularScan(
      { ...given, stats: { ...stats, lastWholeSweepAtMs: NOW - HOUR } },
      SOURCES.paymentHistory,
      ctx,
      NOW,
      2 * MINUTE,
    );
    const daysBack = (fromdate: string) =>
      Math.round((Date.parse(given.watermark!) - Date.parse(`${fromdate}Z`)) / (24 * HOUR));
    expect(paid).toMatchObject({ mode: 'sweep', paid: true });
    expect(daysBack(paid.fromdate)).toBe(6);
    expect(whole.paid).toBeUndefined();
    expect(daysBack(whole.fromdate)).toBe(10);
    // A budget period longer than the source's own never delays its sweep
    const old = {
      ...base,
      stats: { ...base.stats, lastSweepAtMs: NOW - 2 * HOUR, lastWholeSweepAtMs: NOW - 2 * HOUR },
    };
    expect(planRegularScan(old, SOURCES.paymentHistory, ctx, NOW, 10 * HOUR)).toMatchObject({
      mode: 'sweep',
    });
    expect(planRegularScan(old, SOURCES.paymentHistory, ctx, NOW, 10 * HOUR).paid).toBeUndefined();
  });
});
