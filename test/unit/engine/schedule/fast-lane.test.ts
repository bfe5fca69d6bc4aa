/** The fast lane's decision (engine/schedule/fast-lane.ts), as the dispatcher takes it every minute. */
import { describe, expect, it } from 'vitest';
import { isOpenAt, parseOpeningHours } from '../../../../lambdas/common/opening-hours';
import { HOUR_MS, MINUTE_MS } from '../../../../lambdas/common/time-units';
import {
  describeFastLane,
  FAST_LANE_QUOTA_SHARE,
  laneRequestsPerHour,
  PEAK_VISITS_PER_HOUR,
  QUIET_VISITS_PER_HOUR,
  RECENT_VISITS_MS,
} from '../../../../lambdas/engine/schedule/fast-lane';
import { scheduleClub } from '../../../../lambdas/engine/schedule/scheduling';
import { SOURCE_ORDER } from '../../../../lambdas/sources';
import { type Cursor, newCursor } from '../../../../lambdas/state';

// A Wednesday, 12:00 in Sydney (UTC+10 in June).
const NOW = Date.parse('2026-06-10T02:00:00.000Z');

/** Every source polled `agoMs` ago, visits' last visit `lastVisitAgoMs` ago. */
function cursors(lastVisitAgoMs: number, extra: Partial<Cursor> = {}, agoMs = MINUTE_MS): Cursor[] {
  return SOURCE_ORDER.map((source) => {
    const at = new Date(NOW - agoMs).toISOString();
    const watermark = source === 'visits' ? new Date(NOW - lastVisitAgoMs).toISOString() : at;
    return {
      ...newCursor('club-1', source),
      version: 3,
      baselineDone: true,
      watermark,
      health: { consecutiveFailures: 0, lastPollAt: at, lastSuccessAt: at },
      stats: { lastPages: 1, lastRecords: 2, lastEvents: 0 },
      ...(source === 'visits' ? extra : {}),
    };
  });
}

const lane = (input: Partial<Parameters<typeof scheduleClub>[0]> & { cursors: Cursor[] }) =>
  scheduleClub({ plan: 'basic', quotaUsed: 0, nowMs: NOW, timeZone: 'Australia/Sydney', ...input }).fastLane;

describe('the fast lane', () => {
  it('is on every 15 s after a recent visit, with three probes behind the minute poll', () => {
    const l = lane({ cursors: cursors(2 * MINUTE_MS) });
    expect(l).toEqual({ on: true, reason: 'recent-visits', periodMs: 15_000, probes: 3 });
    expect(describeFastLane(l)).toBe('on: visits probed every 15 s (a visit in the last 20 minutes)');
  });

  it('is off when the club is quiet, and on inside its opening hours whatever the visits', () => {
    const quiet = cursors(RECENT_VISITS_MS + MINUTE_MS);
    expect(lane({ cursors: quiet })).toMatchObject({ on: false, reason: 'quiet', probes: 0 });
    expect(lane({ cursors: quiet, fastLane: { openingHours: '05:30-22:00' } })).toMatchObject({
      on: true,
      reason: 'opening-hours',
    });
    // 12:00 local is outside 13:00-23:00: quiet still.
    expect(lane({ cursors: quiet, fastLane: { openingHours: '13:00-23:00' } })).toMatchObject({
      on: false,
      reason: 'quiet',
    });
  });

  it('is off by the setting, and when visits are not among the sources', () => {
    expect(lane({ cursors: cursors(0), fastLane: { enabled: false } }).reason).toBe('off-by-setting');
    expect(lane({ cursors: cursors(0), sources: ['members'] }).reason).toBe('off-by-setting');
  });

  it('is off while visits are not in steady state or not polled this minute', () => {
    expect(lane({ cursors: [] }).reason).toBe('not-steady');
    const scanning = cursors(0, {
      scan: { mode: 'tail', fromdate: 'x', nextOffset: 500, startedAt: 'x', pages: 1, records: 500 } as never,
    });
    expect(lane({ cursors: scanning }).on).toBe(false);
    const refused = cursors(0, { stats: { lastPages: 1, lastRecords: 0, lastEvents: 0, probeOff: 1 } });
    expect(lane({ cursors: refused }).reason).toBe('not-steady');
    // Polled 10 s ago: nothing due this minute, so no minute poll to ride behind.
    expect(lane({ cursors: cursors(0, {}, 10_000) }).reason).toBe('not-polled');
    const paused = cursors(0, {
      health: { consecutiveFailures: 1, pausedUntil: new Date(NOW + 3_600_000).toISOString() },
    });
    expect(lane({ cursors: paused }).on).toBe(false);
  });

  it("slows down, then stops, as the month's counter nears the pace that ends it at half the plan", () => {
    const recent = cursors(MINUTE_MS);
    const at = (quotaUsed: number) => lane({ cursors: recent, quotaUsed });
    // 10 June 02:00 UTC: 30.3% of the month gone; the pace line is 50% of the plan times that, plus a slack.
    const line =
      1_000_000 * FAST_LANE_QUOTA_SHARE * ((NOW - Date.parse('2026-06-01T00:00:00Z')) / (30 * 86_400_000));
    const fast = at(0);
    expect(fast.periodMs).toBe(15_000);
    // Find the counter where 15 s no longer fits, and check the next periods take over before off.
    let used = 0;
    while (at(used).periodMs === 15_000) used += 100;
    expect([20_000, 30_000]).toContain(at(used).periodMs);
    while (at(used).on) used += 100;
    expect(at(used)).toMatchObject({ on: false, reason: 'quota' });
    expect(used).toBeGreaterThan(line);
    expect(used).toBeLessThanOrEqual(line + 2 * 240 + 100);
    // A stretched schedule (the club cannot afford its intervals) has no lane at all.
    expect(lane({ cursors: recent, quotaUsed: 899_000 })).toMatchObject({ on: false, reason: 'quota' });
  });

  it("keeps the minute: a probe's session after the minute poll does not push visits past the next one", () => {
    // Prepare: the minute poll a minute ago paid for probes until now; a probe's session polled
    // visits 15 s ago (its lastPollAt).
    const visits = cursors(15_000).map((c) =>
      c.source === 'visits'
        ? {
            ...c,
            health: { ...c.health, lastPollAt: new Date(NOW - 15_000).toISOString() },
            stats: { ...c.stats, fastLanePaidUntilMs: NOW },
          }
        : c,
    );
    // Act
    const plan = scheduleClub({ plan: 'basic', quotaUsed: 0, nowMs: NOW, cursors: visits });
    // Assess: visits due with the others, and the lane goes on; without the mark, visits wait.
    expect(plan.due).toContain('visits');
    expect(plan.fastLane.on).toBe(true);
    const unpaid = visits.map((c) =>
      c.source === 'visits' ? { ...c, stats: { lastPages: 1, lastRecords: 2, lastEvents: 0 } } : c,
    );
    expect(scheduleClub({ plan: 'basic', quotaUsed: 0, nowMs: NOW, cursors: unpaid }).due).not.toContain(
      'visits',
    );
  });

  it('probes as often as the visits of the last hour are worth: 15 s at the peak, 20 s, then 30 s', () => {
    // The last whole tail counted `rows` visits from an hour before it, 4 minutes ago.
    const counted = (rows: number) =>
      cursors(MINUTE_MS, {
        stats: {
          lastPages: 1,
          lastRecords: rows,
          lastEvents: 0,
          probeFromMs: NOW - HOUR_MS - 4 * MINUTE_MS,
          probeRows: rows,
          probeFullAtMs: NOW - 4 * MINUTE_MS,
        },
      });
    const at = (rows: number) => lane({ cursors: counted(rows) });
    expect(at(Math.ceil(PEAK_VISITS_PER_HOUR * 1.1))).toMatchObject({ periodMs: 15_000, probes: 3 });
    expect(at(Math.floor(PEAK_VISITS_PER_HOUR * 1.0))).toMatchObject({ periodMs: 20_000, probes: 2 });
    expect(at(QUIET_VISITS_PER_HOUR * 2)).toMatchObject({ periodMs: 20_000, visitsPerHour: 38 });
    expect(at(QUIET_VISITS_PER_HOUR - 5)).toMatchObject({ periodMs: 30_000, probes: 1 });
    expect(describeFastLane(at(40))).toBe(
      'on: visits probed every 20 s (a visit in the last 20 minutes, about 38 visits an hour)',
    );
    // The slower of the two periods wins: the quota's pace slows a peak club, never speeds a quiet one.
    let used = 0;
    while (lane({ cursors: counted(1_000), quotaUsed: used }).periodMs === 15_000) used += 100;
    expect(lane({ cursors: counted(1_000), quotaUsed: used }).periodMs).toBe(20_000);
    expect(lane({ cursors: counted(QUIET_VISITS_PER_HOUR - 5), quotaUsed: used }).periodMs).toBe(30_000);
    expect(lane({ cursors: counted(1_000), quotaUsed: 899_000 }).on).toBe(false);
  });

  it("counts one request a probe, the minute poll's own slot left out, whatever the probes find", () => {
    expect(laneRequestsPerHour(15_000)).toBe(180);
    expect(laneRequestsPerHour(20_000)).toBeCloseTo(120, 9);
    expect(laneRequestsPerHour(30_000)).toBe(60);
  });
});

describe('opening hours', () => {
  it('reads HH:MM-HH:MM, past midnight too, and refuses what is not a range', () => {
    const day = parseOpeningHours('05:30-22:00');
    expect(day).toEqual({ openMinute: 330, closeMinute: 1320 });
    const zone = 'UTC';
    expect(isOpenAt(day, zone, Date.parse('2026-06-10T05:29:00Z'))).toBe(false);
    expect(isOpenAt(day, zone, Date.parse('2026-06-10T05:30:00Z'))).toBe(true);
    expect(isOpenAt(day, zone, Date.parse('2026-06-10T22:00:00Z'))).toBe(false);
    const night = parseOpeningHours('18:00-02:00');
    expect(isOpenAt(night, zone, Date.parse('2026-06-10T01:00:00Z'))).toBe(true);
    expect(isOpenAt(night, zone, Date.parse('2026-06-10T12:00:00Z'))).toBe(false);
    expect(parseOpeningHours('00:00-24:00')).toEqual({ openMinute: 0, closeMinute: 1440 });
    for (const bad of ['5:30-22:00', '05:30', '05:30-25:00', '08:00-08:00', '05:60-06:00', '24:00-05:00'])
      expect(() => parseOpeningHours(bad), bad).toThrow(/opening hours/);
  });
});
