/**
 * The quota rule: when the sources at their intervals would cost more than the club can afford
 * (what is left of its budget spread over the rest of the month), every interval is stretched by
 * the same factor, the smallest that fits. A club that has used more than the elapsed share of its
 * month is therefore slowed down, and one that has used less is not.
 */

import { SOURCES } from '../../sources';
import type { Cursor, SourceName } from '../../state/store';
import { pagesOverWindow } from './cost-estimate';
import type { QuotaBudget } from './quota-budget';
import type { SweepIntervals } from './sweep-budget';

const HOUR = 3_600_000;

/** A source as the quota rule sees it. */
export interface StretchableSource {
  readonly source: SourceName;
  readonly cursor: Cursor | undefined;
  readonly activity: number | undefined;
  /** Interval before the quota stretch (the cadence, or the failure back-off if longer). */
  readonly baseIntervalMs: number;
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
      total += (Math.max(1, s.cursor?.stats?.lastPages ?? 1) * HOUR) / interval;
      continue;
    }
    const definition = SOURCES[s.source];
    const perPoll = (windowMs: number) => pagesOverWindow(activity, windowMs);
    const sweep = definition.sweep;
    const everyMs = Math.min(
      sweep?.everyMs ?? Number.POSITIVE_INFINITY,
      sweeps[s.source] ?? Number.POSITIVE_INFINITY,
    );
    if (sweep && interval >= everyMs) {
      total += (perPoll(sweep.windowMs + interval) * HOUR) / interval;
    } else {
      total += (perPoll(definition.tailLookbackMs + interval) * HOUR) / interval;
      if (sweep) total += (perPoll(sweep.windowMs + everyMs) * HOUR) / everyMs;
    }
  }
  return total;
}

/**
 * The smallest factor (>= 1) by which every interval must grow so the sources cost at most
 * `affordablePerHour`. Demand falls as intervals grow, so a bisection finds it.
 */
export function quotaStretch(
  states: readonly StretchableSource[],
  budget: QuotaBudget,
  sweeps: SweepIntervals = {},
): number {
  if (states.length === 0) return 1;
  const affordable = budget.affordablePerHour;
  if (demandPerHour(states, 1, sweeps) <= affordable) return 1;
  const monthMs = budget.monthEndMs - budget.monthStartMs;
  const shortest = Math.min(...states.map((s) => s.baseIntervalMs));
  let high = Math.max(2, monthMs / shortest);
  if (demandPerHour(states, high, sweeps) > affordable) return high; // only the hard cap can help now
  let low = 1;
  for (let i = 0; i < 50 && high / low > 1.001; i++) {
    const mid = Math.sqrt(low * high);
    if (demandPerHour(states, mid, sweeps) > affordable) low = mid;
    else high = mid;
  }
  return high;
}
