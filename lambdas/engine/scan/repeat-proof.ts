/**
 * Proving that rows an attempt read twice are really two rows (records that share an identity),
 * not offset drift: identities read more often across pages than in any one response. One response
 * holding them all is the proof, since drift happens between requests, never inside one:
 *
 * - records with a time: one response from their record time holds the whole group of equal times
 *   (as large as the API allows, or just the group's size when that is cut by the response cap); it
 *   also reads a record drift skipped. The response starts no earlier than the scan's window;
 * - records without a time (prospects: the filter field is not in the response; bad records,
 *   counted under their raw record), and records that share an identity at different times (a
 *   duplicated id): one response of the scan's own query
 *   over every position they were read at (from the first page that had one to the end of the
 *   last).
 */
import type { Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import { isOversizedRowIdentity, type ReadPage, type ScanPageReader } from './scan-pages';
import type { ScanTally } from './scan-tally';
import type { Attempt, EngineScan } from './scan-types';

export interface RepeatProof {
  readonly scan: EngineScan;
  readonly tally: ScanTally;
  readonly attempt: Attempt;
  readonly reader: ScanPageReader;
  readonly outOfTime: () => boolean;
  /** Processes a verification page like any other (detects, publishes, quarantines). */
  readonly read: (page: Page<OperationName>) => Promise<ReadPage>;
}

/** True when the attempt's rows are then all accounted for (the scan is complete). */
export async function proveRepeats(p: RepeatProof): Promise<boolean> {
  const { scan, tally, attempt, reader } = p;
  const times = tally.suspectTimes(attempt.counts);
  for (const time of times) {
    if (p.outOfTime()) break;
    // Never from before the scan's own window: a record whose time says otherwise (a placeholder
    // such as 0001-01-01, served in the window) would read, and announce, records the window
    // leaves out.
    const from = scan.fromdate && time < scan.fromdate ? scan.fromdate : time;
    const page = await reader.verificationPage(from, tally.rowsAt(time, attempt.counts));
    if (!page) break;
    const result = await p.read(page);
    // Only the group of this time, and only identities the attempt read: a record inserted since
    // must not stand in for one the attempt skipped.
    const group = result.identified
      .map((r) => r.id)
      .filter((id) => result.times.get(id) === time && attempt.counts.has(id));
    await tally.account(group, new Map());
  }
  const unproven = tally.unprovenSuspects(attempt.counts);
  for (const id of unproven) {
    if (p.outOfTime() || tally.covers(attempt.rowsCounted, attempt.unidentified)) break;
    const span = attempt.spans.get(id);
    if (!span) continue;
    const page = await reader.spanPage(scan, span.from, span.to - span.from);
    if (!page) continue;
    const result = await p.read(page);
    await tally.account(
      result.rows.filter((found) => found === id),
      new Map(),
    );
  }
  return (times.length > 0 || unproven.length > 0) && tally.covers(attempt.rowsCounted, attempt.unidentified);
}

/**
 * Repeats of records over the response cap, which no response can prove (none can hold two of
 * them): such a record is counted under a fingerprint of its first 16 KB, so a fingerprint read
 * more than once is drift (an unstable order serving one huge record at two offsets, hiding the
 * record it pushed out) or two stored records that begin alike. Only when every attempt of the scan
 * read the fingerprints the same number of times are they taken as records that begin alike (an
 * unstable order does not come back the same way attempt after attempt); the rows they account for
 * are returned, else 0. Without this, two such records would keep every scan of their window
 * incomplete for good.
 */
export function steadyOversizedRepeats(attempts: readonly Attempt[]): number {
  const patterns = attempts.map((a) =>
    [...a.counts]
      .filter(([id]) => isOversizedRowIdentity(id))
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([id, n]) => `${id}=${n}`)
      .join('\u0000'),
  );
  if (patterns.length < 2 || patterns.some((p) => p !== patterns[0])) return 0;
  let extra = 0;
  for (const [id, n] of attempts[0]!.counts) if (isOversizedRowIdentity(id)) extra += n - 1;
  return extra;
}
