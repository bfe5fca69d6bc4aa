/** The shapes the scan modules share: the scan as stored in the cursor, outcomes, lanes. */
import type { ScanProgress } from '../../state/store';
import type { QuarantineEntry } from './quarantine';

export const SCAN_MODES = ['baseline', 'backfill', 'sweep', 'tail'] as const;
export type ScanMode = (typeof SCAN_MODES)[number];

/** Scan progress as the engine stores it in the cursor. */
export interface EngineScan extends ScanProgress {
  mode: ScanMode;
  /** The query: `fromdate`/`updatedate` value, '' for none. */
  fromdate: string;
  /** A sweep the unused quota paid for, over the source's `sweep.paidWindowMs` (not the whole window). */
  paid?: true;
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

/**
 * The engine's reading of a scan stored in a cursor (the state module stores it as it was given):
 * the scan when it is one of the engine's, undefined when there is none or it is not usable.
 */
export function storedScan(progress: ScanProgress | undefined): EngineScan | undefined {
  return progress !== undefined && isEngineScan(progress) ? progress : undefined;
}

function isEngineScan(progress: ScanProgress): progress is EngineScan {
  return 'mode' in progress && (SCAN_MODES as readonly unknown[]).includes(progress.mode);
}

export type SourceOutcome = 'completed' | 'partial' | 'incomplete' | 'skipped';

/** The regular polls' lane (baseline, tail, sweep) or the backfill's: each has its own progress. */
export type Lane = 'regular' | 'backfill';

export const maxOf = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

export const iso = (ms: number) => new Date(ms).toISOString();

/** One attempt's read of the scan: whether it reached the last page, and what it counted. */
export interface Attempt {
  readonly finished: boolean;
  readonly rowsCounted: number;
  readonly unidentified: number;
  /** How often each identity was read across the attempt's pages. */
  readonly counts: Map<string, number>;
  /** Where each identity was read in the attempt: from the first page's offset to the last page's end. */
  readonly spans: Map<string, { from: number; to: number }>;
}

export interface IdentifiedRecord {
  readonly id: string;
  readonly item: unknown;
  /**
   * The instant (UTC ms) of the record's time, when the page reader read a finite one: the
   * detection reuses it instead of reading the record time again.
   */
  readonly atMs?: number;
}

/**
 * How a scan finds what changed in the rows it reads: the seen set (append-detection.ts) or the
 * snapshots (state-detection.ts). The scan hands each page's identified rows to `detect`, which
 * publishes their events (publish-commit.ts) and then commits what it saw; `flush` detects the rows
 * a detection holds back (a digest scan's) before a checkpoint claims them read, and returns what
 * it quarantined; `finish` keeps, after the last flush, what the next scan needs.
 */
export interface Detection {
  detect(
    records: readonly IdentifiedRecord[],
    scan: EngineScan,
    quarantine: QuarantineEntry[],
    readAtMs: number,
  ): Promise<void>;
  flush(): Promise<QuarantineEntry[]>;
  finish(): Promise<void>;
}
