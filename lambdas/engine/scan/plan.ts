/**
 * Scan planning (pure): which scan a poll runs from the cursor. A silent baseline on the first
 * run, a deep sweep when one is due, else a tail from `watermark - lookback` (inclusive overlap);
 * the backfill lane plans its own scan from `cursor.backfillFrom`. A scan in progress resumes.
 */

import { toFilterValue } from '../../sources/record-time';
import { type ClubContext, type SourceDefinition, tailLookbackFor } from '../../sources/source';
import type { Cursor } from '../../state/store';
import { lastWholeSweepMs } from '../cursor/cursor-life';
import { type EngineScan, iso, storedScan } from './scan-types';

/** A backfill start that cannot be honoured (later than the poll's start, or not a time). */
export class BackfillRangeError extends Error {
  override readonly name = 'BackfillRangeError';
}

/** A backfill starts at a real instant no later than the poll: the future holds no records yet. */
export function checkBackfillStart(fromMs: number | undefined, startMs: number): void {
  if (fromMs === undefined) return;
  if (!Number.isFinite(fromMs)) throw new BackfillRangeError(`backfill start is not a time: ${fromMs}`);
  if (fromMs > startMs) {
    throw new BackfillRangeError(
      `backfill start ${iso(fromMs)} is later than the poll's start ${iso(startMs)}`,
    );
  }
}

/**
 * A cursor written before backfills had a lane of their own may hold a backfill in `scan` (mode
 * 'backfill'): it becomes a pending backfill, started again with the new semantics.
 */
export function upgradeCursor(cursor: Cursor): Cursor {
  const scan = storedScan(cursor.scan);
  if (scan?.mode !== 'backfill') return cursor;
  const { scan: _old, ...rest } = cursor;
  const from =
    cursor.backfillFrom ?? (scan.backfillFromMs === undefined ? undefined : iso(scan.backfillFromMs));
  return from === undefined ? rest : { ...rest, backfillFrom: from };
}

type PlannedSource = Pick<
  SourceDefinition,
  'kind' | 'filterZone' | 'tailLookbackMs' | 'unconfirmedZoneLookbackMs' | 'sweep'
>;
type PlanContext = Omit<ClubContext, 'observedAtMs'>;

/** The regular scan to run: resume one in progress, or start a new one from the cursor. */
export function planRegularScan(
  cursor: Cursor,
  source: PlannedSource,
  ctx: PlanContext,
  startMs: number,
  /** The sweep period the quota pays for (schedule/sweep-budget.ts); the source's own by default. */
  sweepEveryMs?: number,
): EngineScan {
  const inProgress = storedScan(cursor.scan);
  if (inProgress?.mode) return { ...inProgress };
  const base = { nextOffset: 0, startedAt: iso(startMs), pages: 0, records: 0 };
  const filter = (ms: number) => toFilterValue(ms, source.filterZone, ctx);
  const lookback = tailLookbackFor(source, ctx);
  if (!cursor.baselineDone || !cursor.watermark) {
    if (source.kind === 'state') return { ...base, mode: 'baseline', fromdate: '' };
    const window = Math.max(lookback, source.sweep?.windowMs ?? 0);
    return { ...base, mode: 'baseline', fromdate: filter(startMs - window) };
  }
  const watermarkMs = Date.parse(cursor.watermark);
  const sweep = source.sweep;
  if (sweep) {
    const lastSweep = cursor.stats?.lastSweepAtMs;
    const lastWhole = lastWholeSweepMs(cursor, sweep);
    const paidDue =
      sweepEveryMs !== undefined && (lastSweep === undefined || startMs - lastSweep >= sweepEveryMs);
    if (lastWhole === undefined || startMs - lastWhole >= sweep.everyMs || (paidDue && !sweep.paidWindowMs)) {
      return { ...base, mode: 'sweep', fromdate: filter(watermarkMs - sweep.windowMs) };
    }
    if (paidDue && sweep.paidWindowMs) {
      return { ...base, mode: 'sweep', paid: true, fromdate: filter(watermarkMs - sweep.paidWindowMs) };
    }
  }
  return { ...base, mode: 'tail', fromdate: filter(watermarkMs - lookback) };
}

/**
 * The backfill's scan: resume the one in progress for the same start, or start it. Append
 * sources read from the start on; state sources read everything (a subject's backfill event
 * depends on a field of its own, e.g. the membership's start, not on the filter).
 */
export function planBackfillScan(
  cursor: Cursor & { backfillFrom: string },
  source: Pick<SourceDefinition, 'kind' | 'filterZone'>,
  ctx: PlanContext,
  startMs: number,
): EngineScan {
  const backfillFromMs = Date.parse(cursor.backfillFrom);
  const inProgress = storedScan(cursor.backfillScan);
  if (inProgress?.mode === 'backfill' && inProgress.backfillFromMs === backfillFromMs)
    return { ...inProgress };
  const base = { nextOffset: 0, startedAt: iso(startMs), pages: 0, records: 0 };
  const fromdate = source.kind === 'state' ? '' : toFilterValue(backfillFromMs, source.filterZone, ctx);
  return { ...base, mode: 'backfill', fromdate, backfillFromMs };
}
