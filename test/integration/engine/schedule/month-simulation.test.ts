/**
 * A simulated month of dispatcher decisions (one a minute) for a typical club and for the same club
 * starting the month already near its budget.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type MonthResult, medianGapMs, pollsOf, simulateMonth, TYPICAL_CLUB } from './month-simulation';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const MONTH_START = '2026-03-01T00:00:00.000Z'; // 31 days

describe('a simulated month', () => {
  let typical: MonthResult;
  let nearQuota: MonthResult;

  beforeAll(() => {
    // Prepare + Act: both clubs run the whole month.
    typical = simulateMonth(TYPICAL_CLUB, { monthStart: MONTH_START, startUsed: 0 });
    // Only 6,000 requests of the 900,000 budget left on the 1st.
    nearQuota = simulateMonth(TYPICAL_CLUB, { monthStart: MONTH_START, startUsed: 900_000 - 6_000 });
  });

  it('keeps both clubs inside the plan minus the reserve at every tick', () => {
    // Assess
    expect(typical.budget).toBe(900_000);
    expect(typical.peakUsed).toBeLessThanOrEqual(typical.budget);
    expect(nearQuota.peakUsed).toBeLessThanOrEqual(nearQuota.budget);
  });

  it('polls the typical club at its activity cadence: busy sources every minute, within half the plan', () => {
    // Assess: nothing needs stretching; the month costs well under half the plan.
    expect(typical.endUsed).toBeLessThan(0.5 * 1_000_000); // the Basic plan
    expect(typical.endUsed).toBeGreaterThan(20_000);
    // Visits every minute, day and night (freshness first).
    const visits = pollsOf(typical, 'visits');
    const openGap = medianGapMs(visits, 8 * 60, 21 * 60);
    const nightGap = medianGapMs(visits, 0, 5 * 60);
    expect(openGap).toBeLessThanOrEqual(MINUTE);
    expect(nightGap).toBeLessThanOrEqual(MINUTE);
    // Every source every minute (freshness first).
    expect(medianGapMs(pollsOf(typical, 'members'))).toBeLessThanOrEqual(2 * MINUTE);
    expect(medianGapMs(pollsOf(typical, 'paymentHistory'))).toBeLessThanOrEqual(2 * MINUTE);
    // Within the 1 min .. 10 min bounds when nothing constrains the budget.
    for (const source of ['members', 'visits', 'disbursements', 'debtCollection'] as const) {
      const polls = pollsOf(typical, source);
      const gaps = polls.slice(1).map((p, i) => p.atMs - polls[i]!.atMs);
      expect(Math.min(...gaps), source).toBeGreaterThanOrEqual(MINUTE);
      expect(Math.max(...gaps), source).toBeLessThanOrEqual(10 * MINUTE);
    }
  });

  it('polls the near-quota club less often, spreads what is left over the month and ends inside the budget', () => {
    // Assess: fewer polls of every source.
    for (const source of ['members', 'visits', 'paymentHistory', 'prospects'] as const) {
      expect(pollsOf(nearQuota, source).length, source).toBeLessThan(pollsOf(typical, source).length / 2);
    }
    // It spends what is left rather than stopping early: most of it, evenly.
    const spent = nearQuota.endUsed - nearQuota.startUsed;
    expect(spent).toBeGreaterThan(0.8 * 6_000);
    const midMonth = nearQuota.usedByDay[15]! - nearQuota.startUsed;
    expect(midMonth / spent).toBeGreaterThan(0.3);
    expect(midMonth / spent).toBeLessThan(0.7);
    // Still polled in the last days of the month.
    const lastWeek = nearQuota.polls.filter((p) => p.atMs >= Date.parse(MONTH_START) + 25 * DAY);
    expect(lastWeek.length).toBeGreaterThan(0);
    expect(new Set(lastWeek.map((p) => p.source))).toContain('visits');
  });
});
