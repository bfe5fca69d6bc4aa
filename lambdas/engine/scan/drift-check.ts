/**
 * The drift check: the offset-paging guarantee. The API pages by offset over tables that change
 * while they are read, so a row inserted or deleted ahead of the offset shifts the rows behind it:
 * one page repeats a row, and some other row is skipped without a trace. A scan therefore counts
 * what it read and is complete only when that accounts for every row its pages held:
 *
 * - the count (scan-tally.ts): distinct identities, proven repeats and rows without an identity,
 *   against the rows counted (the last page's offset plus its rows);
 * - across invocations (read-marks.ts): a scan resumed in another invocation knows which records
 *   it already counted, so rows skipped before it resumed still show up as missing;
 * - repeats that are real (repeat-proof.ts): records that share an identity are proven by one
 *   response holding them all, since drift happens between requests, never inside one.
 *
 * An attempt that is not covered is read again from offset 0 (source-scan.ts), up to the source's
 * attempts; a scan never covered is `incomplete`: its events are published, its watermark kept.
 */
import { steadyOversizedRepeats } from './repeat-proof';
import type { ScanTally } from './scan-tally';
import type { Attempt } from './scan-types';

export interface AttemptToJudge {
  readonly tally: ScanTally;
  /** The attempt just read to its last page. */
  readonly attempt: Attempt;
  /** Every attempt of this invocation read to its last page, this one included. */
  readonly attempts: readonly Attempt[];
  /** This is the scan's last attempt. */
  readonly last: boolean;
  /** Proves the repeats the attempt met with extra reads (repeat-proof.ts); true when then covered. */
  readonly proveRepeats: () => Promise<boolean>;
}

/**
 * True when the attempt read every row: its count covers the rows, or its repeats are proven real,
 * or (on the last attempt) the only rows left over are records over the response cap that every
 * attempt met the same way.
 */
export async function attemptCovered(judge: AttemptToJudge): Promise<boolean> {
  const { tally, attempt } = judge;
  if (tally.covers(attempt.rowsCounted, attempt.unidentified)) return true;
  if (await judge.proveRepeats()) return true;
  return (
    judge.last &&
    tally.covers(attempt.rowsCounted, attempt.unidentified + steadyOversizedRepeats(judge.attempts))
  );
}
