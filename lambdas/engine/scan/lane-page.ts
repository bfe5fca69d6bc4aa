/**
 * A fast-lane session's page (engine/club-poll/fast-lane-probe.ts): the rows past the last whole
 * tail's count, as the probe's one request read them, detected the way a tail detects them (the
 * same facets, fingerprints and eventIds, the same seen set, lifecycle notes and quarantine), then
 * published and filed. Nothing else is read. Of the cursor only the tail's count moves, past the
 * rows read (when it is still the count the probe asked past): the next probe asks for the rows
 * after them, not for these again. The watermark, the scan and the next full count belong to the
 * minute's polls, whose whole tails find these rows in the seen set.
 *
 * The count moves only when every row of the page is proven new. Rows past the count of an API
 * that appends at the end were never seen; a row published before means the page is not what was
 * asked (an API that ignored the offset and sent the first rows again, one that sorts by date and
 * put new rows before old ones, a row served twice). A bad record proves nothing either way: it
 * never enters the seen set, and its quarantine mark is keyed by its whole text, which a response
 * that bent it once does not match. Nor does a row the page could not carry (past the response
 * cap). Moving past such a page would put the count beyond the rows there are, and every probe
 * after it would ask past the end and find nothing, whatever was added. The count stays, and the
 * minute's poll reads the whole tail (engine/club-poll/poll-source.ts), which counts again: one
 * whole read for each page with a bad record, since the next probe asks past it.
 *
 * What it reads of the seen set: the entries from the page's earliest record time on (a few
 * minutes of one hour; no seen digest: a page's hour sums can never match a whole hour's), so a
 * row the minute's poll or an earlier probe already published is not published again; strongly
 * consistent after a poll that wrote (state/fresh-reads.ts), and its own writes mark the cursor so. Rows that
 * are not the newest (an API that does not append new rows at the end) are found seen and cost
 * only that read.
 */
import type { Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import type { AppendSource, ClubContext } from '../../sources/source';
import { needsFreshReads, withFreshReads } from '../../state/fresh-reads';
import type { ClubSession } from '../../state/state-store';
import type { SourceName } from '../../state/store';
import { AppendDetection } from './append-detection';
import type { PollSourceDeps, SourceReport } from './poll-types';
import { PagePublisher } from './publish-commit';
import { type QuarantineEntry, quarantineOnce } from './quarantine';
import { ScanPageReader } from './scan-pages';
import { readsFresh, SourceReads } from './source-reads';
import { tailCountOf, withTailCount } from './tail-probe';

/** Rows a probe asks for past the count: a few a quarter minute at the busiest club; more wait for the minute. */
export const LANE_PAGE_ROWS = 100;

/** A lane page's report, and whether the tail's count moved past its rows (all of them new). */
export interface LanePageResult {
  readonly report: SourceReport;
  readonly countMoved: boolean;
}

export async function detectLanePage(
  deps: PollSourceDeps,
  ctx: ClubContext,
  source: AppendSource,
  page: Page<OperationName>,
): Promise<LanePageResult> {
  const reader = new ScanPageReader(deps.client, source, ctx, { deadlineMs: Number.POSITIVE_INFINITY });
  const { identified, quarantine, rows } = reader.read(page);
  const publisher = new PagePublisher(deps.sink);
  // Fresh reads as a tail's (source-reads.ts): strongly consistent when the cursor asks for it, and
  // a write marks it for the next poll. A page that wrote nothing leaves the mark: it found no new
  // row, so the count stays and the whole tail comes next (this poll's, or the next minute's),
  // which must read fresh too; it clears the mark if it writes nothing either.
  const reads = new SourceReads(readsFresh(await deps.store.getCursor(source.name)), async () => {
    const cursor = await deps.store.getCursor(source.name);
    if (!needsFreshReads(cursor)) await deps.store.putCursor(withFreshReads(cursor));
  });
  const detection = new AppendDetection(deps.store, ctx, source, ctx.observedAtMs, publisher.publish, reads);
  const found: QuarantineEntry[] = [...quarantine];
  await detection.detect(identified, { mode: 'lane' }, found);
  const where = { clubId: ctx.clubId, source: source.name, startMs: ctx.observedAtMs };
  const quarantined = await quarantineOnce(deps.store, where, found);
  const allNew = detection.alreadySeen === 0 && found.length === 0 && rows.length === page.rawCount;
  const countMoved = allNew && (await countPast(deps.store, source.name, page));
  const report: SourceReport = {
    source: source.name,
    outcome: 'completed',
    mode: 'lane',
    pages: 1,
    records: page.rawCount,
    events: publisher.published,
    quarantined,
    attempts: 1,
  };
  return { report, countMoved };
}

/** The tail's count moved past the page's rows, when it is the one the probe asked past. */
async function countPast(
  store: Pick<ClubSession, 'getCursor' | 'putCursor'>,
  source: SourceName,
  page: Page<OperationName>,
): Promise<boolean> {
  const cursor = await store.getCursor(source);
  const count = tailCountOf(cursor);
  if (!count || count.rows !== page.offset || page.rawCount === 0) return false;
  await store.putCursor(withTailCount(cursor, { ...count, rows: page.offset + page.rawCount }));
  return true;
}
