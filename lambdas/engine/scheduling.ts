/**
 * Quota-aware scheduling (docs/operations.md, "Scheduling"): when is each source of a club due again?
 *
 * Pure functions of what the table already holds (the club's cursors and this month's request
 * counter), so the dispatcher can decide every minute without writing anything, and a test can
 * simulate a whole month in milliseconds. The rules, in order:
 *
 * 1. **Back-off.** A club with a cursor paused until later (`health.pausedUntil`, set after a 401 or
 *    a 429) is not due at all. A source whose last polls failed waits `min × 2^failures`, capped at
 *    30 minutes (or its maximum interval, if longer). A source whose endpoint is missing for the
 *    club (`health.unavailable`, engine/poll-club.ts) is not due before its `retryAt`, and costs
 *    nothing in the quota rule meanwhile.
 * 2. **Activity.** Each source has a cadence `[min, max]` (1 min .. 60 min). Its recent activity, in
 *    records per hour seen by its last query (see `estimateActivityPerHour`), places it in that
 *    range: `interval = min + (max - min) * h / (h + activity)`, where `h` (the half-activity) is
 *    the rate at which the interval is half way. A quiet source drifts to its maximum, a busy one to
 *    its minimum. Members, visits and payment history have the shortest cadences.
 * 3. **Quota.** The club may spend `budget = quota * (1 - reserve)` requests a month (plan quota
 *    from `PLAN_QUOTAS`, reserve 10% by default). What is left (`budget - used`), spread over the
 *    time left in the month, is the rate the club can afford. If the sources at their activity
 *    intervals would cost more than that (each poll costs its pages, estimated from the activity
 *    and the query window, at least 1), every interval is stretched by the same factor, the
 *    smallest that fits. A club that has used more than the elapsed share of its month is
 *    therefore slowed down, and one that has used less is not.
 * 4. **Hard cap.** Sources that are due are taken in priority order while their estimated costs fit
 *    in what is left of the budget; the rest wait. A club whose budget is spent is not polled again
 *    until the next month's counter starts.
 *
 * Months are calendar months in UTC, as the quota counters (`QUOTA#yyyy-mm`) are.
 */

import { PLAN_QUOTAS, type Plan } from '../common/plans';
import { enabledSources, SOURCES } from '../sources';
import type { Cursor, SourceName } from '../state/store';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Share of each plan's monthly quota kept free by default. */
export const DEFAULT_QUOTA_RESERVE = 0.1;
/** Records per page the engine asks for (the API maximum). */
export const PAGE_SIZE = 500;
/** Pages assumed for a source's first (baseline) poll, whose size nothing tells in advance. */
export const FIRST_POLL_COST_ESTIMATE = 20;
/** A source due within this much of the dispatch time is taken now (half the dispatch period). */
export const DEFAULT_DUE_TOLERANCE_MS = 30_000;

/** How often a source may be polled, and how its activity maps into that range. */
export interface SourceCadence {
  /** Shortest interval, for a busy source. */
  readonly minIntervalMs: number;
  /** Longest interval, for a quiet source (before any quota stretch). */
  readonly maxIntervalMs: number;
  /** Records per hour at which the interval is half way between min and max. */
  readonly halfActivityPerHour: number;
}

/**
 * Cadence per source. Freshness first: every source of a typical club polled every minute uses about
 * a third of the Basic quota (docs/benchmarks.md), well inside half of it, and keeps p95 detection
 * within the 90 s target; a slower, cheaper cadence (a larger max) trades freshness for requests and
 * DynamoDB reads. The activity rule only matters when min and max differ, and the quota rule below
 * still stretches every interval when a club's budget needs it.
 */
export const SOURCE_CADENCE: Readonly<Record<SourceName, SourceCadence>> = {
  members: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 4 },
  visits: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 10 },
  paymentHistory: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 4 },
  prospects: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 2 },
  posTransactions: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 6 },
  classAttendance: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 10 },
  disbursements: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 1 },
  debtCollection: { minIntervalMs: MINUTE, maxIntervalMs: MINUTE, halfActivityPerHour: 1 },
};

/** The club's position against its monthly budget. */
export interface QuotaBudget {
  /** `yyyy-mm` (UTC). */
  readonly month: string;
  /** The plan's monthly quota. */
  readonly limit: number;
  /** What the bridge may spend: `limit * (1 - reserve)`, rounded down. */
  readonly budget: number;
  readonly used: number;
  /** `max(0, budget - used)`. */
  readonly remaining: number;
  readonly monthStartMs: number;
  readonly monthEndMs: number;
  /** Share of the month gone (0..1). */
  readonly elapsedShare: number;
  /** `used / budget` (can exceed 1 if the counter went past the budget). */
  readonly usedShare: number;
  /** Requests per hour that spend exactly what is left by the end of the month. */
  readonly affordablePerHour: number;
}

export function monthBounds(nowMs: number): { month: string; startMs: number; endMs: number } {
  const d = new Date(nowMs);
  const startMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const endMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { month: d.toISOString().slice(0, 7), startMs, endMs };
}

export function quotaBudget(
  plan: Plan,
  used: number,
  nowMs: number,
  reserve: number = DEFAULT_QUOTA_RESERVE,
): QuotaBudget {
  if (!(reserve >= 0 && reserve < 1)) throw new RangeError(`quota reserve must be in [0, 1), got ${reserve}`);
  const limit = PLAN_QUOTAS[plan];
  const budget = Math.floor(limit * (1 - reserve));
  const { month, startMs, endMs } = monthBounds(nowMs);
  const remaining = Math.max(0, budget - used);
  const hoursLeft = Math.max((endMs - nowMs) / HOUR, 1 / 60);
  return {
    month,
    limit,
    budget,
    used,
    remaining,
    monthStartMs: startMs,
    monthEndMs: endMs,
    elapsedShare: (nowMs - startMs) / (endMs - startMs),
    usedShare: budget > 0 ? used / budget : 1,
    affordablePerHour: remaining / hoursLeft,
  };
}

const lastPollMs = (cursor: Cursor | undefined): number | undefined => {
  const at = cursor?.health.lastPollAt;
  return at ? Date.parse(at) : undefined;
};

/** True when the cursor's last completed poll was a sweep or a baseline (a deep, wide read). */
function lastPollWasDeep(cursor: Cursor): boolean {
  const at = lastPollMs(cursor);
  return at !== undefined && cursor.stats?.lastSweepAtMs === at;
}

/**
 * Records per hour the source produced recently: the records its last query returned, divided by
 * the span that query covered. A tail query covers `tailLookback` plus the time since the poll
 * before (taken as the source's minimum interval: an underestimate of the span, so an
 * overestimate of the activity, which errs towards polling sooner); a sweep covers its window.
 * Undefined when nothing is known yet (never polled, or only a state source's full baseline).
 */
export function estimateActivityPerHour(
  source: SourceName,
  cursor: Cursor | undefined,
  cadence: SourceCadence = SOURCE_CADENCE[source],
): number | undefined {
  const records = cursor?.stats?.lastRecords;
  if (!cursor || records === undefined || lastPollMs(cursor) === undefined) return undefined;
  const definition = SOURCES[source];
  let spanMs: number;
  if (lastPollWasDeep(cursor)) {
    if (definition.kind === 'state') return undefined; // a full read: size of the club, not activity
    spanMs = Math.max(definition.tailLookbackMs, definition.sweep?.windowMs ?? 0);
  } else {
    spanMs = definition.tailLookbackMs + cadence.minIntervalMs;
  }
  return records / (spanMs / HOUR);
}

/** Requests (pages) one query over `records` records costs: full pages plus the short last one. */
export function pagesFor(records: number, pageSize: number = PAGE_SIZE): number {
  return Math.floor(Math.max(0, records) / pageSize) + 1;
}

/**
 * Requests the next poll of the source is expected to cost if it runs after `intervalMs` since the
 * last one: its query window (lookback plus the interval, or the sweep window when a sweep will be
 * due by then) times the activity, in pages; at least 1. Without an activity estimate, the last
 * poll's page count (at least 1), or `FIRST_POLL_COST_ESTIMATE` for a first poll.
 */
export function estimatePollCost(source: SourceName, cursor: Cursor | undefined, intervalMs: number): number {
  const lastPages = cursor?.stats?.lastPages;
  if (!cursor || lastPollMs(cursor) === undefined) return FIRST_POLL_COST_ESTIMATE;
  if (cursor.scan) return Math.max(1, lastPages ?? 1);
  const activity = estimateActivityPerHour(source, cursor);
  if (activity === undefined) return Math.max(1, lastPages ?? 1);
  const definition = SOURCES[source];
  const sweep = definition.sweep;
  const lastSweep = cursor.stats?.lastSweepAtMs;
  const sweepDue =
    sweep !== undefined &&
    (lastSweep === undefined || (lastPollMs(cursor) ?? 0) + intervalMs - lastSweep >= sweep.everyMs);
  const windowMs = sweepDue ? sweep.windowMs + intervalMs : definition.tailLookbackMs + intervalMs;
  return pagesFor(Math.ceil((activity * windowMs) / HOUR));
}

/** Interval from activity alone (no back-off, no quota stretch). */
export function activityIntervalMs(cadence: SourceCadence, activityPerHour: number | undefined): number {
  const { minIntervalMs: min, maxIntervalMs: max, halfActivityPerHour: half } = cadence;
  if (activityPerHour === undefined) return (min + max) / 2;
  return min + ((max - min) * half) / (half + Math.max(0, activityPerHour));
}

/** Wait after `failures` failed polls in a row: min * 2^failures, capped at the cadence maximum. */
/** Longest wait after failures, whatever the source's cadence. */
export const MAX_FAILURE_BACKOFF_MS = 30 * MINUTE;

export function failureBackoffMs(cadence: SourceCadence, failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(
    Math.max(cadence.maxIntervalMs, MAX_FAILURE_BACKOFF_MS),
    cadence.minIntervalMs * 2 ** Math.min(failures, 30),
  );
}

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
  /** The interval in force (activity, back-off and quota stretch applied). */
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
  readonly sources: readonly SourceSchedule[];
  /** The sources to poll now, in poll order. */
  readonly due: readonly SourceName[];
  /** Estimated requests of polling `due` now. */
  readonly dueCost: number;
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
}

interface SourceState {
  readonly source: SourceName;
  readonly cursor: Cursor | undefined;
  readonly cadence: SourceCadence;
  readonly activity: number | undefined;
  /** Interval before the quota stretch. */
  readonly baseIntervalMs: number;
}

/**
 * Requests per hour the sources cost at their intervals times `stretch`. Sweeps are included: a
 * source with a sweep pays the sweep every `everyMs` (or on every poll, once the stretched interval
 * exceeds that).
 */
function demandPerHour(states: readonly SourceState[], stretch: number): number {
  let total = 0;
  for (const s of states) {
    if (s.activity === undefined) {
      total += (Math.max(1, s.cursor?.stats?.lastPages ?? 1) * HOUR) / (s.baseIntervalMs * stretch);
      continue;
    }
    const interval = s.baseIntervalMs * stretch;
    const definition = SOURCES[s.source];
    const perPoll = (windowMs: number) => pagesFor(Math.ceil((s.activity! * windowMs) / HOUR));
    const sweep = definition.sweep;
    if (sweep && interval >= sweep.everyMs) {
      total += (perPoll(sweep.windowMs + interval) * HOUR) / interval;
    } else {
      total += (perPoll(definition.tailLookbackMs + interval) * HOUR) / interval;
      if (sweep) total += (perPoll(sweep.windowMs + sweep.everyMs) * HOUR) / sweep.everyMs;
    }
  }
  return total;
}

/**
 * The smallest factor (>= 1) by which every interval must grow so the sources cost at most
 * `affordablePerHour`. Demand falls as intervals grow, so a bisection finds it.
 */
function quotaStretch(states: readonly SourceState[], budget: QuotaBudget): number {
  if (states.length === 0) return 1;
  const affordable = budget.affordablePerHour;
  if (demandPerHour(states, 1) <= affordable) return 1;
  const monthMs = budget.monthEndMs - budget.monthStartMs;
  const shortest = Math.min(...states.map((s) => s.baseIntervalMs));
  let high = Math.max(2, monthMs / shortest);
  if (demandPerHour(states, high) > affordable) return high; // only the hard cap can help now
  let low = 1;
  for (let i = 0; i < 50 && high / low > 1.001; i++) {
    const mid = Math.sqrt(low * high);
    if (demandPerHour(states, mid) > affordable) low = mid;
    else high = mid;
  }
  return high;
}

function activePauseMs(cursors: readonly Cursor[], nowMs: number): number | undefined {
  let until: number | undefined;
  for (const c of cursors) {
    const at = c.health.pausedUntil ? Date.parse(c.health.pausedUntil) : Number.NaN;
    if (at > nowMs) until = Math.max(until ?? at, at);
  }
  return until;
}

/** Decides which sources of one club are due now, and when the others will be. */
export function scheduleClub(input: ScheduleClubInput): ClubSchedule {
  const { nowMs } = input;
  const tolerance = input.toleranceMs ?? DEFAULT_DUE_TOLERANCE_MS;
  const budget = quotaBudget(input.plan, input.quotaUsed, nowMs, input.reserve);
  const order = enabledSources({ sources: input.sources });
  const bySource = new Map(input.cursors.map((c) => [c.source, c]));

  const states: SourceState[] = order.map((source) => {
    const cadence = input.cadence?.[source] ?? SOURCE_CADENCE[source];
    const cursor = bySource.get(source);
    const activity = estimateActivityPerHour(source, cursor, cadence);
    const baseIntervalMs = Math.max(
      activityIntervalMs(cadence, activity),
      failureBackoffMs(cadence, cursor?.health.consecutiveFailures ?? 0),
    );
    return { source, cursor, cadence, activity, baseIntervalMs };
  });

  const pausedUntilMs = activePauseMs(input.cursors, nowMs);
  const unavailableUntil = (s: SourceState): number | undefined => {
    const at = s.cursor?.health.unavailable ? Date.parse(s.cursor.health.unavailable.retryAt) : Number.NaN;
    return at > nowMs ? at : undefined;
  };
  const stretch = quotaStretch(
    states.filter((s) => unavailableUntil(s) === undefined),
    budget,
  );
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
    const retryAtMs = unavailableUntil(s);
    if (retryAtMs !== undefined) return { ...base, due: false, reason: 'unavailable', dueAtMs: retryAtMs };
    let reason: DueReason;
    let dueAtMs: number;
    if (last === undefined) {
      reason = 'first-poll';
      dueAtMs = nowMs;
    } else if (s.cursor?.scan) {
      reason = 'resume-scan';
      dueAtMs =
        last +
        Math.max(s.cadence.minIntervalMs, failureBackoffMs(s.cadence, s.cursor.health.consecutiveFailures));
    } else if (s.cursor?.backfillFrom) {
      reason = 'backfill';
      dueAtMs = last + s.cadence.minIntervalMs;
    } else {
      reason = 'interval-elapsed';
      dueAtMs = last + intervalMs;
    }
    if (budget.remaining < 1) {
      return { ...base, due: false, reason: 'quota-exhausted', dueAtMs: budget.monthEndMs };
    }
    // A new month brings a new counter: nothing waits past the month's end.
    dueAtMs = Math.min(dueAtMs, budget.monthEndMs);
    if (dueAtMs - tolerance > nowMs) return { ...base, due: false, reason: 'waiting', dueAtMs };
    if (cost > left) return { ...base, due: false, reason: 'quota-exhausted', dueAtMs: budget.monthEndMs };
    left -= cost;
    dueCost += cost;
    due.push(s.source);
    return { ...base, due: true, reason, dueAtMs };
  });

  return {
    budget,
    ...(pausedUntilMs === undefined ? {} : { pausedUntilMs }),
    stretch,
    sources,
    due,
    dueCost,
  };
}
