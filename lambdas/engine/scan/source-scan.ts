/**
 * One lane's scan of one source (the regular polls' or the backfill's): page through the
 * operation, detect and publish per page, re-read after offset drift, save progress, and move the
 * cursor with the scan's outcome (cursor-transition.ts).
 */
import { createHash } from 'node:crypto';
import { logger } from '../../common/logger';
import type { BridgeEvent } from '../../events/catalog';
import { DeadlineExceededError, type Page, PagingStalledError } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import type { ClubContext, SourceDefinition } from '../../sources/source';
import type { Cursor } from '../../state/store';
import { AppendDetection } from './append-detection';
import { cursorAfterBackfill, cursorAfterRegularScan, type ScanResult } from './cursor-transition';
import { PageReader } from './page-reader';
import { planBackfillScan, planRegularScan } from './plan';
import type { PollSourceDeps, PollSourceOptions, SourceReport } from './poll-types';
import { type PageEvents, publishPageEvents } from './publish-commit';
import { type QuarantineEntry, quarantineOnce } from './quarantine';
import { readMarkExpiresAt, readMarkKey } from './read-marks';
import { ScanTally } from './scan-tally';
import type { EngineScan, Lane, SourceOutcome } from './scan-types';
import { StateDetection } from './state-detection';

/**
 * Pages between checkpoints of a long scan. Checkpoints cost a read mark per record (one write
 * each), so short scans (tails, sweeps) never pay for them unless they run out of time.
 */
const CHECKPOINT_PAGES = 50;

/**
 * Whether an attempt's pages bring records it has not read: an upstream that ignores `offset` serves
 * the records of its first page at every offset (shuffled, or shifted by what was inserted since).
 * Full pages holding exactly the records of earlier pages twice in a row, or (after a few pages)
 * fewer distinct records than a third of the rows, stops the scan with a PagingStalledError: the
 * source fails with that reason after a bounded number of requests instead of paging until the
 * deadline. Offset drift repeats a few records, never a whole page; unstable ordering of records
 * with equal times (random pages over a group) keeps about 63% of a group's rows distinct.
 */
class ScanProgress {
  readonly #pageSets = new Set<string>();
  #repeatsInARow = 0;
  #identifiedRows = 0;
  #pages = 0;

  constructor(private readonly operation: string) {}

  check(page: Page<OperationName>, identities: readonly string[], distinct: number): void {
    // Only full pages of several records count: a record asked for alone (next to one over the
    // response cap) or a short last page says nothing about the upstream's offsets.
    const full = page.rawCount >= page.limit && page.limit > 1 && new Set(identities).size > 1;
    if (!full) {
      this.#repeatsInARow = 0;
      return;
    }
    this.#pages++;
    this.#identifiedRows += identities.length;
    const set = createHash('sha256')
      .update([...new Set(identities)].sort().join('\u0000'))
      .digest('base64url');
    this.#repeatsInARow = this.#pageSets.has(set) ? this.#repeatsInARow + 1 : 0;
    this.#pageSets.add(set);
    // Twice in a row: unstable ordering over a group of equal times can repeat a tiny page's set
    // once by chance, never twice running.
    if (this.#repeatsInARow >= 2) {
      throw new PagingStalledError(
        `${this.operation}: the pages up to offset ${page.offset} hold exactly the records of earlier pages: the upstream does not honour offset; paging stopped`,
        { operation: this.operation, status: 200 },
      );
    }
    if (this.#pages >= 4 && distinct * 3 < this.#identifiedRows) {
      throw new PagingStalledError(
        `${this.operation}: ${this.#identifiedRows} rows read in ${this.#pages} full pages held only ${distinct} distinct records: the upstream serves the same records at every offset; paging stopped`,
        { operation: this.operation, status: 200 },
      );
    }
  }
}

/** One attempt's read of the scan: whether it reached the last page, and what it counted. */
interface Attempt {
  readonly finished: boolean;
  readonly rowsCounted: number;
  readonly unidentified: number;
  /** How often each identity was read across the attempt's pages. */
  readonly counts: Map<string, number>;
  /** Where each identity was read in the attempt: from the first page's offset to the last page's end. */
  readonly spans: Map<string, { from: number; to: number }>;
}

export class SourceScan {
  readonly #startMs: number;
  #cursor: Cursor;
  #pages = 0;
  #records = 0;
  #events = 0;
  #quarantined = 0;
  #attempts = 0;
  readonly #published: BridgeEvent[] = [];
  readonly #detection: AppendDetection | StateDetection;
  readonly #reader: PageReader;

  constructor(
    private readonly deps: PollSourceDeps,
    private readonly ctx: ClubContext,
    private readonly source: SourceDefinition,
    private readonly options: PollSourceOptions,
    private readonly lane: Lane,
    cursor: Cursor,
  ) {
    this.#startMs = ctx.observedAtMs;
    this.#cursor = cursor;
    const publish = (page: PageEvents, quarantine: QuarantineEntry[]) => this.#publish(page, quarantine);
    this.#detection =
      source.kind === 'append'
        ? new AppendDetection(deps.store, ctx, source, this.#startMs, publish)
        : new StateDetection(deps.store, ctx, source, publish);
    this.#reader = new PageReader(deps.client, source, ctx, options);
  }

  /** The cursor as this lane left it (stored). */
  get cursor(): Cursor {
    return this.#cursor;
  }

  outOfTime(): boolean {
    return Date.now() > this.options.deadlineMs - (this.options.reserveMs ?? 3000);
  }

  async run(): Promise<SourceReport> {
    const scan = this.#plan();
    const maxAttempts = this.options.maxScanAttempts ?? 3;
    const tally = new ScanTally(scan, (ids) => this.#notReadBefore(scan, ids));
    let outcome: SourceOutcome = 'incomplete';
    while (this.#attempts < maxAttempts) {
      this.#attempts++;
      const attempt = await this.#readAttempt(scan, tally);
      if (!attempt.finished) {
        outcome = 'partial';
        break;
      }
      if (
        tally.covers(attempt.rowsCounted, attempt.unidentified) ||
        (await this.#verifyRepeats(scan, tally, attempt))
      ) {
        outcome = 'completed';
        break;
      }
      logger.warn('scan read a row twice: offset drift or unstable ordering, re-reading', {
        clubId: this.ctx.clubId,
        source: this.source.name,
        attempt: this.#attempts,
        rows: attempt.rowsCounted,
        distinct: tally.distinct,
      });
      if (this.outOfTime()) break;
      // The saved progress claims the rows before its offset were read; this attempt proved that
      // wrong. The re-read starts at 0: a crash during it must resume there, not at this attempt's end.
      await this.#checkpoint(scan, tally, 0, 0);
    }
    await this.#finish(scan, outcome, tally.maxRecordMs);
    return this.#report(scan, outcome);
  }

  #plan(): EngineScan {
    const { source, ctx } = this;
    if (this.lane === 'regular')
      return planRegularScan(this.#cursor, source, ctx, this.#startMs, this.options.sweepEveryMs);
    return planBackfillScan(this.#cursor as Cursor & { backfillFrom: string }, source, ctx, this.#startMs);
  }

  /** Reads the scan's pages once (the first attempt from the saved offset, re-reads from 0). */
  async #readAttempt(scan: EngineScan, tally: ScanTally): Promise<Attempt> {
    const counts = new Map<string, number>();
    const spans = new Map<string, { from: number; to: number }>();
    let rowsCounted = 0;
    // Rows are counted from offset 0 of the attempt: a resumed attempt carries on the count of
    // unidentified rows of the invocations before it.
    let unidentified = this.#attempts === 1 ? (scan.unidentified ?? 0) : 0;
    let offset = this.#attempts === 1 ? scan.nextOffset : 0;
    const progress = new ScanProgress(this.source.operation);
    try {
      for await (const page of this.#reader.pages(scan, offset)) {
        this.#pages++;
        const result = await this.#processPage(page, scan, tally.seenIdentities);
        rowsCounted = page.offset + page.rawCount;
        unidentified += page.rawCount - result.identified.length;
        for (const { id } of result.identified) {
          counts.set(id, (counts.get(id) ?? 0) + 1);
          const span = spans.get(id);
          const to = page.offset + page.rawCount;
          if (span) span.to = to;
          else spans.set(id, { from: page.offset, to });
        }
        progress.check(
          page,
          result.identified.map((r) => r.id),
          counts.size,
        );
        await tally.account(
          result.identified.map((r) => r.id),
          result.times,
        );
        tally.noteRecordTime(result.maxRecordMs);
        offset = page.offset + page.rawCount;
        if (page.rawCount < page.limit) return { finished: true, rowsCounted, unidentified, counts, spans };
        // A checkpoint (read marks + progress) only when this invocation must stop, and every
        // CHECKPOINT_PAGES pages of a long scan; a crash in between re-reads from the last one.
        // A backfill checkpoints every page: it publishes every row it reads, so a page read
        // again is a page published again (a cursor write per page of up to 500 rows is cheap).
        const stopping = this.outOfTime();
        if (stopping || this.lane === 'backfill' || this.#pages % CHECKPOINT_PAGES === 0) {
          await this.#checkpoint(scan, tally, offset, unidentified);
        }
        if (stopping) break;
      }
    } catch (err) {
      // Out of time inside a request: keep what was committed, resume next poll.
      if (!(err instanceof DeadlineExceededError)) throw err;
    }
    return { finished: false, rowsCounted, unidentified, counts, spans };
  }

  /**
   * Identities read more often across pages than in any one response: drift, or records that
   * really share an identity and a page boundary. One response from their record time holds the
   * whole group of equal times: it proves real repeats (and reads a record drift skipped); for
   * records without a time, one response holding every position the record was read at does. True
   * when the scan is then complete.
   */
  async #verifyRepeats(scan: EngineScan, tally: ScanTally, attempt: Attempt): Promise<boolean> {
    const times = tally.suspectTimes(attempt.counts);
    for (const time of times) {
      if (this.outOfTime()) break;
      const page = await this.#reader.verificationPage(time, tally.rowsAt(time, attempt.counts));
      if (!page) break;
      this.#pages++;
      const result = await this.#processPage(page, scan, tally.seenIdentities);
      // Only the group of this time, and only identities the attempt read: a record inserted
      // since must not stand in for one the attempt skipped.
      const group = result.identified
        .map((r) => r.id)
        .filter((id) => result.times.get(id) === time && attempt.counts.has(id));
      await tally.account(group, new Map());
    }
    // Records without a record time (prospects: the filter field is not in the response): one
    // response of the scan's own query holding every position they were read at (from the first
    // page that had one to the end of the last) proves their repeats the same way.
    const untimed = tally.untimedSuspects(attempt.counts);
    for (const id of untimed) {
      if (this.outOfTime() || tally.covers(attempt.rowsCounted, attempt.unidentified)) break;
      const span = attempt.spans.get(id);
      if (!span) continue;
      const page = await this.#reader.spanPage(scan, span.from, span.to - span.from);
      if (!page) continue;
      this.#pages++;
      const result = await this.#processPage(page, scan, tally.seenIdentities);
      await tally.account(
        result.identified.map((r) => r.id).filter((found) => found === id),
        new Map(),
      );
    }
    return (
      (times.length > 0 || untimed.length > 0) && tally.covers(attempt.rowsCounted, attempt.unidentified)
    );
  }

  /**
   * `readBefore`: the identities this invocation already read (earlier pages and attempts). The
   * backfill publishes what it reads whatever the seen set says, so a record it meets again (a
   * re-read after offset drift, a verification page) is counted but not published again.
   */
  async #processPage(page: Page<OperationName>, scan: EngineScan, readBefore: ReadonlySet<string>) {
    const result = this.#reader.read(page);
    this.#records += page.rawCount;
    const { identified, quarantine } = result;
    const detect = this.lane === 'backfill' ? identified.filter((r) => !readBefore.has(r.id)) : identified;
    if (this.#detection instanceof AppendDetection)
      await this.#detection.detect(detect, scan.mode, quarantine);
    else await this.#detection.detect(detect, scan, quarantine);
    const where = { clubId: this.ctx.clubId, source: this.source.name, startMs: this.#startMs };
    this.#quarantined += await quarantineOnce(this.deps.store, where, quarantine);
    return result;
  }

  async #publish(page: PageEvents, quarantine: QuarantineEntry[]): Promise<void> {
    const delivered = await publishPageEvents(this.deps.sink, page, quarantine);
    this.#events += delivered.length;
    for (const e of delivered) this.#published.push(e);
  }

  /** Read marks first, then the progress that counts them. */
  async #checkpoint(scan: EngineScan, tally: ScanTally, nextOffset: number, unidentified: number) {
    await this.#markRead(scan, tally.takeUnmarked());
    const at = { nextOffset, unidentified, pages: this.#pages, records: this.#records };
    const progress = tally.progress(scan, at);
    this.#cursor = await this.deps.store.putCursor(
      this.lane === 'backfill'
        ? { ...this.#cursor, backfillScan: progress }
        : { ...this.#cursor, scan: progress },
    );
  }

  async #markRead(scan: EngineScan, identities: string[]): Promise<void> {
    if (identities.length === 0) return;
    const marks = identities.map((id) => readMarkKey(scan, id));
    await this.deps.store.putSeen(this.ctx.clubId, this.source.name, marks, readMarkExpiresAt(this.#startMs));
  }

  /** The identities an earlier invocation of this scan did not read (count). */
  async #notReadBefore(scan: EngineScan, identities: string[]): Promise<string[]> {
    if (identities.length === 0) return identities;
    const marks = new Map(identities.map((id) => [readMarkKey(scan, id), id]));
    const nowSec = Math.floor(this.#startMs / 1000);
    const read = await this.deps.store.filterSeen(
      this.ctx.clubId,
      this.source.name,
      [...marks.keys()],
      nowSec,
    );
    return [...marks].filter(([mark]) => !read.has(mark)).map(([, id]) => id);
  }

  async #finish(scan: EngineScan, outcome: SourceOutcome, maxRecordMs: number | undefined): Promise<void> {
    const result: ScanResult = {
      scan,
      outcome,
      maxRecordMs,
      pages: this.#pages,
      records: this.#records,
      events: this.#events,
      quarantined: this.#quarantined,
      attempts: this.#attempts,
    };
    if (this.lane === 'regular') {
      const next = cursorAfterRegularScan(this.#cursor, result, this.source, this.ctx, this.#startMs);
      this.#cursor = await this.deps.store.putCursor(next);
      return;
    }
    const from = this.#cursor.backfillFrom;
    this.#cursor = await this.deps.store.putCursor(cursorAfterBackfill(this.#cursor, result));
    const where = { clubId: this.ctx.clubId, source: this.source.name };
    if (outcome === 'completed') logger.info('backfill completed', { ...where, from });
    if (outcome === 'incomplete') {
      // Its events so far were published; consumers de-duplicate the repeats.
      logger.warn('backfill scan incomplete (rows moved while paging): it starts again next poll', {
        ...where,
        attempts: this.#attempts,
      });
    }
  }

  #report(scan: EngineScan, outcome: SourceOutcome): SourceReport {
    return {
      source: this.source.name,
      outcome,
      mode: scan.mode,
      pages: this.#pages,
      records: this.#records,
      events: this.#events,
      quarantined: this.#quarantined,
      attempts: this.#attempts,
      ...(this.#cursor.watermark ? { watermark: this.#cursor.watermark } : {}),
      publishedEvents: this.#published,
    };
  }
}
