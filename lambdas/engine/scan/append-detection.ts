/**
 * Append detection: a record's facets are new when their fingerprints are not in the seen set.
 * Regular lane: the facets not in the seen set are published (none in a baseline), then filed in
 * it. Backfill lane: every facet is published, seen or not (same eventIds); those the seen set
 * lacks and the regular polls can still meet are filed in it, so the next regular poll does not
 * publish them again. Facets with a `track` learn their group's earlier values from the seen set.
 *
 * Sources with a seen digest (`seenDigest`), in tails and sweeps: pages are held (up to
 * DIGEST_BUFFER_ROWS rows) and detected together when the scan flushes (before a checkpoint and
 * at its end), so each hour's keys are summed whole and compared with the digest (seen-digest.ts);
 * only the hours it does not vouch for have their seen entries read. The scan's end puts the
 * digest of what it read, when it changed.
 */

import { logger } from '../../common/logger';
import { DAY_MS } from '../../common/time-units';
import { notesOfSeenAt } from '../../lifecycle/lifecycle-input';
import { toInstant } from '../../sources/record-time';
import { type AppendSource, type ClubContext, type Facet, tailLookbackFor } from '../../sources/source';
import type { ClubSeen, LifecycleNoting } from '../../state/state-store';
import type { SeenAt } from '../../state/store';
import { fingerprint } from './fingerprint';
import { addEvents, emptyPageEvents, type PublishPage } from './publish-commit';
import { eventErrorReason, type QuarantineEntry, quarantineEntry } from './quarantine';
import { type Detection, type IdentifiedRecord, iso, type ScanMode } from './scan-types';
import {
  type DigestBucket,
  decodeSeenDigest,
  encodeSeenDigest,
  HourSums,
  nextSeenDigest,
  vouchedHours,
} from './seen-digest';
import { SeenWindow, seenTag } from './seen-window';
import { SourceReads } from './source-reads';

/** Rows a digest scan holds before it detects them (a few MB at most: a sweep is flushed in parts). */
export const DIGEST_BUFFER_ROWS = 5_000;

/** Seen keys outlive the regular polls' window by this margin (a zone misreading). */
const SEEN_MARGIN_MS = 2 * DAY_MS;

interface FacetRead {
  readonly facet: Facet;
  readonly item: unknown;
  /**
   * The record's instant for the time-ordered seen set (whole ms, years 0-9999), or undefined. Its
   * ISO form (the seen entry's `at`) is made only where a string is needed: keys to file, the
   * seen set's untimed-or-not lookups (seenAmong).
   */
  readonly atMs: number | undefined;
}

/** A scan's mode, or 'lane': a fast-lane session's page (lane-page.ts), detected as a tail is, without the digest. */
type DetectMode = ScanMode | 'lane';

/** A digest scan's state: the stored digest (read once), the sums of what it read, its held rows. */
interface DigestScan {
  readonly mode: ScanMode;
  stored?: { readonly bytes: Uint8Array; readonly buckets: DigestBucket[] };
  read: boolean;
  readonly sums: HourSums;
  held: IdentifiedRecord[];
}

export class AppendDetection implements Detection {
  readonly #seen: SeenWindow;
  #digest: DigestScan | undefined;
  #alreadySeen = 0;

  constructor(
    private readonly store: ClubSeen & LifecycleNoting,
    private readonly ctx: ClubContext,
    private readonly source: AppendSource,
    private readonly startMs: number,
    private readonly publish: PublishPage,
    /** How the seen set and digest are read, and the mark a write leaves (source-reads.ts). */
    private readonly reads: SourceReads = new SourceReads(false),
  ) {
    this.#seen = new SeenWindow(store, source.name, startMs, reads);
  }

  /** Facets detected so far that were in the seen set already (published before). */
  get alreadySeen(): number {
    return this.#alreadySeen;
  }

  /**
   * Detects a page's records, or (a digest scan) holds them until `flush`: then `quarantine` is not
   * added to here; `flush` returns what it quarantines.
   */
  async detect(
    records: readonly IdentifiedRecord[],
    scan: { readonly mode: DetectMode },
    quarantine: QuarantineEntry[],
  ): Promise<void> {
    const { mode } = scan;
    if (this.source.seenDigest && (mode === 'tail' || mode === 'sweep')) {
      this.#digest ??= { mode, read: false, sums: new HourSums(), held: [] };
      this.#digest.held.push(...records);
      if (this.#digest.held.length >= DIGEST_BUFFER_ROWS) quarantine.push(...(await this.flush()));
      return;
    }
    await this.#detectNow(this.#facetsOf(records), mode, quarantine, undefined);
  }

  /** Detects the rows a digest scan holds; returns the records it quarantined. */
  async flush(): Promise<QuarantineEntry[]> {
    const scan = this.#digest;
    const quarantine: QuarantineEntry[] = [];
    if (!scan || scan.held.length === 0) return quarantine;
    const facets = this.#facetsOf(scan.held);
    scan.held = [];
    for (const [key, { atMs }] of facets) if (atMs !== undefined) scan.sums.add(key, atMs);
    await this.#detectNow(facets, scan.mode, quarantine, await this.#vouched(scan));
    return quarantine;
  }

  /**
   * After the scan's last flush: puts the digest of every key it read (all are in the seen set now),
   * when it differs from the stored one. A failed put is logged: the stored digest stays true.
   */
  async finish(): Promise<void> {
    const scan = this.#digest;
    if (!scan || scan.held.length > 0 || scan.sums.size === 0) return;
    const window = this.#window();
    const buckets = nextSeenDigest(scan.stored?.buckets ?? [], scan.sums, {
      nowMs: this.startMs,
      days: scan.mode === 'sweep',
      pruneBeforeMs: this.startMs - window - SEEN_MARGIN_MS,
    });
    if (buckets.length === 0) return;
    const bytes = encodeSeenDigest(buckets);
    if (scan.stored && Buffer.from(scan.stored.bytes).equals(bytes)) return;
    // The cursor's mark first, outside the try: its failure is the cursor's, as any other.
    await this.reads.beforeWrite();
    try {
      const expiresAt = Math.ceil((this.startMs + window + SEEN_MARGIN_MS) / 1000);
      await this.store.putSeenDigest(this.source.name, bytes, expiresAt);
      scan.stored = { bytes, buckets };
    } catch (err) {
      logger.warn('seen digest not written: the next scan reads more of the seen set', {
        clubId: this.ctx.clubId,
        source: this.source.name,
        err,
      });
    }
  }

  /** The hours the stored digest vouches for, given everything the scan has read so far. */
  async #vouched(scan: DigestScan): Promise<Set<number>> {
    if (!scan.read) {
      scan.read = true;
      try {
        const bytes = await this.store.getSeenDigest(
          this.source.name,
          this.#nowSec(),
          this.reads.readOptions(),
        );
        const buckets = bytes && decodeSeenDigest(bytes);
        if (bytes && buckets) scan.stored = { bytes, buckets };
        else if (bytes) {
          logger.warn('seen digest unreadable: ignored, and written again', {
            clubId: this.ctx.clubId,
            source: this.source.name,
            bytes: bytes.length,
          });
        }
      } catch (err) {
        logger.warn('seen digest not read: the seen set is read instead', {
          clubId: this.ctx.clubId,
          source: this.source.name,
          err,
        });
      }
    }
    return scan.stored ? vouchedHours(scan.stored.buckets, scan.sums) : new Set();
  }

  async #detectNow(
    facets: Map<string, FacetRead>,
    mode: DetectMode,
    quarantine: QuarantineEntry[],
    vouched: ReadonlySet<number> | undefined,
  ): Promise<void> {
    if (facets.size === 0) return;
    const backfill = mode === 'backfill';
    const keys = [...facets.keys()];
    const msOf = (k: string) => facets.get(k)!.atMs;
    // The backfill publishes untimed facets without asking the per-key set (one read per key).
    const asked = backfill ? keys.filter((k) => msOf(k) !== undefined) : keys;
    const seen = vouched
      ? await this.#seen.seenVouched(asked, msOf, vouched)
      : await this.#seen.seenAmong(asked, (k) => isoOf(msOf(k)));
    const fresh = keys.filter((k) => !seen.has(k));
    this.#alreadySeen += keys.length - fresh.length;
    const publish = backfill ? keys : fresh;
    if (publish.length === 0) return;
    if (vouched) {
      // A tracked facet's earlier values may be in hours the digest vouched for (not read).
      let earliest: number | undefined;
      for (const k of keys) {
        const ms = msOf(k);
        if (ms !== undefined && (earliest === undefined || ms < earliest)) earliest = ms;
      }
      if (earliest !== undefined && publish.some((k) => facets.get(k)!.facet.track))
        await this.#seen.loadFrom(iso(earliest));
    }
    const page = emptyPageEvents();
    const built = new Map<string, string[]>();
    if (mode !== 'baseline') {
      for (const key of publish) built.set(key, this.#buildEvents(facets.get(key)!, page, quarantine));
    }
    const delivered = new Set(
      ((await this.publish(page, quarantine)) ?? page.events).map((e) => e.detail.eventId),
    );
    // Filed as announced: the facets every event of which was delivered (explain's eventIds).
    const announced = new Set<string>();
    for (const [key, ids] of built)
      if (ids.length > 0 && ids.every((id) => delivered.has(id))) announced.add(key);
    await this.#fileSeen(fresh, facets, backfill, announced);
  }

  /** The longest window the regular polls read (the seen keys' and the digest's reach). */
  #window(): number {
    return Math.max(tailLookbackFor(this.source, this.ctx), this.source.sweep?.windowMs ?? 0);
  }

  #nowSec(): number {
    return Math.floor(this.startMs / 1000);
  }

  #facetsOf(records: readonly IdentifiedRecord[]): Map<string, FacetRead> {
    const facets = new Map<string, FacetRead>();
    const facetsOf = this.source.facets as (i: unknown, id: string) => Facet[];
    for (const record of records) {
      const { id, item } = record;
      const atMs = seenTime(record.atMs ?? this.#recordMs(item));
      for (const facet of facetsOf(item, id)) facets.set(fingerprint(facet.key), { facet, item, atMs });
    }
    return facets;
  }

  /** Adds the facet's events to the page; their eventIds (none when they could not be built). */
  #buildEvents(
    { facet, item }: FacetRead,
    page: ReturnType<typeof emptyPageEvents>,
    quarantine: QuarantineEntry[],
  ): string[] {
    try {
      const earlier = facet.track ? this.#seen.earlierValues(facet.track) : undefined;
      const events = facet.events(this.ctx, earlier);
      addEvents(page, events, item);
      return events.map((e) => e.detail.eventId);
    } catch (err) {
      quarantine.push(quarantineEntry(item, eventErrorReason(err)));
      return [];
    }
  }

  /**
   * Files the fresh keys in the seen set (the backfill: only those the regular polls can meet),
   * those whose events were all delivered marked announced (explain shows their eventIds).
   */
  async #fileSeen(
    fresh: readonly string[],
    facets: ReadonlyMap<string, FacetRead>,
    backfill: boolean,
    announced: ReadonlySet<string>,
  ) {
    const window = this.#window();
    const expiresAt = Math.ceil((this.startMs + window + SEEN_MARGIN_MS) / 1000);
    // What the regular polls can still read: their window, with the margin for a zone misreading.
    const reach = iso(this.startMs - window - SEEN_MARGIN_MS);
    const timed: SeenAt[] = [];
    const untimed: string[] = [];
    for (const key of fresh) {
      const { atMs, facet } = facets.get(key)!;
      if (atMs === undefined) {
        if (!backfill) untimed.push(key);
        continue;
      }
      const at = iso(atMs);
      if (backfill && at < reach) continue;
      const tag = facet.track ? seenTag(facet.track) : undefined;
      timed.push({
        fingerprint: key,
        at,
        ...(tag ?? {}),
        ...(facet.memo === undefined ? {} : { memo: facet.memo }),
        ...(announced.has(key) ? { announced: true as const } : {}),
      });
      this.#seen.add(key, tag);
    }
    for (const key of untimed) this.#seen.add(key);
    if (timed.length > 0 || untimed.length > 0) await this.reads.beforeWrite();
    if (timed.length > 0) {
      const notes = notesOfSeenAt(this.source.name, timed);
      if (notes) this.store.noteLifecycle(notes);
      await this.store.putSeenAt(this.source.name, timed, expiresAt);
    }
    if (untimed.length > 0) await this.store.putSeen(this.source.name, untimed, expiresAt);
  }

  /** The instant (UTC ms) of the record's time; undefined if it has none or it cannot be read. */
  #recordMs(item: unknown): number | undefined {
    const recordTime = this.source.recordTime as ((i: unknown) => string | null | undefined) | undefined;
    const value = recordTime?.(item);
    if (!value) return undefined;
    try {
      return toInstant(value, this.source.filterZone, this.ctx);
    } catch {
      return undefined;
    }
  }
}

/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: the years of the 24-character ISO form. */
const SEEN_TIME_MIN_MS = -62_167_219_200_000;
const SEEN_TIME_END_MS = 253_402_300_800_000;

/**
 * An instant as the time-ordered seen set takes it (what `Date.parse` reads back from its ISO
 * form: whole ms), or undefined outside the fixed 24-character form the set sorts by (years before
 * 0 or after 9999) or when it is not a number.
 */
export function seenTime(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  const whole = Math.trunc(ms) || 0; // -0 reads back as 0
  return whole >= SEEN_TIME_MIN_MS && whole < SEEN_TIME_END_MS ? whole : undefined;
}

const isoOf = (ms: number | undefined) => (ms === undefined ? undefined : iso(ms));
