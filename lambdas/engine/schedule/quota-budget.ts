/**
 * The club's position against its monthly request budget: the plan's quota minus a reserve kept
 * free, what is used and left, and the rate that spends what is left by the end of the month.
 * Months are calendar months in UTC, as the quota counters (`QUOTA#yyyy-mm`) are.
 */

import { DEFAULT_QUOTA_RESERVE, PLAN_QUOTAS, type Plan } from '../../common/plans';
import { HOUR_MS } from '../../common/time-units';

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
  const hoursLeft = Math.max((endMs - nowMs) / HOUR_MS, 1 / 60);
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
