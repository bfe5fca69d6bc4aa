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
import { type EventSink, PublishError } from '../events/publisher';
import { DeadlineExceededError, type GymApiClient, MAX_PAGE_SIZE, type Page } from '../gym-api';
import type { OperationName } from '../gym-api/operations';
import { toInstant } from '../sources/record-time';
import {
  type AppendSource,
  type ClubContext,
  type SourceDefinition,
  type StateSource,
  tailLookbackFor,
} from '../sources/source';
import type { Cursor, QuarantinedRecord, SeenAt, Snapshot, StateStore } from '../state/store';
import { cursorAfterBackfill, cursorAfterRegularScan, type ScanResult } from './scan/cursor-transition';
import { fingerprint } from './scan/fingerprint';
import { checkBackfillStart, planBackfillScan, planRegularScan, upgradeCursor } from './scan/plan';
import { eventErrorReason, type QuarantineEntry, quarantineEntry } from './scan/quarantine';
import { readMarkExpiresAt, readMarkKey } from './scan/read-marks';
import { type EngineScan, iso, type Lane, maxOf, type ScanMode, type SourceOutcome } from './scan/scan-types';
import { splitIntent, withIntent } from './scan/snapshot-intent';

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

const SEEN_MARGIN_MS = 2 * 86_400_000;
/**
 * Pages between checkpoints of a long scan. Checkpoints cost a read mark per record (one write
 * each), so short scans (tails, sweeps) never pay for them unless they run out of time.
 */
const CHECKPOINT_PAGES = 50;

/** Seen-entry groups are stored hashed (no payment ids in the table), this long. */
const SEEN_GROUP_CHARS = 16;
/** Longest value kept with a seen entry, in UTF-8 bytes (the store's limit). */
const SEEN_VALUE_BYTES = 256;

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
  /** Keys of the time-ordered seen set known to this scan: every one from `#seenFrom` on. */
  readonly #seenLoaded = new Set<string>();
  #seenFrom: string | undefined;
  /** Values of tracked facets in the loaded seen set (and written by this scan), by hashed group. */
  readonly #groups = new Map<string, Set<string>>();

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
    if (this.source.kind === 'append') {
      await this.#detectAppend(this.source, detect, scan.mode, quarantine);
    } else {
      await this.#detectState(this.source, detect, scan, quarantine);
    }
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

  /**
   * Regular lane: the facets not in the seen set are published (none in a baseline), then filed in
   * it. Backfill lane: every facet is published, seen or not (same eventIds); those the seen set
   * lacks and the regular polls can still meet are filed in it, so the next regular poll does not
   * publish them again. Facets with a `track` learn their group's earlier values from the seen set.
   */
  async #detectAppend(
    source: AppendSource,
    records: { id: string; item: unknown }[],
    mode: ScanMode,
    quarantine: QuarantineEntry[],
  ): Promise<void> {
    const facets = new Map<
      string,
      { facet: ReturnType<AppendSource['facets']>[number]; item: unknown; at: string | undefined }
    >();
    for (const { id, item } of records) {
      const at = this.#recordAt(source, item);
      for (const facet of (source.facets as (i: unknown, id: string) => ReturnType<AppendSource['facets']>)(
        item,
        id,
      )) {
        facets.set(fingerprint(facet.key), { facet, item, at });
      }
    }
    if (facets.size === 0) return;
    const backfill = mode === 'backfill';
    const keys = [...facets.keys()];
    // The backfill publishes untimed facets without asking the per-key set (one read per key).
    const seen = await this.#seenAmong(
      source,
      backfill ? keys.filter((k) => facets.get(k)!.at !== undefined) : keys,
      facets,
    );
    const fresh = keys.filter((k) => !seen.has(k));
    const publish = backfill ? keys : fresh;
    if (publish.length === 0) return;
    const events: BridgeEvent[] = [];
    const origins = new Map<string, unknown>();
    if (mode !== 'baseline') {
      for (const key of publish) {
        const { facet, item } = facets.get(key)!;
        try {
          const earlier = facet.track ? this.#earlierValues(facet.track) : undefined;
          for (const event of facet.events(this.ctx, earlier)) {
            events.push(event);
            origins.set(event.detail.eventId, item);
          }
        } catch (err) {
          quarantine.push(quarantineEntry(item, eventErrorReason(err)));
        }
      }
    }
    await this.#publish(events, origins, quarantine);
    const window = Math.max(tailLookbackFor(source, this.ctx), source.sweep?.windowMs ?? 0);
    const expiresAt = Math.ceil((this.#startMs + window + SEEN_MARGIN_MS) / 1000);
    // What the regular polls can still read: their window, with the margin for a zone misreading.
    const reach = iso(this.#startMs - window - SEEN_MARGIN_MS);
    const timed: SeenAt[] = [];
    const untimed: string[] = [];
    for (const key of fresh) {
      const { at, facet } = facets.get(key)!;
      if (at === undefined) {
        if (!backfill) untimed.push(key);
        continue;
      }
      if (backfill && at < reach) continue;
      const tag = facet.track ? this.#tag(facet.track) : undefined;
      timed.push(tag ? { fingerprint: key, at, ...tag } : { fingerprint: key, at });
      if (tag) this.#remember(tag.group, tag.value);
      this.#seenLoaded.add(key);
    }
    for (const key of untimed) this.#seenLoaded.add(key);
    if (timed.length > 0) await this.deps.store.putSeenAt(this.ctx.clubId, source.name, timed, expiresAt);
    if (untimed.length > 0) await this.deps.store.putSeen(this.ctx.clubId, source.name, untimed, expiresAt);
  }

  /** A tracked facet's group (hashed: no record ids in the table) and value, as stored. */
  #tag(track: { group: string; value: string }): { group: string; value: string } {
    let value = track.value.slice(0, SEEN_VALUE_BYTES);
    while (Buffer.byteLength(value, 'utf8') > SEEN_VALUE_BYTES) value = value.slice(0, -1);
    return { group: fingerprint(`G|${track.group}`).slice(0, SEEN_GROUP_CHARS), value };
  }

  #remember(group: string, value: string): void {
    const values = this.#groups.get(group);
    if (values) values.add(value);
    else this.#groups.set(group, new Set([value]));
  }

  /** The values seen before for this facet's group, other than its own. */
  #earlierValues(track: { group: string; value: string }): string[] {
    const { group, value } = this.#tag(track);
    return [...(this.#groups.get(group) ?? [])].filter((v) => v !== value);
  }

  /**
   * The record's instant (UTC ISO with ms) for the time-ordered seen set; undefined if it has none,
   * or one outside the fixed 24-character form the set sorts by (years before 0 or after 9999).
   */
  #recordAt(source: AppendSource, item: unknown): string | undefined {
    const value = (source.recordTime as ((i: unknown) => string | null | undefined) | undefined)?.(item);
    if (!value) return undefined;
    try {
      const ms = toInstant(value, source.filterZone, this.ctx);
      const iso = Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
      return iso?.length === 24 ? iso : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Which of a page's facet keys are seen. Keys of records with a time are looked up in the
   * time-ordered seen set: the scan loads every seen key from the earliest record time it has met
   * onwards, one Query per extension (pages come in time order, so a scan reads its window's keys
   * once, about 40 keys per half read unit), instead of one read per key. Keys of records without
   * a time use the per-key set. Eventually consistent (half the read units): a key written moments
   * ago and read as unseen only re-publishes its events with the same eventIds; it never loses one.
   */
  async #seenAmong(
    source: AppendSource,
    keys: readonly string[],
    facets: ReadonlyMap<string, { at: string | undefined }>,
  ): Promise<Set<string>> {
    const nowSec = Math.floor(this.#startMs / 1000);
    const untimed: string[] = [];
    let earliest: string | undefined;
    for (const key of keys) {
      const { at } = facets.get(key)!;
      if (at === undefined) untimed.push(key);
      else if (earliest === undefined || at < earliest) earliest = at;
    }
    if (earliest !== undefined && (this.#seenFrom === undefined || earliest < this.#seenFrom)) {
      const more = await this.deps.store.seenEntriesSince(this.ctx.clubId, source.name, earliest, nowSec, {
        consistentRead: false,
        ...(this.#seenFrom === undefined ? {} : { toAt: this.#seenFrom }),
      });
      for (const entry of more) {
        this.#seenLoaded.add(entry.fingerprint);
        if (entry.group !== undefined && entry.value !== undefined) this.#remember(entry.group, entry.value);
      }
      this.#seenFrom = earliest;
    }
    const seen = new Set(keys.filter((k) => this.#seenLoaded.has(k)));
    if (untimed.length > 0) {
      const found = await this.deps.store.filterSeen(this.ctx.clubId, source.name, untimed, nowSec, {
        consistentRead: false,
      });
      for (const key of found) seen.add(key);
    }
    return seen;
  }

  async #detectState(
    source: StateSource,
    records: { id: string; item: unknown }[],
    scan: EngineScan,
    quarantine: QuarantineEntry[],
  ): Promise<void> {
    const latest = new Map<string, unknown>();
    for (const { id, item } of records) latest.set(id, item);
    if (latest.size === 0) return;
    const previous = await this.deps.store.getSnapshots(this.ctx.clubId, source.snapshotKind, [
      ...latest.keys(),
    ]);
    const changed: Snapshot[] = [];
    const events: BridgeEvent[] = [];
    const origins = new Map<string, unknown>();
    const snapshotOf = source.snapshot as (
      i: unknown,
      id: string,
      p: Snapshot | undefined,
      c: ClubContext,
    ) => Snapshot;
    const diff = source.diff as (
      p: Snapshot | undefined,
      i: unknown,
      n: Snapshot,
      c: ClubContext,
    ) => BridgeEvent[];
    const backfill = source.backfillEvents as
      | ((i: unknown, n: Snapshot, c: ClubContext, from: number) => BridgeEvent[])
      | undefined;
    const transitions = (before: Snapshot | undefined, item: unknown, next: Snapshot): BridgeEvent[] => {
      if (scan.mode === 'baseline') return [];
      return diff(before, item, next, this.ctx);
    };
    /** What this page is about to publish, written before it is published (see `withIntent`). */
    const intents: Snapshot[] = [];
    if (scan.mode === 'backfill') {
      // Every subject's backfill events (e.g. Member Joined since the start), known or not, in the
      // status its first announcement had (the snapshot's `firstStatus`): the regular poll's
      // eventIds. Stored snapshots are left alone (their next diff is the regular polls'); a
      // subject announced here that has none gets the one a regular poll would have written.
      for (const [id, item] of latest) {
        const stored = previous.get(id);
        const { committed, published } = splitIntent(stored);
        const next = snapshotOf(item, id, published.at(-1) ?? committed, this.ctx);
        let built: BridgeEvent[] = [];
        try {
          built =
            backfill && scan.backfillFromMs !== undefined
              ? backfill(item, next, this.ctx, scan.backfillFromMs)
              : [];
          // A subject it announces without a snapshot gets the one a regular poll would have
          // written: it also publishes what that poll's first sighting would have (e.g. a
          // cancellation already set), or no later diff would.
          if (!stored && built.length > 0) {
            const ids = new Set(built.map((e) => e.detail.eventId));
            built.push(...diff(undefined, item, next, this.ctx).filter((e) => !ids.has(e.detail.eventId)));
          }
        } catch (err) {
          quarantine.push(quarantineEntry(item, eventErrorReason(err)));
        }
        for (const event of built) {
          events.push(event);
          origins.set(event.detail.eventId, item);
        }
        if (!stored && built.length > 0) {
          intents.push(withIntent(undefined, [next]));
          changed.push(next);
        }
      }
      if (intents.length > 0)
        await this.deps.store.putSnapshots(this.ctx.clubId, source.snapshotKind, intents);
      await this.#publish(events, origins, quarantine);
      if (changed.length > 0)
        await this.deps.store.putSnapshots(this.ctx.clubId, source.snapshotKind, changed);
      return;
    }
    for (const [id, item] of latest) {
      const { committed, published } = splitIntent(previous.get(id));
      const last = published.at(-1) ?? committed;
      const next = snapshotOf(item, id, last, this.ctx);
      if (published.length === 0 && committed && committed.hash === next.hash) continue;
      const moved = !last || last.hash !== next.hash;
      const built: BridgeEvent[] = [];
      try {
        // Polls that failed before their commit may have published committed -> ... -> last, and
        // the subject may have moved on since (even back): publish those again (same ids:
        // consumers de-duplicate) and carry on from there, so no consumer keeps a state that is gone.
        let before = committed;
        for (const state of published) {
          built.push(...transitions(before, item, state));
          before = state;
        }
        if (moved) built.push(...transitions(last, item, next));
      } catch (err) {
        quarantine.push(quarantineEntry(item, eventErrorReason(err)));
      }
      for (const event of built) {
        events.push(event);
        origins.set(event.detail.eventId, item);
      }
      if (built.length > 0) intents.push(withIntent(committed, moved ? [...published, next] : published));
      changed.push(next);
    }
    if (intents.length > 0) await this.deps.store.putSnapshots(this.ctx.clubId, source.snapshotKind, intents);
    await this.#publish(events, origins, quarantine);
    if (changed.length > 0) await this.deps.store.putSnapshots(this.ctx.clubId, source.snapshotKind, changed);
  }

  /**
   * Publishes a page's events. An event too large for EventBridge even alone can never be
   * delivered: its record is quarantined (once, with the reason) instead of failing every poll of
   * the source from now on. Any other failure fails the poll.
   */
  async #publish(
    events: BridgeEvent[],
    origins: ReadonlyMap<string, unknown>,
    quarantine: QuarantineEntry[],
  ): Promise<void> {
    if (events.length === 0) return;
    let delivered = events;
    try {
      await this.deps.sink.publish(events);
    } catch (err) {
      if (!(err instanceof PublishError) || err.oversizedEventIds.length === 0) throw err;
      const oversized = new Set(err.oversizedEventIds);
      if (err.failedEventIds.some((id) => !oversized.has(id))) throw err;
      for (const id of oversized) {
        const raw = origins.get(id);
        quarantine.push(
          quarantineEntry(
            raw,
            'its event is larger than the PutEvents limit (256 KB) and cannot be published',
          ),
        );
      }
      delivered = events.filter((e) => !oversized.has(e.detail.eventId));
    }
    this.#events += delivered.length;
    for (const e of delivered) this.#published.push(e);
  }

  /** Quarantines each bad record once (a mark in the seen set), with its reason. */
  async #quarantine(records: QuarantineEntry[]): Promise<void> {
    if (records.length === 0) return;
    const unique = new Map(records.map((r) => [r.key, r]));
    const { store } = this.deps;
    const nowSec = Math.floor(this.#startMs / 1000);
    const known = await store.filterSeen(this.ctx.clubId, this.source.name, [...unique.keys()], nowSec);
    const fresh = [...unique.values()].filter((r) => !known.has(r.key));
    if (fresh.length === 0) return;
    const at = new Date(this.#startMs).toISOString();
    const items: QuarantinedRecord[] = fresh.map((r) => ({ key: r.key, reason: r.reason, raw: r.raw, at }));
    const expiresAt = nowSec + 30 * 86_400;
    await store.putQuarantined(this.ctx.clubId, this.source.name, items, expiresAt);
    await store.putSeen(
      this.ctx.clubId,
      this.source.name,
      items.map((r) => r.key),
      expiresAt,
    );
    this.#quarantined += fresh.length;
    logger.warn('records quarantined', {
      clubId: this.ctx.clubId,
      source: this.source.name,
      count: fresh.length,
      reasons: [...new Set(fresh.map((r) => r.reason.slice(0, 200)))].slice(0, 5),
    });
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
