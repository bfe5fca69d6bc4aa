/**
 * The fast lane (docs/operations.md, "The fast lane for visits"): while a club is active, its visits
 * are probed every 15 to 30 seconds between the minute's polls, so a check-in at the door reaches the bus
 * in seconds. Decided per club by the dispatcher every minute, from what it already reads (the
 * club's setting, its visits cursor, its quota counter and the minute's schedule); pure.
 *
 * On when all of these hold:
 * - the club's setting is on (`fastLane.enabled`, the default) and visits are among its sources;
 * - the visits source is in steady state: baseline done, no scan to resume or backfill pending, not
 *   paused, not unavailable, not backing off after failures, and due in this minute's poll;
 * - the club is active: inside its opening hours (`fastLane.openingHours`, club local time, when
 *   set) or a visit was seen in the last RECENT_VISITS_MS;
 * - the quota allows it: no stretch of the minute's schedule (the lane never costs the other sources
 *   anything), and the month's counter is under the pace that ends the month at
 *   FAST_LANE_QUOTA_SHARE of the plan (`lanePeriod`): the lane slows down (15, 20, 30 s) as the
 *   counter nears that line, and switches off past it.
 *
 * Its period follows the visits too (`activityPeriod`): every 15 s only while the last hour brought
 * PEAK_VISITS_PER_HOUR, every 20 s under it, every 30 s under QUIET_VISITS_PER_HOUR. A probe costs
 * the same whatever the rate, and the wait it saves is worth as many visits as come: the probes
 * go where the visits are (docs/operations.md has the figures).
 *
 * What a probe costs and why nothing is lost across the switches: engine/club-poll/fast-lane-probe.ts.
 */

import { isOpenAt, parseOpeningHours } from '../../common/opening-hours';
import type { Plan } from '../../common/plans';
import { PLAN_QUOTAS } from '../../common/plans';
import { HOUR_MS, MINUTE_MS } from '../../common/time-units';
import type { Cursor } from '../../state/store';
import { probesRefused, tailCountOf } from '../scan/tail-probe';
import type { QuotaBudget } from './quota-budget';

/** Probe periods the lane may run at, fastest first: each divides the minute. */
export const FAST_LANE_PERIODS_MS = [15_000, 20_000, 30_000] as const;
/** The lane runs only while the month's projected requests stay within this share of the plan's quota. */
export const FAST_LANE_QUOTA_SHARE = 0.5;
/** A club with a visit this recent is active, opening hours or not. */
export const RECENT_VISITS_MS = 20 * MINUTE_MS;
/** Hours of the lane at its fastest the pace line starts the month with (and may be exceeded by). */
export const PACE_SLACK_HOURS = 2;
/** The minute the dispatcher plans probes for (its schedule rate). */
export const FAST_LANE_WINDOW_MS = MINUTE_MS;
/** Visits an hour from which the lane probes every 15 s (below: 20 s). */
export const PEAK_VISITS_PER_HOUR = 100;
/** Visits an hour below which the lane probes every 30 s. */
export const QUIET_VISITS_PER_HOUR = 20;

/** The club's setting (clubs file / registry record: `fastLane`). */
export interface FastLaneSetting {
  /** @default true */
  readonly enabled?: boolean;
  /** `HH:MM-HH:MM` in the club's local time (a close earlier than the open runs past midnight). */
  readonly openingHours?: string;
}

export type FastLaneReason =
  /** On: inside the opening hours. */
  | 'opening-hours'
  /** On: a visit was seen recently. */
  | 'recent-visits'
  /** Off by the club's setting, or visits are not among its sources. */
  | 'off-by-setting'
  /**
   * Off: the visits source is not in steady state (first poll, scan to resume, backfill, failing),
   * or the API refused a probe (a 400 to an offset past the end).
   */
  | 'not-steady'
  /** Off: the club is paused, or visits unavailable, or not due in this minute's poll. */
  | 'not-polled'
  /** Off: outside the opening hours and no recent visit. */
  | 'quiet'
  /** Off: the quota does not allow it (stretched schedule, or past the lane's share). */
  | 'quota';

export interface FastLane {
  readonly on: boolean;
  readonly reason: FastLaneReason;
  /** The probe period while on. */
  readonly periodMs?: number;
  /** Visits an hour the period was chosen by (the last whole tail's count), when known. */
  readonly visitsPerHour?: number;
  /** Probes queued behind the minute's poll while on (60 s / period - 1), else 0. */
  readonly probes: number;
}

export interface FastLaneInput {
  readonly setting?: FastLaneSetting;
  readonly plan: Plan;
  readonly timeZone?: string;
  /** Whether visits are among the club's enabled sources. */
  readonly visitsEnabled: boolean;
  readonly visits: Cursor | undefined;
  /** The minute's decision for visits: due now, and whether its schedule was stretched. */
  readonly visitsDue: boolean;
  readonly stretch: number;
  readonly budget: QuotaBudget;
  readonly nowMs: number;
}

/** Whether the club's local time is inside its opening hours (undefined: none set). */
export function insideOpeningHours(
  setting: FastLaneSetting | undefined,
  timeZone: string | undefined,
  nowMs: number,
): boolean | undefined {
  if (!setting?.openingHours || !timeZone) return undefined;
  return isOpenAt(parseOpeningHours(setting.openingHours), timeZone, nowMs);
}

/**
 * Requests an hour the lane adds at `periodMs`: one a probe, whatever it finds (its answer brings
 * the rows past the count, and the session it opens asks nothing more: scan/lane-page.ts).
 */
export function laneRequestsPerHour(periodMs: number): number {
  return (HOUR_MS / periodMs) * (1 - periodMs / FAST_LANE_WINDOW_MS);
}

const off = (reason: FastLaneReason): FastLane => ({ on: false, reason, probes: 0 });

/** Where the minute's poll marks its probes paid (a number in the visits cursor's `stats`). */
const PAID_UNTIL = 'fastLanePaidUntilMs';

/** Until when (epoch ms) the minute's poll paid for probes of this cursor's club, if it did. */
export function probesPaidUntil(cursor: Cursor | undefined): number | undefined {
  return cursor?.stats?.[PAID_UNTIL];
}

/** The visits cursor marked paid for probes until `untilMs` (written with the minute's poll). */
export function withProbesPaid(cursor: Cursor, untilMs: number): Cursor {
  return { ...cursor, stats: { ...cursor.stats, [PAID_UNTIL]: untilMs } };
}

/** Whether the visits cursor is in the steady state a probe needs. */
export function steadyForProbes(visits: Cursor | undefined): boolean {
  if (!visits?.baselineDone || !visits.watermark) return false;
  if (visits.scan || visits.backfillFrom || visits.backfillScan) return false;
  if (probesRefused(visits)) return false;
  return visits.health.consecutiveFailures === 0 && !visits.health.unavailable && !visits.health.pausedUntil;
}

/** The club's fast lane for the coming minute. */
export function fastLaneFor(input: FastLaneInput): FastLane {
  if (input.setting?.enabled === false || !input.visitsEnabled) return off('off-by-setting');
  const visits = input.visits;
  if (!steadyForProbes(visits)) return off('not-steady');
  const lastVisitMs = Date.parse(visits!.watermark!);
  const recent = input.nowMs - lastVisitMs <= RECENT_VISITS_MS;
  const open = insideOpeningHours(input.setting, input.timeZone, input.nowMs);
  if (!recent && !open) return off('quiet');
  const reason: FastLaneReason = open ? 'opening-hours' : 'recent-visits';
  if (input.stretch > 1) return off('quota');
  const quotaPeriodMs = lanePeriod(input);
  if (quotaPeriodMs === undefined) return off('quota');
  // The probes ride behind this minute's poll of visits, which pays for them.
  if (!input.visitsDue) return off('not-polled');
  const rate = recentVisitsPerHour(visits!, input.nowMs);
  const periodMs = Math.max(quotaPeriodMs, activityPeriod(rate));
  return {
    on: true,
    reason,
    periodMs,
    probes: Math.round(FAST_LANE_WINDOW_MS / periodMs) - 1,
    ...(rate === undefined ? {} : { visitsPerHour: Math.round(rate) }),
  };
}

/**
 * Visits an hour lately: the rows the last whole tail counted (and the probes' pages moved the count
 * past) over the time since that tail's start, about the tail's hour of lookback. Undefined before a
 * whole tail was counted.
 */
export function recentVisitsPerHour(visits: Cursor, nowMs: number): number | undefined {
  const count = tailCountOf(visits);
  if (!count) return undefined;
  return count.rows / (Math.max(nowMs - count.fromMs, HOUR_MS / 4) / HOUR_MS);
}

/** The probe period the visit rate is worth: the fastest when unknown. */
export function activityPeriod(visitsPerHour: number | undefined): number {
  if (visitsPerHour === undefined || visitsPerHour >= PEAK_VISITS_PER_HOUR) return FAST_LANE_PERIODS_MS[0];
  return visitsPerHour >= QUIET_VISITS_PER_HOUR ? FAST_LANE_PERIODS_MS[1] : FAST_LANE_PERIODS_MS[2];
}

/**
 * The lane's period from the club's pace: the month's counter against a line that rises from a
 * slack at the month's start to FAST_LANE_QUOTA_SHARE of the plan at its end. Well under the line,
 * every 15 s; nearer, 20 then 30 s; over it, off. The lane runs only while the club is active, so a
 * club under the line stays there; one whose lane would take it over slows down, and never runs
 * past the line by more than the slack. Under the line the sweeps' target (sweep-budget.ts, the same
 * share) stays whole: the lane never takes what the other sources' sweeps would spend.
 */
export function lanePeriod(input: Pick<FastLaneInput, 'plan' | 'budget'>): number | undefined {
  const { budget } = input;
  const ceiling = Math.min(budget.budget, PLAN_QUOTAS[input.plan] * FAST_LANE_QUOTA_SHARE);
  const hourAtFastest = laneRequestsPerHour(FAST_LANE_PERIODS_MS[0]);
  const line = ceiling * Math.min(1, budget.elapsedShare) + PACE_SLACK_HOURS * hourAtFastest;
  const headroom = line - budget.used;
  if (headroom < 0) return undefined;
  const band = Math.floor(headroom / hourAtFastest);
  return band >= 2 ? FAST_LANE_PERIODS_MS[0] : band >= 1 ? FAST_LANE_PERIODS_MS[1] : FAST_LANE_PERIODS_MS[2];
}

const REASON_WORDS: Readonly<Record<FastLaneReason, string>> = {
  'opening-hours': 'inside its opening hours',
  'recent-visits': `a visit in the last ${RECENT_VISITS_MS / MINUTE_MS} minutes`,
  'off-by-setting': 'off by the club setting (fastLane.enabled), or visits not polled',
  'not-steady':
    'visits not in steady state (first poll, a scan to resume, a backfill, failures, or probes refused)',
  'not-polled': 'visits not polled this minute (paused, unavailable or quota)',
  quiet: `quiet: no visit in the last ${RECENT_VISITS_MS / MINUTE_MS} minutes and outside the opening hours`,
  quota: `the quota: the lane would take the month past ${FAST_LANE_QUOTA_SHARE * 100}% of the plan, or the schedule is stretched`,
};

/** The lane in words, as `status` and `explain` print it. */
export function describeFastLane(lane: FastLane): string {
  const rate = lane.visitsPerHour === undefined ? '' : `, about ${lane.visitsPerHour} visits an hour`;
  return lane.on
    ? `on: visits probed every ${(lane.periodMs ?? 0) / 1000} s (${REASON_WORDS[lane.reason]}${rate})`
    : `off, visits every minute (${REASON_WORDS[lane.reason]})`;
}
