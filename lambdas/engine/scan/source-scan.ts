/**
 * One lane's scan of one source (the regular polls' or the backfill's): page through the
 * operation, detect and publish per page, re-read after offset drift (drift-check.ts), save
 * progress, and move the cursor with the scan's outcome (cursor/cursor-life.ts).
 */
import { logger } from '../../common/logger';
import { DeadlineExceededError, type Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import type { ClubContext, SourceDefinition } from '../../sources/source';
import { withoutCommittedRows } from '../../state/committed-rows';
import { needsFreshReads, withFreshReads, withoutFreshReads } from '../../state/fresh-reads';
import type { Cursor } from '../../state/store';
import { cursorAfterBackfill, cursorAfterRegularScan, type ScanResult } from '../cursor/cursor-life';
import { AppendDetection } from './append-detection';
import { attemptCovered } from './drift-check';
import { planBackfillScan, planRegularScan } from './plan';
import type { PollSourceDeps, PollSourceOptions, SourceReport } from './poll-types';
import { PagePublisher } from './publish-commit';
import { quarantineOnce } from './quarantine';
import { markRead, notReadBefore } from './read-marks';
import { proveRepeats } from './repeat-proof';
import { RowMarks } from './row-marks';
import { isRawRowIdentity, ScanPageReader } from './scan-pages';
import { ScanProgress } from './scan-progress';
import { ScanTally } from './scan-tally';
import type { Attempt, Detection, EngineScan, Lane, SourceOutcome } from './scan-types';
import { readsFresh, SourceReads } from './source-reads';
import { StateDetection } from './state-detection';
import { NO_SWEEP_SLOT_REASON, SWEEP_WAIT_MARGIN_MS, sweepSlots } from './sweep-slots';

/** Pages between checkpoints of a long scan (a read mark a record: tails and sweeps never pay). */
const CHECKPOINT_PAGES = 50;

export class SourceScan {
  readonly #startMs: number;
  #cursor: Cursor;
  #pages = 0;
  #records = 0;
  #quarantined = 0;
  #attempts = 0;
  #countedRows: number | undefined;
  /** A page came with more rows than it was asked for: the count of such a read is not kept. */
  #overfull = false;
  /** Publishes the pages the detection hands it, and counts the events delivered. */
  readonly #publisher: PagePublisher;
  readonly #detection: Detection;
  readonly #reader: ScanPageReader;
  readonly #rowMarks: RowMarks | undefined;
  /** Where this scan's read marks go (read-marks.ts). */
  readonly #readMarks: Parameters<typeof markRead>[0];
  /** How the seen set, digest and snapshots are read; whether the scan wrote any (source-reads.ts). */
  readonly #reads: SourceReads;

  constructor(
    private readonly deps: PollSourceDeps,
    private readonly ctx: ClubContext,
    private readonly source: SourceDefinition,
    private readonly options: PollSourceOptions,
    private readonly lane: Lane,
    cursor: Cursor,
    /** Read strongly consistent: the source's cursor asked for it when the poll began (readsFresh). */
    fresh = readsFresh(cursor),
  ) {
    this.#startMs = ctx.observedAtMs;
    this.#cursor = cursor;
    this.#reads = new SourceReads(fresh, async () => {
      if (!needsFreshReads(this.#cursor))
        this.#cursor = await deps.store.putCursor(withFreshReads(this.#cursor));
    });
    this.#readMarks = { store: deps.store, clubId: ctx.clubId, source: source.name, startMs: this.#startMs };
    this.#publisher = new PagePublisher(deps.sink);
    const { publish } = this.#publisher;
    // Only the regular lane trusts row marks: the backfill publishes what it reads whatever is stored.
    const regularState = source.kind === 'state' && lane === 'regular';
    this.#rowMarks = regularState ? new RowMarks(cursor.committedRows) : undefined;
    this.#detection =
      source.kind === 'append'
        ? new AppendDetection(deps.store, ctx, source, this.#startMs, publish, this.#reads)
        : new StateDetection(deps.store, ctx, source, publish, this.#rowMarks, this.#reads);
    this.#reader = new ScanPageReader(deps.client, source, ctx, options);
  }

  /**
   * The rows of the scan's window, when this invocation read it whole in one attempt from offset 0
   * and met no row twice, every page within its limit (a count the tail probe can trust:
   * tail-probe.ts); else undefined.
   */
  get countedRows(): number | undefined {
    return this.#countedRows;
  }

  /** The cursor as this lane left it (stored). */
  get cursor(): Cursor {
    return this.#cursor;
  }

  outOfTime(): boolean {
    return Date.now() > this.options.deadlineMs - (this.options.reserveMs ?? 3000);
  }

  /**
   * Runs the planned scan; a sweep once it has one of the process's sweep slots (sweep-slots.ts),
   * or not at all (skipped, said, the cursor as it was) when none comes free before the deadline's
   * margin: nothing is written, so the sweep is still due and the next poll runs it.
   */
  async run(): Promise<SourceReport> {
    const scan = this.#plan();
    if (scan.mode !== 'sweep') return this.#scan(scan);
    const waitStartMs = Date.now();
    const slot = await sweepSlots.acquire({
      waitMs: this.options.deadlineMs - SWEEP_WAIT_MARGIN_MS - waitStartMs,
    });
    if (typeof slot !== 'function') {
      logger.info('sweep skipped: it sweeps next poll', {
        clubId: this.ctx.clubId,
        source: this.source.name,
        reason: NO_SWEEP_SLOT_REASON,
        waitedMs: Date.now() - waitStartMs,
      });
      return { ...this.#report(scan, 'skipped'), reason: NO_SWEEP_SLOT_REASON };
    }
    try {
      return await this.#scan(scan);
    } finally {
      slot();
    }
  }

  async #scan(scan: EngineScan): Promise<SourceReport> {
    // The cursor's row marks go before the scan writes a snapshot: a scan that fails or stops
    // part-way leaves none, and only a completed regular scan stores them again (#finish).
    if (this.#cursor.committedRows !== undefined) {
      this.#cursor = await this.deps.store.putCursor(withoutCommittedRows(this.#cursor));
    }
    const fromStart = scan.nextOffset === 0;
    const maxAttempts = this.options.maxScanAttempts ?? 3;
    const tally = new ScanTally(scan, (ids) => notReadBefore(this.#readMarks, scan, ids));
    let outcome: SourceOutcome = 'incomplete';
    const attempts: Attempt[] = [];
    while (this.#attempts < maxAttempts) {
      this.#attempts++;
      const attempt = await this.#readAttempt(scan, tally);
      if (!attempt.finished) {
        outcome = 'partial';
        break;
      }
      attempts.push(attempt);
      const last = this.#attempts === maxAttempts;
      const proveRepeats = () => this.#verifyRepeats(scan, tally, attempt);
      if (await attemptCovered({ tally, attempt, attempts, last, proveRepeats })) {
        outcome = 'completed';
        const once = [...attempt.counts.values()].every((n) => n === 1);
        if (once && this.#attempts === 1 && fromStart && !this.#overfull)
          this.#countedRows = attempt.rowsCounted;
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
    let identifiedDistinct = 0;
    // Rows are counted from offset 0 of the attempt: a resumed attempt carries on the count of
    // unidentified rows of the invocations before it.
    let unidentified = this.#attempts === 1 ? (scan.unidentified ?? 0) : 0;
    let offset = this.#attempts === 1 ? scan.nextOffset : 0;
    const progress = new ScanProgress(this.source.operation);
    try {
      const windowRows = scan.paid ? this.#cursor.stats?.paidSweepRows : this.#cursor.stats?.sweepRows;
      for await (const page of this.#reader.pages(scan, offset, windowRows)) {
        this.#pages++;
        const result = await this.#processPage(page, scan, tally.seenIdentities);
        rowsCounted = page.offset + page.rawCount;
        if (page.rawCount > page.limit) this.#overfull = true;
        // Bad records are counted under their raw record: drift that repeats one must not hide the
        // row it pushed out (rows past the limits, cut copies, stay unidentified).
        unidentified += page.rawCount - result.rows.length;
        for (const id of result.rows) {
          if (!counts.has(id) && !isRawRowIdentity(id)) identifiedDistinct++;
          counts.set(id, (counts.get(id) ?? 0) + 1);
          const span = spans.get(id);
          const to = page.offset + page.rawCount;
          if (span) span.to = to;
          else spans.set(id, { from: page.offset, to });
        }
        progress.check(
          page,
          result.identified.map((r) => r.id),
          identifiedDistinct,
        );
        await tally.account(result.rows, result.times);
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

  /** Proves repeats the attempt met (repeat-proof.ts); true when the scan is then complete. */
  #verifyRepeats(scan: EngineScan, tally: ScanTally, attempt: Attempt): Promise<boolean> {
    return proveRepeats({
      scan,
      tally,
      attempt,
      reader: this.#reader,
      outOfTime: () => this.outOfTime(),
      read: (page) => {
        this.#pages++;
        return this.#processPage(page, scan, tally.seenIdentities);
      },
    });
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
    await this.#detection.detect(detect, scan, quarantine, this.deps.now());
    const where = { clubId: this.ctx.clubId, source: this.source.name, startMs: this.#startMs };
    this.#quarantined += await quarantineOnce(this.deps.store, where, quarantine);
    return result;
  }

  /**
   * Detects the rows a digest scan holds (append-detection.ts): before a checkpoint claims them
   * read, and before the scan ends.
   */
  async #flush(): Promise<void> {
    const quarantine = await this.#detection.flush();
    const where = { clubId: this.ctx.clubId, source: this.source.name, startMs: this.#startMs };
    this.#quarantined += await quarantineOnce(this.deps.store, where, quarantine);
  }

  /** Held rows detected, then read marks, then the progress that counts them. */
  async #checkpoint(scan: EngineScan, tally: ScanTally, nextOffset: number, unidentified: number) {
    await this.#flush();
    await markRead(this.#readMarks, scan, tally.takeUnmarked());
    const at = { nextOffset, unidentified, pages: this.#pages, records: this.#records };
    const progress = tally.progress(scan, at);
    this.#cursor = await this.deps.store.putCursor(
      this.lane === 'backfill'
        ? { ...this.#cursor, backfillScan: progress }
        : { ...this.#cursor, scan: progress },
    );
  }

  async #finish(scan: EngineScan, outcome: SourceOutcome, maxRecordMs: number | undefined): Promise<void> {
    await this.#flush();
    await this.#detection.finish();
    const result: ScanResult = {
      scan,
      outcome,
      maxRecordMs,
      pages: this.#pages,
      records: this.#records,
      events: this.#publisher.published,
      quarantined: this.#quarantined,
      attempts: this.#attempts,
    };
    if (this.lane === 'regular') {
      const after = cursorAfterRegularScan(this.#cursor, result, this.source, this.ctx, this.#startMs);
      // A scan that read (fresh, if marked) and wrote nothing leaves the next poll free to read
      // eventually consistent; one that read nothing keeps a mark it found.
      const next = this.#reads.clean ? withoutFreshReads(after) : after;
      const marks = outcome === 'completed' ? this.#rowMarks?.stored() : undefined;
      this.#cursor = await this.deps.store.putCursor(marks ? { ...next, committedRows: marks } : next);
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
      events: this.#publisher.published,
      quarantined: this.#quarantined,
      attempts: this.#attempts,
      ...(this.#cursor.watermark ? { watermark: this.#cursor.watermark } : {}),
    };
  }
}
