/**
 * Sweeps paid for by the quota the plan leaves unused. A late change (a direct debit dishonoured
 * days later, a refund of an old payment) is found by its source's deep sweep, not by the tail:
 * at the source's own sweep period (payments: hourly) its detection takes up to that long. A club
 * whose polls use less than `SWEEP_TARGET_SHARE` of its plan spends the difference on sweeping
 * more often, for the sources in `LATE_CHANGE_ORDER` (payments: a dishonour or a refund is what
 * operations waits for), as often as the spare requests allow, never more often than every `MIN_SWEEP_INTERVAL_MS` (7
 * minutes) and never less often than its own period. The estimate of a sweep's cost is the scheduler's (records an hour times the
 * window, in pages); `SPARE_MARGIN` of the spare is spent, the rest absorbs its error.
 *
 * Pure: the engine's scan plan (which decides a sweep is due) and the scheduler's quota rule (which
 * counts what sweeps cost) call it with the same inputs, so they agree.
 */
import { PLAN_QUOTAS, type Plan } from '../../common/plans';
import { HOUR_MS, MINUTE_MS } from '../../common/time-units';
import { SOURCES } from '../../sources';
import type { Cursor, SourceName } from '../../state/store';
import { SOURCE_CADENCE } from './cadence';
import {
  demandPerHour,
  estimateActivityPerHour,
  pagesOverWindow,
  type SweepIntervals,
} from './cost-estimate';
import { quotaBudget } from './quota-budget';

/** The share of the plan's monthly quota the polls and sweeps together may aim at. */
export const SWEEP_TARGET_SHARE = 0.5;
/** Share of the spare requests spent on sweeps (estimates of a sweep's pages err both ways). */
export const SPARE_MARGIN = 0.8;
/**
 * No sweep more often than this. A late change waits for the next sweep plus a poll (p95 about
 * 0.95 x this + 1 minute), and each sweep also reads its window's seen entries and parses days of
 * rows, which the API quota does not count but the bill does: the cheapest floor that keeps late
 * changes under the 10-minute target (measured: docs/operations.md, "Sweeps paid by the unused quota").
 */
export const MIN_SWEEP_INTERVAL_MS = 7 * 60_000;
/**
 * Which sources' sweeps the spare pays for, in order: payments, whose late changes (a direct debit
 * dishonoured days later, a refund) are what operations waits for. The other sources keep their own
 * sweep periods: their late records (a disbursement settled the next day, a visit recorded late)
 * wait for nobody, and sweeping them more often measured as a dollar-scale cost per club for nothing.
 */
export const LATE_CHANGE_ORDER: readonly SourceName[] = ['paymentHistory'];

export interface SweepBudgetInput {
  readonly plan: Plan;
  /** The club's enabled sources. */
  readonly sources: readonly SourceName[];
  readonly cursors: readonly Cursor[];
  /** Requests counted for the club this month. */
  readonly quotaUsed: number;
  readonly nowMs: number;
  /** @default SWEEP_TARGET_SHARE */
  readonly targetShare?: number;
}

/** Requests an hour the club may spend, polls and sweeps together, to stay at the target share. */
function targetPerHour(input: SweepBudgetInput): number {
  const share = input.targetShare ?? SWEEP_TARGET_SHARE;
  const limit = PLAN_QUOTAS[input.plan];
  const budget = quotaBudget(input.plan, input.quotaUsed, input.nowMs, 0);
  const monthHours = (budget.monthEndMs - budget.monthStartMs) / HOUR_MS;
  // What is left of the target spread over the rest of the month; a club that spent more than its
  // share of the month so far gets less, one that spent less does not get more than the steady rate.
  const leftToTarget = Math.max(0, share * limit - input.quotaUsed);
  const hoursLeft = Math.max((budget.monthEndMs - input.nowMs) / HOUR_MS, 1 / 60);
  return Math.min((share * limit) / monthHours, leftToTarget / hoursLeft);
}

export function sweepIntervals(input: SweepBudgetInput): SweepIntervals {
  const bySource = new Map(input.cursors.map((c) => [c.source, c]));
  const states = input.sources.map((source) => {
    const cursor = bySource.get(source);
    const cadence = SOURCE_CADENCE[source];
    return {
      source,
      cursor,
      activity: estimateActivityPerHour(source, cursor, cadence),
      baseIntervalMs: cadence.intervalMs,
    };
  });
  let spare = SPARE_MARGIN * (targetPerHour(input) - demandPerHour(states, 1));
  const rank = (source: SourceName) => {
    const i = LATE_CHANGE_ORDER.indexOf(source);
    return i < 0 ? LATE_CHANGE_ORDER.length : i;
  };
  const candidates = states
    .filter(
      (s) =>
        SOURCES[s.source].sweep !== undefined &&
        s.activity !== undefined &&
        LATE_CHANGE_ORDER.includes(s.source),
    )
    .sort((a, b) => rank(a.source) - rank(b.source) || (b.activity ?? 0) - (a.activity ?? 0));
  const out: SweepIntervals = {};
  for (const s of candidates) {
    if (spare <= 0) break;
    const sweep = SOURCES[s.source].sweep!;
    const tailPages = pagesOverWindow(s.activity!, SOURCES[s.source].tailLookbackMs + s.baseIntervalMs);
    const sweepPages = pagesOverWindow(
      s.activity!,
      (sweep.paidWindowMs ?? sweep.windowMs) + s.baseIntervalMs,
    );
    // A sweep replaces that poll's tail: it costs its extra pages, per sweep. Over the whole window
    // it also replaces the source's own sweeps (already in the demand); over a paid window of its
    // own it comes on top of them.
    const extra = Math.max(1, sweepPages - tailPages);
    const already = sweep.paidWindowMs ? 0 : (extra * HOUR_MS) / sweep.everyMs;
    const fastest = Math.max(s.baseIntervalMs, MIN_SWEEP_INTERVAL_MS);
    const affordable = (extra * HOUR_MS) / (spare + already);
    const interval = Math.max(fastest, Math.ceil(affordable / MINUTE_MS) * MINUTE_MS);
    if (interval >= sweep.everyMs) continue;
    out[s.source] = interval;
    spare -= (extra * HOUR_MS) / interval - already;
  }
  return out;
}
