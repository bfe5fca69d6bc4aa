/**
 * What a source's next poll is expected to cost, in requests (pages), from what its cursor says
 * about its last query: the records it read over the span it covered give the source's activity,
 * and the activity over the next query's window gives the pages.
 */

import { HOUR_MS } from '../../common/time-units';
import { SOURCES } from '../../sources';
import type { SourceDefinition } from '../../sources/source';
import type { Cursor, SourceName } from '../../state/store';
import { lastSweepWindowMs, lastWholeSweepMs } from '../cursor/cursor-life';
import { SOURCE_CADENCE, type SourceCadence } from './cadence';

/** Records per page the engine asks for (the API maximum). */
export const PAGE_SIZE = 500;
/** Pages assumed for a source's first (baseline) poll, whose size nothing tells in advance. */
export const FIRST_POLL_COST_ESTIMATE = 20;

export const lastPollMs = (cursor: Cursor | undefined): number | undefined => {
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
 * before (taken as the source's interval: an underestimate of the span, so an overestimate of the
 * activity, which errs towards polling sooner); a sweep covers its window. Undefined when nothing
 * is known yet (never polled, or only a state source's full baseline).
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
    spanMs = Math.max(definition.tailLookbackMs, lastSweepWindowMs(cursor, definition.sweep));
  } else {
    spanMs = definition.tailLookbackMs + cadence.intervalMs;
  }
  return records / (spanMs / HOUR_MS);
}

/** Requests (pages) one query over `records` records costs: full pages plus the short last one. */
export function pagesFor(records: number, pageSize: number = PAGE_SIZE): number {
  return Math.floor(Math.max(0, records) / pageSize) + 1;
}

/** Pages of one query over `windowMs` at `activityPerHour` records an hour. */
export function pagesOverWindow(activityPerHour: number, windowMs: number): number {
  return pagesFor(Math.ceil((activityPerHour * windowMs) / HOUR_MS));
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
  const lastSweep = sweep ? lastWholeSweepMs(cursor, sweep) : undefined;
  const sweepDue =
    sweep !== undefined &&
    (lastSweep === undefined || (lastPollMs(cursor) ?? 0) + intervalMs - lastSweep >= sweep.everyMs);
  const windowMs = sweepDue ? sweep.windowMs + intervalMs : definition.tailLookbackMs + intervalMs;
  return pagesOverWindow(activity, windowMs);
}

/** Sweep intervals (ms) shorter than the sources' own periods, for the sources the budget pays for. */
export type SweepIntervals = Partial<Record<SourceName, number>>;

/** A source as the quota rule sees it. */
export interface StretchableSource {
  readonly source: SourceName;
  readonly cursor: Cursor | undefined;
  readonly activity: number | undefined;
  /** Interval before the quota stretch (the cadence, or the failure back-off if longer). */
  readonly baseIntervalMs: number;
}

/**
 * Pages an hour one source costs, polled every `intervalMs`, its sweeps included: the whole window
 * at the source's own period, or on every poll once the interval reaches it. `paidEveryMs`, the
 * budget's sweep period (sweep-budget.ts): a paid sweep reads the source's paid window, the whole
 * window's sweeps keeping their period on top; without a paid window it is a whole sweep.
 */
function sourcePagesPerHour(
  definition: Pick<SourceDefinition, 'tailLookbackMs' | 'sweep'>,
  activity: number,
  intervalMs: number,
  paidEveryMs: number | undefined,
): number {
  const perHour = (windowMs: number, everyMs: number) =>
    (pagesOverWindow(activity, windowMs + everyMs) * HOUR_MS) / everyMs;
  const tail = definition.tailLookbackMs;
  const sweep = definition.sweep;
  if (!sweep) return perHour(tail, intervalMs);
  if (intervalMs >= sweep.everyMs) return perHour(sweep.windowMs, intervalMs);
  const paid = paidEveryMs !== undefined && paidEveryMs < sweep.everyMs ? paidEveryMs : undefined;
  if (paid === undefined) return perHour(tail, intervalMs) + perHour(sweep.windowMs, sweep.everyMs);
  const paidWindow = sweep.paidWindowMs ?? sweep.windowMs;
  const polls =
    intervalMs >= paid
      ? perHour(paidWindow, intervalMs)
      : perHour(tail, intervalMs) + perHour(paidWindow, paid);
  return sweep.paidWindowMs === undefined ? polls : polls + perHour(sweep.windowMs, sweep.everyMs);
}

/**
 * Requests per hour the sources cost at their intervals times `stretch`. Sweeps are included: a
 * source with a sweep pays the sweep every `everyMs` (or on every poll, once the stretched interval
 * exceeds that).
 */
export function demandPerHour(
  states: readonly StretchableSource[],
  stretch: number,
  sweeps: SweepIntervals = {},
): number {
  let total = 0;
  for (const s of states) {
    const interval = s.baseIntervalMs * stretch;
    const activity = s.activity;
    if (activity === undefined) {
      total += (Math.max(1, s.cursor?.stats?.lastPages ?? 1) * HOUR_MS) / interval;
      continue;
    }
    total += sourcePagesPerHour(SOURCES[s.source], activity, interval, sweeps[s.source]);
  }
  return total;
}
