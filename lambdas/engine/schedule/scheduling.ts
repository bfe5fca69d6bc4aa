/**
 * Quota-aware scheduling (docs/operations.md, "Scheduling"): when is each source of a club due again?
 *
 * Pure functions of what the table already holds (the club's cursors and this month's request
 * counter), so the dispatcher can decide every minute without writing anything, and a test can
 * simulate a whole month in milliseconds. The rules, in order:
 *
 * 1. **Pause and back-off** (failure-policy.ts). A club paused until later (`health.pausedUntil` on
 *    any cursor, after a 401 or a 429; the pause that ends last counts) is not due at all. A source
 *    whose last polls failed waits its interval × 2^failures, capped at 30 minutes. A source whose
 *    endpoint is missing for the club (`health.unavailable`) is not due before its `retryAt`, and
 *    costs nothing in the quota rule meanwhile.
 * 2. **Cadence** (schedule/cadence.ts). Each source has a fixed interval.
 * 3. **Quota** (schedule/quota-budget.ts, schedule/quota-stretch.ts). The club may spend
 *    `budget = quota * (1 - reserve)` requests a month (reserve 10% by default). If the sources at
 *    their intervals would cost more than what is left spread over the rest of the month (each poll
 *    costs its pages, schedule/cost-estimate.ts), every interval is stretched by the same factor.
 * 3b. **Sweeps paid by the unused quota** (schedule/sweep-budget.ts). A club below
 *    SWEEP_TARGET_SHARE of its plan sweeps its busiest sources more often (late changes found
 *    sooner); the stretch counts those sweeps.
 * 4. **Hard cap.** Sources that are due are taken in priority order while their estimated costs fit
 *    in what is left of the budget; the rest wait. A club whose budget is spent is not polled again
 *    until the next month's counter starts.
 * 5. **The fast lane** (schedule/fast-lane.ts). While the club is active and the quota allows it,
 *    its visits are probed every 15 s (or 20, 30) between the minute's polls.
 */

import type { Plan } from '../../common/plans';
import { enabledSources } from '../../sources';
import type { Cursor, SourceName } from '../../state/store';
import { activePause, failureBackoffMs } from '../club-poll/failure-policy';
import { SOURCE_CADENCE, type SourceCadence } from './cadence';
import {
  estimateActivityPerHour,
  estimatePollCost,
  lastPollMs,
  type StretchableSource,
  type SweepIntervals,
} from './cost-estimate';
import { type FastLane, type FastLaneSetting, fastLaneFor, probesPaidUntil } from './fast-lane';
import { type QuotaBudget, quotaBudget } from './quota-budget';
import { quotaStretch } from './quota-stretch';
import { sweepIntervals } from './sweep-budget';

/** A source due within this much of the dispatch time is taken now (half the dispatch period). */
export const DEFAULT_DUE_TOLERANCE_MS = 30_000;

export type DueReason =
  /** Never polled: the silent baseline (or an explicit backfill) is next. */
  | 'first-poll'
  /** A scan did not finish in its invocation and resumes. */
  | 'resume-scan'
  /** An explicit backfill is pending. */
  | 'backfill'
  /** Its interval has passed. */
  | 'interval-elapsed'
  /** Not yet: `dueAtMs` says when. */
  | 'waiting'
  /** The club is paused after a 401 or 429 until `dueAtMs`. */
  | 'paused'
  /** The source's endpoint is missing for the club: tried again at `dueAtMs` (its retryAt). */
  | 'unavailable'
  /** Due, but what is left of this month's budget does not cover it. */
  | 'quota-exhausted';

export interface SourceSchedule {
  readonly source: SourceName;
  readonly due: boolean;
  readonly reason: DueReason;
  /** When it is (or was) due; for 'quota-exhausted', the start of next month. */
  readonly dueAtMs: number;
  /** The interval in force (back-off and quota stretch applied). */
  readonly intervalMs: number;
  /** Estimated requests of its next poll. */
  readonly cost: number;
  readonly activityPerHour?: number;
}

export interface ClubSchedule {
  readonly budget: QuotaBudget;
  /** Set when a cursor of the club is paused (epoch ms). */
  readonly pausedUntilMs?: number;
  /** Factor (>= 1) applied to every interval so the club fits in its budget. */
  readonly stretch: number;
  /** Sweep periods shorter than the sources' own, paid by the unused quota (schedule/sweep-budget.ts). */
  readonly sweeps: SweepIntervals;
  readonly sources: readonly SourceSchedule[];
  /** The sources to poll now, in poll order. */
  readonly due: readonly SourceName[];
  /** Estimated requests of polling `due` now. */
  readonly dueCost: number;
  /** The visits fast lane for the coming minute (schedule/fast-lane.ts). */
  readonly fastLane: FastLane;
}

export interface ScheduleClubInput {
  readonly plan: Plan;
  /** The club's enabled sources. @default DEFAULT_SOURCES (every non-experimental source) */
  readonly sources?: readonly SourceName[];
  /** The club's stored cursors (any order; missing ones mean never polled). */
  readonly cursors: readonly Cursor[];
  /** Requests counted for the club this month. */
  readonly quotaUsed: number;
  readonly nowMs: number;
  /** Share of the quota kept free. @default DEFAULT_QUOTA_RESERVE */
  readonly reserve?: number;
  /** @default DEFAULT_DUE_TOLERANCE_MS */
  readonly toleranceMs?: number;
  /** Per-source overrides of SOURCE_CADENCE. */
  readonly cadence?: Partial<Record<SourceName, SourceCadence>>;
  /** The club's fast lane setting. @default on, no opening hours */
  readonly fastLane?: FastLaneSetting;
  /** The club's IANA zone (its opening hours are local). */
  readonly timeZone?: string;
}

interface SourceState extends StretchableSource {
  readonly cadence: SourceCadence;
  /** retryAt of an unavailable mark still in the future. */
  readonly unavailableUntilMs: number | undefined;
}

function sourceState(input: ScheduleClubInput, source: SourceName, cursor: Cursor | undefined): SourceState {
  const cadence = input.cadence?.[source] ?? SOURCE_CADENCE[source];
  const activity = estimateActivityPerHour(source, cursor, cadence);
  const baseIntervalMs = Math.max(
    cadence.intervalMs,
    failureBackoffMs(cadence, cursor?.health.consecutiveFailures ?? 0),
  );
  const retryAt = cursor?.health.unavailable ? Date.parse(cursor.health.unavailable.retryAt) : Number.NaN;
  const unavailableUntilMs = retryAt > input.nowMs ? retryAt : undefined;
  return { source, cursor, cadence, activity, baseIntervalMs, unavailableUntilMs };
}

/** When the source is next due by its own state (before pause, budget and tolerance), and why. */
function nextDue(s: SourceState, intervalMs: number, nowMs: number): { reason: DueReason; dueAtMs: number } {
  const last = lastPollMs(s.cursor);
  if (last === undefined) return { reason: 'first-poll', dueAtMs: nowMs };
  if (s.cursor?.scan) {
    const wait = Math.max(
      s.cadence.intervalMs,
      failureBackoffMs(s.cadence, s.cursor.health.consecutiveFailures),
    );
    return { reason: 'resume-scan', dueAtMs: last + wait };
  }
  if (s.cursor?.backfillFrom) return { reason: 'backfill', dueAtMs: last + s.cadence.intervalMs };
  // A fast-lane session since the minute's poll does not move the minute: that poll paid for its
  // probes until the next one (schedule/fast-lane.ts), which is due then.
  const paidUntil = probesPaidUntil(s.cursor);
  if (paidUntil !== undefined && paidUntil > last) {
    return { reason: 'interval-elapsed', dueAtMs: Math.min(last + intervalMs, paidUntil) };
  }
  return { reason: 'interval-elapsed', dueAtMs: last + intervalMs };
}

/** Decides which sources of one club are due now, and when the others will be. */
export function scheduleClub(input: ScheduleClubInput): ClubSchedule {
  const { nowMs } = input;
  const tolerance = input.toleranceMs ?? DEFAULT_DUE_TOLERANCE_MS;
  const budget = quotaBudget(input.plan, input.quotaUsed, nowMs, input.reserve);
  const bySource = new Map(input.cursors.map((c) => [c.source, c]));
  const states = enabledSources({ sources: input.sources }).map((source) =>
    sourceState(input, source, bySource.get(source)),
  );
  const pause = activePause(input.cursors, nowMs);
  const pausedUntilMs = pause ? Date.parse(pause.until) : undefined;
  const available = states.filter((s) => s.unavailableUntilMs === undefined);
  // The sweeps the unused quota pays for, as the engine's scan plan will run them (sweep-budget.ts).
  const sweeps = sweepIntervals({
    plan: input.plan,
    sources: available.map((s) => s.source),
    cursors: input.cursors,
    quotaUsed: input.quotaUsed,
    nowMs,
  });
  const stretch = quotaStretch(available, budget, sweeps);
  let left = budget.remaining;
  let dueCost = 0;
  const due: SourceName[] = [];
  const sources = states.map((s): SourceSchedule => {
    const intervalMs = s.baseIntervalMs * stretch;
    const last = lastPollMs(s.cursor);
    const cost = estimatePollCost(s.source, s.cursor, Math.max(intervalMs, nowMs - (last ?? nowMs)));
    const base = {
      source: s.source,
      intervalMs,
      cost,
      ...(s.activity === undefined ? {} : { activityPerHour: s.activity }),
    };
    if (pausedUntilMs !== undefined) return { ...base, due: false, reason: 'paused', dueAtMs: pausedUntilMs };
    if (s.unavailableUntilMs !== undefined) {
      return { ...base, due: false, reason: 'unavailable', dueAtMs: s.unavailableUntilMs };
    }
    if (budget.remaining < 1)
      return { ...base, due: false, reason: 'quota-exhausted', dueAtMs: budget.monthEndMs };
    const next = nextDue(s, intervalMs, nowMs);
    // A new month brings a new counter: nothing waits past the month's end.
    const dueAtMs = Math.min(next.dueAtMs, budget.monthEndMs);
    if (dueAtMs - tolerance > nowMs) return { ...base, due: false, reason: 'waiting', dueAtMs };
    if (cost > left) return { ...base, due: false, reason: 'quota-exhausted', dueAtMs: budget.monthEndMs };
    left -= cost;
    dueCost += cost;
    due.push(s.source);
    return { ...base, due: true, reason: next.reason, dueAtMs };
  });
  const visits = states.find((s) => s.source === 'visits');
  const fastLane = fastLaneFor({
    ...(input.fastLane ? { setting: input.fastLane } : {}),
    ...(input.timeZone ? { timeZone: input.timeZone } : {}),
    plan: input.plan,
    visitsEnabled: visits !== undefined,
    visits: visits?.cursor,
    visitsDue: due.includes('visits'),
    stretch,
    budget,
    nowMs,
  });
  return {
    budget,
    ...(pausedUntilMs === undefined ? {} : { pausedUntilMs }),
    stretch,
    sweeps,
    sources,
    due,
    dueCost,
    fastLane,
  };
}

/** The fast lane a club has now, as the dispatcher decides it (for `status` and `explain`). */
export function clubFastLane(
  club: {
    readonly plan: Plan;
    readonly sources?: readonly SourceName[];
    readonly fastLane?: FastLaneSetting;
    readonly timeZone: string;
  },
  cursors: readonly Cursor[],
  quotaUsed: number,
  nowMs: number,
): FastLane {
  return scheduleClub({
    plan: club.plan,
    ...(club.sources ? { sources: club.sources } : {}),
    ...(club.fastLane ? { fastLane: club.fastLane } : {}),
    timeZone: club.timeZone,
    cursors,
    quotaUsed,
    nowMs,
  }).fastLane;
}
