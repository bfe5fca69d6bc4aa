/**
 * The quota rule: when the sources at their intervals would cost more than the club can afford
 * (what is left of its budget spread over the rest of the month), every interval is stretched by
 * the same factor, the smallest that fits. A club that has used more than the elapsed share of its
 * month is therefore slowed down, and one that has used less is not.
 */

import { demandPerHour, type StretchableSource, type SweepIntervals } from './cost-estimate';
import type { QuotaBudget } from './quota-budget';

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
