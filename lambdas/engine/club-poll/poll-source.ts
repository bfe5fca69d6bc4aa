/**
 * Polling one source of one club: the watermark protocol (README, "Guarantees"; docs/upstream-api.md).
 *
 * The caller holds the club's lease for the whole call (pollClub takes it: one poller per club).
 *
 * 1. Plan the scan from the cursor: a silent baseline on the first run, an explicit backfill, a
 *    deep sweep when one is due, or a tail scan from `watermark - lookback` (inclusive overlap).
 * 2. Page through the operation. Per page: quarantine invalid records (once each), detect with the
 *    seen set or the snapshots, PUBLISH the events, THEN commit seen keys / snapshots. A crash
 *    between the two re-publishes the same events with the same eventIds: at least once.
 * 3. A scan is complete when its last page was short and every row it counted was identified: with
 *    offset paging over data that can move, a row read twice means another was skipped, so the scan
 *    is re-read (up to `maxScanAttempts`) and the identities seen across attempts must cover the row
 *    count. Only a complete scan promotes the watermark: the highest record time seen, capped at the
 *    poll's start. A failed or incomplete scan advances nothing.
 * 4. A scan that runs out of time saves its progress (versioned cursor write) and resumes next poll.
 *
 * An explicit backfill (`backfillFromMs`, or one pending in `cursor.backfillFrom`) is a second lane
 * of the same poll, run after the regular one with the time left: it publishes every record of
 * [from, now] whatever the seen set and the snapshots say (the same eventIds the regular polls
 * use, so consumers de-duplicate), keeps its progress in `cursor.backfillScan`, and never moves
 * the regular polls' watermark, scan or sweep timing. See docs/publishing.md (backfill).
 *
 * A fast-lane session's page (`lanePage`, scan/lane-page.ts) is detected and published alone: no
 * scan, and the cursor is left to the minute's polls.
 */
import { logger } from '../../common/logger';
import type { ClubContext, SourceDefinition } from '../../sources/source';
import type { Cursor } from '../../state/store';
import { cursorWithBackfillRequest } from '../cursor/cursor-life';
import { detectLanePage, LANE_PAGE_ROWS } from '../scan/lane-page';
import { checkBackfillStart, upgradeCursor } from '../scan/plan';
import type { PollSourceDeps, PollSourceOptions, SourceReport } from '../scan/poll-types';
import { ScanPageReader } from '../scan/scan-pages';
import { readsFresh } from '../scan/source-reads';
import { SourceScan } from '../scan/source-scan';
import {
  cursorAfterProbe,
  cursorWithoutProbes,
  plannedProbe,
  rowsPastCount,
  tailFromMs,
  withTailCount,
} from '../scan/tail-probe';

export { fingerprint } from '../scan/fingerprint';
export { BackfillRangeError } from '../scan/plan';
export type {
  BackfillReport,
  PollSourceDeps,
  PollSourceOptions,
  SourceReport,
} from '../scan/poll-types';
export type { EngineScan, ScanMode, SourceOutcome } from '../scan/scan-types';

export async function pollSource(
  deps: PollSourceDeps,
  ctx: Omit<ClubContext, 'observedAtMs'>,
  source: SourceDefinition,
  options: PollSourceOptions,
): Promise<SourceReport> {
  const observedAtMs = deps.now();
  checkBackfillStart(options.backfillFromMs, observedAtMs);
  return new SourcePoll(deps, { ...ctx, observedAtMs }, source, options).run();
}

/** One poll of one source: the regular lane, then a pending backfill's lane with the time left. */
class SourcePoll {
  constructor(
    private readonly deps: PollSourceDeps,
    private readonly ctx: ClubContext,
    private readonly source: SourceDefinition,
    private readonly options: PollSourceOptions,
  ) {}

  async run(): Promise<SourceReport> {
    const { store } = this.deps;
    const { lanePage } = this.options;
    if (lanePage && this.source.kind === 'append')
      return (await detectLanePage(this.deps, this.ctx, this.source, lanePage)).report;
    let cursor = upgradeCursor(this.options.cursor ?? (await store.getCursor(this.source.name)));
    if (this.options.backfillFromMs !== undefined) {
      // Recorded before anything else, so that a poll that fails or runs out of time leaves it
      // pending: the next polls carry it on (the scheduler sees `backfillFrom`).
      const requested = cursorWithBackfillRequest(cursor, this.options.backfillFromMs);
      if (requested) {
        if (cursor.backfillFrom) {
          logger.info('backfill restarted from another start', {
            clubId: this.ctx.clubId,
            source: this.source.name,
            from: requested.backfillFrom,
            previousFrom: cursor.backfillFrom,
          });
        }
        cursor = await store.putCursor(requested);
      }
    }
    const backfillFrom = cursor.backfillFrom;
    const probed = await this.#probe(cursor);
    if (probed.report) return probed.report;
    cursor = probed.cursor;
    const { carried } = probed;
    const tailFrom = tailFromMs(cursor, this.source, this.ctx);
    // Both lanes read as the poll began: the regular lane may clear the mark the backfill needs.
    const fresh = readsFresh(cursor);
    const regular = new SourceScan(this.deps, this.ctx, this.source, this.options, 'regular', cursor, fresh);
    const read = await regular.run();
    const r = carried ? withCarried(read, carried) : read;
    cursor = await this.#keepTailCount(regular, read, tailFrom);
    if (backfillFrom === undefined) return r;
    // The backfill needs the regular polls' baseline first (a fresh table): otherwise their first
    // poll would be a silent baseline after it, and whatever changed in between would be lost.
    let b: SourceReport | undefined;
    if (cursor.backfillFrom !== undefined && cursor.baselineDone && !regular.outOfTime()) {
      const backfill = new SourceScan(
        this.deps,
        this.ctx,
        this.source,
        this.options,
        'backfill',
        cursor,
        fresh,
      );
      b = await backfill.run();
      cursor = backfill.cursor;
    }
    const pending = cursor.backfillFrom !== undefined;
    return {
      ...r,
      outcome: r.outcome === 'completed' && pending ? 'partial' : r.outcome,
      pages: r.pages + (b?.pages ?? 0),
      records: r.records + (b?.records ?? 0),
      events: r.events + (b?.events ?? 0),
      quarantined: r.quarantined + (b?.quarantined ?? 0),
      attempts: r.attempts + (b?.attempts ?? 0),
      ...(cursor.watermark ? { watermark: cursor.watermark } : {}),
      backfill: {
        from: backfillFrom,
        outcome: b ? b.outcome : 'skipped',
        pages: b?.pages ?? 0,
        records: b?.records ?? 0,
        events: b?.events ?? 0,
      },
    };
  }

  /**
   * The tail probe, when the source asks for one and it is due (scan/tail-probe.ts): it asks for
   * the rows past the last whole tail's count. None, or fewer than it asked for, ends the poll:
   * those rows are detected alone (scan/lane-page.ts) and the count moves past them. A refusal turns
   * probing off; none whole reads the tail; a full page is detected (`carried`: no row a response
   * brought is dropped), then the tail is read whole, since more rows may lie past it; so is a page
   * with a row published before (not the rows past the count: the count stays where it was).
   */
  async #probe(cursor: Cursor): Promise<{ cursor: Cursor; report?: SourceReport; carried?: SourceReport }> {
    const { deps, ctx, source, options } = this;
    const probe = plannedProbe(cursor, source, ctx, ctx.observedAtMs, options.sweepEveryMs);
    if (!probe || source.kind !== 'append') return { cursor };
    const reader = new ScanPageReader(deps.client, source, ctx, options);
    const where = { clubId: ctx.clubId, source: source.name };
    const page = await rowsPastCount(reader, probe, LANE_PAGE_ROWS, where);
    if (page === 'refused') return { cursor: await deps.store.putCursor(cursorWithoutProbes(cursor)) };
    if (!page) return { cursor };
    const lane = page.rawCount > 0 ? await detectLanePage(deps, ctx, source, page) : undefined;
    const rows = lane?.report;
    // A full page (more rows may lie past it), or one the count could not move past (a row of it
    // was published before: not the rows asked for), reads the whole tail, which counts again.
    if (lane && (page.rawCount >= LANE_PAGE_ROWS || !lane.countMoved))
      return { cursor: await deps.store.getCursor(source.name), carried: lane.report };
    const probed = cursorAfterProbe(await deps.store.getCursor(source.name), ctx.observedAtMs);
    const next = await deps.store.putCursor(probed);
    const report: SourceReport = {
      source: source.name,
      outcome: 'completed',
      mode: rows ? 'lane' : 'probe',
      pages: 1,
      records: page.rawCount,
      events: rows?.events ?? 0,
      quarantined: rows?.quarantined ?? 0,
      attempts: 1,
      ...(next.watermark ? { watermark: next.watermark } : {}),
    };
    return { cursor: next, report };
  }

  /** After the regular scan: the count a later probe compares with (a whole tail's), or none. */
  async #keepTailCount(scan: SourceScan, report: SourceReport, fromMs: number | undefined): Promise<Cursor> {
    const cursor = scan.cursor;
    if (this.source.kind !== 'append' || !(this.source.tailProbe || this.source.fastLane)) return cursor;
    const rows = scan.countedRows;
    const whole = report.outcome === 'completed' && report.mode === 'tail';
    const count =
      whole && rows !== undefined && fromMs !== undefined
        ? { fromMs, rows, fullAtMs: this.ctx.observedAtMs }
        : undefined;
    // A sweep or a baseline leaves the last tail's count: rows it added to the window make the next
    // probe read the tail once more.
    if (!whole && report.mode !== 'tail') return cursor;
    return this.deps.store.putCursor(withTailCount(cursor, count));
  }
}

/** A tail's report with the probe's page before it counted in (pages, records, events, quarantine). */
function withCarried(report: SourceReport, page: SourceReport): SourceReport {
  return {
    ...report,
    pages: report.pages + page.pages,
    records: report.records + page.records,
    events: report.events + page.events,
    quarantined: report.quarantined + page.quarantined,
  };
}
