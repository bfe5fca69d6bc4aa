/**
 * Polling one source of one club: the watermark protocol (README, "Guarantees"; docs/upstream-api.md).
 *
 * 1. Take the club/source lease (conditional write); a poll that cannot take it does nothing.
 * 2. Plan the scan from the cursor: a silent baseline on the first run, an explicit backfill, a
 *    deep sweep when one is due, or a tail scan from `watermark - lookback` (inclusive overlap).
 * 3. Page through the operation. Per page: quarantine invalid records (once each), detect with the
 *    seen set or the snapshots, PUBLISH the events, THEN commit seen keys / snapshots. A crash
 *    between the two re-publishes the same events with the same eventIds: at least once.
 * 4. A scan is complete when its last page was short and every row it counted was identified: with
 *    offset paging over data that can move, a row read twice means another was skipped, so the scan
 *    is re-read (up to `maxScanAttempts`) and the identities seen across attempts must cover the row
 *    count. Only a complete scan promotes the watermark: the highest record time seen, capped at the
 *    poll's start. A failed or incomplete scan advances nothing.
 * 5. A scan that runs out of time saves its progress (versioned cursor write) and resumes next poll.
 *
 * An explicit backfill (`backfillFromMs`, or one pending in `cursor.backfillFrom`) is a second lane
 * of the same poll, run after the regular one with the time left: it publishes every record of
 * [from, now] whatever the seen set and the snapshots say (the same eventIds the regular polls
 * use, so consumers de-duplicate), keeps its progress in `cursor.backfillScan`, and never moves
 * the regular polls' watermark, scan or sweep timing. See docs/publishing.md (backfill).
 */
import { logger } from '../common/logger';
import type { BridgeEvent } from '../events/catalog';
import type { EventSink } from '../events/publisher';
import { DeadlineExceededError, type GymApiClient, MAX_PAGE_SIZE, type Page } from '../gym-api';
import type { OperationName } from '../gym-api/operations';
import { toInstant } from '../sources/record-time';
import type { ClubContext, SourceDefinition } from '../sources/source';
import type { Cursor, StateStore } from '../state/store';
import { AppendDetection } from './scan/append-detection';
import { cursorAfterBackfill, cursorAfterRegularScan, type ScanResult } from './scan/cursor-transition';
import { checkBackfillStart, planBackfillScan, planRegularScan, upgradeCursor } from './scan/plan';
import { type PageEvents, type PublishPage, publishPageEvents } from './scan/publish-commit';
import { type QuarantineEntry, quarantineEntry, quarantineOnce } from './scan/quarantine';
import { readMarkExpiresAt, readMarkKey } from './scan/read-marks';
import { type EngineScan, iso, type Lane, maxOf, type ScanMode, type SourceOutcome } from './scan/scan-types';
import { StateDetection } from './scan/state-detection';

export { fingerprint } from './scan/fingerprint';
export { BackfillRangeError } from './scan/plan';
export type { EngineScan, ScanMode, SourceOutcome } from './scan/scan-types';

export interface PollSourceDeps {
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly client: GymApiClient;
  /** Domain clock (UTC ms): what "now" means for watermarks and records. */
  readonly now: () => number;
  /** Lease owner id, unique per poller process/invocation. */
  readonly owner: string;
}

export interface PollSourceOptions {
  /** Real-time epoch ms by which the poll must have returned. */
  readonly deadlineMs: number;
  /**
   * Asks for an explicit backfill from this instant (UTC ms, not after the poll's start): every
   * record since then is published again. Recorded in the cursor at once and carried on by later
   * polls until it completes; asking again for the same start resumes it, another start restarts it.
   */
  readonly backfillFromMs?: number;
  readonly pageSize?: number;
  /** @default 3 */
  readonly maxScanAttempts?: number;
  /** Time kept in reserve before the deadline to save progress. @default 3000 */
  readonly reserveMs?: number;
  /** @default the deadline plus a minute */
  readonly leaseTtlMs?: number;
  /**
   * The caller holds a lease that covers this source (pollClub's club lease): no source lease is
   * taken. Whoever says so must hold it for the whole call.
   */
  readonly leaseHeld?: boolean;
  /** The stored cursor, read (strongly consistent) by the caller after it took its lease. */
  readonly cursor?: Cursor;
}

/** The backfill lane of a poll: what it did this time. */
export interface BackfillReport {
  /** The backfill's start (UTC ISO with Z). */
  readonly from: string;
  /**
   * completed: every record since `from` is published and the backfill is done; partial: out of
   * time, it resumes next poll; incomplete: rows moved while paging, it starts again next poll;
   * skipped: the regular poll used this invocation's time (or has no baseline yet).
   */
  readonly outcome: SourceOutcome;
  readonly pages: number;
  readonly records: number;
  readonly events: number;
}

export interface SourceReport {
  readonly source: string;
  /**
   * The regular poll's outcome; `partial` too when it completed but a backfill is still pending
   * (more polls needed). Counts (pages, records, events, ...) cover both lanes.
   */
  readonly outcome: SourceOutcome;
  /** The regular poll's scan. */
  readonly mode?: ScanMode;
  readonly reason?: string;
  readonly pages: number;
  readonly records: number;
  readonly events: number;
  readonly quarantined: number;
  readonly attempts: number;
  readonly watermark?: string;
  readonly publishedEvents: BridgeEvent[];
  /** Present when a backfill was pending at the start of this poll. */
  readonly backfill?: BackfillReport;
}

/**
 * Pages between checkpoints of a long scan. Checkpoints cost a read mark per record (one write
 * each), so short scans (tails, sweeps) never pay for them unless they run out of time.
 */
const CHECKPOINT_PAGES = 50;

export async function pollSource(
  deps: PollSourceDeps,
  ctx: Omit<ClubContext, 'observedAtMs'>,
  source: SourceDefinition,
  options: PollSourceOptions,
): Promise<SourceReport> {
  const { store } = deps;
  const observedAtMs = deps.now();
  checkBackfillStart(options.backfillFromMs, observedAtMs);
  if (options.leaseHeld) {
    return new SourcePoll(deps, { ...ctx, observedAtMs }, source, options).run();
  }
  const leaseTtl = options.leaseTtlMs ?? Math.max(60_000, options.deadlineMs - Date.now() + 60_000);
  if (!(await store.acquireLease(ctx.clubId, source.name, deps.owner, leaseTtl, Date.now()))) {
    return emptyReport(source.name, 'skipped', 'another poller holds the lease');
  }
  try {
    return await new SourcePoll(deps, { ...ctx, observedAtMs }, source, options).run();
  } finally {
    await store.releaseLease(ctx.clubId, source.name, deps.owner);
  }
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
    let cursor = upgradeCursor(
      this.options.cursor ?? (await store.getCursor(this.ctx.clubId, this.source.name)),
    );
    if (this.options.backfillFromMs !== undefined) {
      // Recorded before anything else, so that a poll that fails or runs out of time leaves it
      // pending: the next polls carry it on (the scheduler sees `backfillFrom`).
      const from = iso(this.options.backfillFromMs);
      if (cursor.backfillFrom !== from) {
        if (cursor.backfillFrom) {
          logger.info('backfill restarted from another start', {
            clubId: this.ctx.clubId,
            source: this.source.name,
            from,
            previousFrom: cursor.backfillFrom,
          });
        }
        const { backfillScan: _dropped, ...rest } = cursor;
        cursor = await store.putCursor({ ...rest, backfillFrom: from });
      }
    }
    const backfillFrom = cursor.backfillFrom;
    const regular = new SourceScan(this.deps, this.ctx, this.source, this.options, 'regular', cursor);
    const r = await regular.run();
    cursor = regular.cursor;
    if (backfillFrom === undefined) return r;
    // The backfill needs the regular polls' baseline first (a fresh table): otherwise their first
    // poll would be a silent baseline after it, and whatever changed in between would be lost.
    let b: SourceReport | undefined;
    if (cursor.backfillFrom !== undefined && cursor.baselineDone && !regular.outOfTime()) {
      const backfill = new SourceScan(this.deps, this.ctx, this.source, this.options, 'backfill', cursor);
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
      publishedEvents: b ? [...r.publishedEvents, ...b.publishedEvents] : r.publishedEvents,
      backfill: {
        from: backfillFrom,
        outcome: b ? b.outcome : 'skipped',
        pages: b?.pages ?? 0,
        records: b?.records ?? 0,
        events: b?.events ?? 0,
      },
    };
  }
}

function emptyReport(source: string, outcome: SourceOutcome, reason?: string): SourceReport {
  return {
    source,
    outcome,
    ...(reason ? { reason } : {}),
    pages: 0,
    records: 0,
    events: 0,
    quarantined: 0,
    attempts: 0,
    publishedEvents: [],
  };
}

class SourceScan {
  readonly #startMs: number;
  #cursor: Cursor;
  #pages = 0;
  #records = 0;
  #events = 0;
  #quarantined = 0;
  #attempts = 0;
  readonly #published: BridgeEvent[] = [];
  readonly #detection: AppendDetection | StateDetection;

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
    const publish: PublishPage = (page, quarantine) => this.#publish(page, quarantine);
    this.#detection =
      source.kind === 'append'
        ? new AppendDetection(deps.store, ctx, source, this.#startMs, publish)
        : new StateDetection(deps.store, ctx, source, publish);
  }

  /** The cursor as this lane left it (stored). */
  get cursor(): Cursor {
    return this.#cursor;
  }

  async run(): Promise<SourceReport> {
    const scan =
      this.lane === 'backfill'
        ? planBackfillScan(
            this.#cursor as Cursor & { backfillFrom: string },
            this.source,
            this.ctx,
            this.#startMs,
          )
        : planRegularScan(this.#cursor, this.source, this.ctx, this.#startMs);
    const maxAttempts = this.options.maxScanAttempts ?? 3;
    const startOffset = scan.nextOffset;
    // Rows read by earlier invocations of this scan carry read marks; without marks (a new scan)
    // the identities held in memory are the whole story.
    const resumed = (scan.distinct ?? 0) > 0;
    const seenIdentities = new Set<string>();
    /** Identities first read by this invocation (earlier ones are counted in `scan.distinct`). */
    const readHere = new Set<string>();
    let distinct = scan.distinct ?? 0;
    /**
     * Records beyond one per identity: rows that really share an identity (a door scanned twice in
     * one second). Only a single response proves it (offset drift repeats rows across pages), so
     * an identity counts as often as it appeared in one response, at most.
     */
    let extra = scan.repeats ?? 0;
    const multiplicity = new Map<string, number>();
    /** The record time of each identity read, for verifying suspected repeats. */
    const times = new Map<string, string>();
    /** Identities counted since the last saved progress, whose read marks are not written yet. */
    let unmarked: string[] = [];
    let maxRecordMs = scan.maxRecordTime ? Date.parse(scan.maxRecordTime) : undefined;
    let outcome: SourceOutcome = 'incomplete';
    const progress = (nextOffset: number, unidentified: number): EngineScan => ({
      ...scan,
      nextOffset,
      pages: scan.pages + this.#pages,
      records: scan.records + this.#records,
      distinct,
      unidentified,
      repeats: extra,
      ...(maxRecordMs === undefined ? {} : { maxRecordTime: new Date(maxRecordMs).toISOString() }),
    });
    /** Takes in one response's identities: the union, the distinct count, proven repeats. */
    const account = async (identities: readonly string[], recordTimes: ReadonlyMap<string, string>) => {
      const inPage = new Map<string, number>();
      for (const id of identities) inPage.set(id, (inPage.get(id) ?? 0) + 1);
      const firstSeen = [...inPage.keys()].filter((id) => !seenIdentities.has(id));
      for (const id of firstSeen) seenIdentities.add(id);
      const fresh = resumed ? await this.#notReadBefore(scan, firstSeen) : firstSeen;
      for (const id of fresh) readHere.add(id);
      distinct += fresh.length;
      unmarked.push(...fresh);
      for (const [id, n] of inPage) {
        const known = multiplicity.get(id) ?? 1;
        // Identities an earlier invocation read may have had their repeats counted there already.
        if (n > known && readHere.has(id)) {
          extra += n - known;
          multiplicity.set(id, n);
        }
      }
      for (const [id, time] of recordTimes) times.set(id, time);
    };

    while (this.#attempts < maxAttempts) {
      this.#attempts++;
      const counts = new Map<string, number>();
      let rowsCounted = 0;
      // Rows are counted from offset 0 of the attempt: a resumed attempt carries on the count of
      // unidentified rows of the invocations before it.
      let unidentified = this.#attempts === 1 ? (scan.unidentified ?? 0) : 0;
      let finished = false;
      let offset = this.#attempts === 1 ? startOffset : 0;
      try {
        for await (const page of this.#query(scan, offset)) {
          this.#pages++;
          const result = await this.#processPage(page, scan, seenIdentities);
          rowsCounted = page.offset + page.rawCount;
          unidentified += result.unidentified;
          for (const id of result.identities) counts.set(id, (counts.get(id) ?? 0) + 1);
          await account(result.identities, result.times);
          maxRecordMs = maxOf(maxRecordMs, result.maxRecordMs);
          offset = page.offset + page.rawCount;
          if (page.rawCount < page.limit) {
            finished = true;
            break;
          }
          // A checkpoint (read marks + progress) only when this invocation must stop, and every
          // CHECKPOINT_PAGES pages of a long scan; a crash in between re-reads from the last one.
          // A backfill checkpoints every page: it publishes every row it reads, so a page read
          // again is a page published again (a cursor write per page of up to 500 rows is cheap).
          const stopping = this.outOfTime();
          if (stopping || this.lane === 'backfill' || this.#pages % CHECKPOINT_PAGES === 0) {
            await this.#markRead(scan, unmarked);
            unmarked = [];
            await this.#saveProgress(progress(offset, unidentified));
          }
          if (stopping) break;
        }
      } catch (err) {
        // Out of time inside a request: keep what was committed, resume next poll.
        if (!(err instanceof DeadlineExceededError)) throw err;
      }
      if (!finished) {
        outcome = 'partial';
        break;
      }
      const complete = () => distinct + extra + unidentified >= rowsCounted;
      if (complete()) {
        outcome = 'completed';
        break;
      }
      // Identities read more often across pages than in any one response: drift, or records that
      // really share an identity and a page boundary. One response from their record time holds
      // the whole group of equal times: it proves real repeats (and reads a record drift skipped).
      const suspects = [...counts].filter(([id, n]) => n > (multiplicity.get(id) ?? 1)).map(([id]) => id);
      for (const time of new Set(suspects.map((id) => times.get(id)).filter((t) => t !== undefined))) {
        if (this.outOfTime()) break;
        const page = await this.#verificationPage(time);
        if (!page) break;
        this.#pages++;
        const result = await this.#processPage(page, scan, seenIdentities);
        // Only the group of this time, and only identities the attempt read: a record inserted
        // since must not stand in for one the attempt skipped.
        const group = result.identities.filter((id) => result.times.get(id) === time && counts.has(id));
        await account(group, new Map());
      }
      if (suspects.length > 0 && complete()) {
        outcome = 'completed';
        break;
      }
      logger.warn('scan read a row twice: offset drift or unstable ordering, re-reading', {
        clubId: this.ctx.clubId,
        source: this.source.name,
        attempt: this.#attempts,
        rows: rowsCounted,
        distinct,
      });
      if (this.outOfTime()) break;
      // The saved progress claims the rows before its offset were read; this attempt proved that
      // wrong. The re-read starts at 0: a crash during it must resume there, not at this attempt's end.
      await this.#markRead(scan, unmarked);
      unmarked = [];
      await this.#saveProgress(progress(0, 0));
    }

    await this.#finish(scan, outcome, maxRecordMs);
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

  outOfTime(): boolean {
    return Date.now() > this.options.deadlineMs - (this.options.reserveMs ?? 3000);
  }

  #query(scan: EngineScan, startOffset: number): AsyncGenerator<Page<OperationName>> {
    const query: Record<string, string> = scan.fromdate ? { [this.source.filterParam]: scan.fromdate } : {};
    return this.deps.client.pages(this.source.operation, query as never, {
      startOffset,
      deadline: this.options.deadlineMs,
      ...(this.options.pageSize ? { pageSize: this.options.pageSize } : {}),
    });
  }

  /**
   * `readBefore`: the identities this invocation already read (earlier pages and attempts). The
   * backfill publishes what it reads whatever the seen set says, so a record it meets again (a
   * re-read after offset drift, a verification page) is counted but not published again.
   */
  async #processPage(page: Page<OperationName>, scan: EngineScan, readBefore: ReadonlySet<string>) {
    const quarantine: QuarantineEntry[] = page.invalid.map((bad) => quarantineEntry(bad.raw, bad.issues));
    const identified: { id: string; item: unknown }[] = [];
    const times = new Map<string, string>();
    let maxRecordMs: number | undefined;
    for (const item of page.items) {
      const id = (this.source.identity as (i: unknown) => string | undefined)(item);
      if (id === undefined) {
        quarantine.push(quarantineEntry(item, 'record has no identity (required fields missing)'));
        continue;
      }
      const time = (this.source.recordTime as ((i: unknown) => string | null | undefined) | undefined)?.(
        item,
      );
      if (time) {
        const ms = toInstant(time, this.source.filterZone, this.ctx);
        maxRecordMs = maxOf(maxRecordMs, ms);
        times.set(id, time);
      }
      identified.push({ id, item });
    }
    this.#records += page.rawCount;
    const detect = this.lane === 'backfill' ? identified.filter((r) => !readBefore.has(r.id)) : identified;
    if (this.#detection instanceof AppendDetection)
      await this.#detection.detect(detect, scan.mode, quarantine);
    else await this.#detection.detect(detect, scan, quarantine);
    await this.#quarantine(quarantine);
    return {
      identities: identified.map((r) => r.id),
      unidentified: page.rawCount - identified.length,
      maxRecordMs,
      times,
    };
  }

  /**
   * The records from `time` on (the filter compares the field the record time is read from), in
   * one response as large as the API allows; undefined when out of time.
   */
  async #verificationPage(time: string): Promise<Page<OperationName> | undefined> {
    const query = { [this.source.filterParam]: time };
    try {
      for await (const page of this.deps.client.pages(this.source.operation, query as never, {
        deadline: this.options.deadlineMs,
        pageSize: MAX_PAGE_SIZE,
      })) {
        return page;
      }
    } catch (err) {
      if (!(err instanceof DeadlineExceededError)) throw err;
    }
    return undefined;
  }

  async #publish(page: PageEvents, quarantine: QuarantineEntry[]): Promise<void> {
    const delivered = await publishPageEvents(this.deps.sink, page, quarantine);
    this.#events += delivered.length;
    for (const e of delivered) this.#published.push(e);
  }

  async #quarantine(records: QuarantineEntry[]): Promise<void> {
    const where = { clubId: this.ctx.clubId, source: this.source.name, startMs: this.#startMs };
    this.#quarantined += await quarantineOnce(this.deps.store, where, records);
  }

  async #markRead(scan: EngineScan, identities: string[]): Promise<void> {
    if (identities.length === 0) return;
    const expiresAt = readMarkExpiresAt(this.#startMs);
    await this.deps.store.putSeen(
      this.ctx.clubId,
      this.source.name,
      identities.map((id) => readMarkKey(scan, id)),
      expiresAt,
    );
  }

  /** The identities an earlier invocation of this scan did not read (count). */
  async #notReadBefore(scan: EngineScan, identities: string[]): Promise<string[]> {
    if (identities.length === 0) return identities;
    const marks = new Map(identities.map((id) => [readMarkKey(scan, id), id]));
    const read = await this.deps.store.filterSeen(
      this.ctx.clubId,
      this.source.name,
      [...marks.keys()],
      Math.floor(this.#startMs / 1000),
    );
    return [...marks].filter(([mark]) => !read.has(mark)).map(([, id]) => id);
  }

  async #saveProgress(scan: EngineScan): Promise<void> {
    this.#cursor = await this.deps.store.putCursor(
      this.lane === 'backfill' ? { ...this.#cursor, backfillScan: scan } : { ...this.#cursor, scan },
    );
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
      this.#cursor = await this.deps.store.putCursor(
        cursorAfterRegularScan(this.#cursor, result, this.source, this.ctx, this.#startMs),
      );
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
}
