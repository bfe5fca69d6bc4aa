/** The shapes the scan modules share: the scan as stored in the cursor, outcomes, lanes. */
import type { ScanProgress } from '../../state/store';

export type ScanMode = 'baseline' | 'backfill' | 'sweep' | 'tail';

/** Scan progress as the engine stores it in the cursor. */
export interface EngineScan extends ScanProgress {
  mode: ScanMode;
  /** The query: `fromdate`/`updatedate` value, '' for none. */
  fromdate: string;
  /** Backfill start (UTC ms) for state sources' backfill events. */
  backfillFromMs?: number;
  /**
   * Distinct records read by this scan so far, across invocations and attempts; each has a read
   * mark in the seen set (see read-marks.ts), so a resumed scan counts a record only once.
   */
  distinct?: number;
  /** Rows of the current attempt that had no identity, and repeats inside one page. */
  unidentified?: number;
  repeats?: number;
}

export type SourceOutcome = 'completed' | 'partial' | 'incomplete' | 'skipped';

/** The regular polls' lane (baseline, tail, sweep) or the backfill's: each has its own progress. */
export type Lane = 'regular' | 'backfill';

export const maxOf = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

export const iso = (ms: number) => new Date(ms).toISOString();
