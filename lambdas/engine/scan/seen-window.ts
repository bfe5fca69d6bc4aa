/**
 * The time-ordered seen set as one scan knows it: every key from the earliest record time the scan
 * has met onwards (loaded once per extension), and the values of tracked facets by hashed group.
 */

import type { SourceName } from '../../common/source-names';
import { HOUR_MS } from '../../common/time-units';
import type { ClubSeen } from '../../state/state-store';
import { fingerprint } from './fingerprint';
import { hourOf } from './seen-digest';
import { SourceReads } from './source-reads';

/** Seen-entry groups are stored hashed (no payment ids in the table), this long. */
const SEEN_GROUP_CHARS = 16;
/** Longest value kept with a seen entry, in UTF-8 bytes (the store's limit). */
const SEEN_VALUE_BYTES = 256;

export interface Track {
  readonly group: string;
  readonly value: string;
}

/** A tracked facet's group (hashed: no record ids in the table) and value, as stored. */
export function seenTag(track: Track): { group: string; value: string } {
  let value = track.value.slice(0, SEEN_VALUE_BYTES);
  while (Buffer.byteLength(value, 'utf8') > SEEN_VALUE_BYTES) value = value.slice(0, -1);
  return { group: fingerprint(`G|${track.group}`).slice(0, SEEN_GROUP_CHARS), value };
}

export class SeenWindow {
  /** Keys of the time-ordered seen set known to this scan: every one from `#seenFrom` on. */
  readonly #loaded = new Set<string>();
  #seenFrom: string | undefined;
  /** Hours whose seen entries were read one hour or run of hours at a time (seenVouched). */
  readonly #hoursLoaded = new Set<number>();
  /** Values of tracked facets in the loaded seen set (and written by this scan), by hashed group. */
  readonly #groups = new Map<string, Set<string>>();

  constructor(
    private readonly store: ClubSeen,
    private readonly source: SourceName,
    private readonly startMs: number,
    /** How the seen set is read (strongly consistent after a write: source-reads.ts). */
    private readonly reads: SourceReads = new SourceReads(false),
  ) {}

  /**
   * Which of a page's facet keys are seen. Keys of records with a time are looked up in the
   * time-ordered seen set: the scan loads every seen key from the earliest record time it has met
   * onwards, one Query per extension (pages come in time order, so a scan reads its window's keys
   * once, about 40 keys per half read unit), instead of one read per key. Keys of records without
   * a time use the per-key set. Eventually consistent (half the read units) unless the previous
   * poll wrote (source-reads.ts): a key written moments ago by this poll and read as unseen only
   * re-publishes its events with the same eventIds; it never loses one.
   */
  async seenAmong(
    keys: readonly string[],
    timeOf: (key: string) => string | undefined,
  ): Promise<Set<string>> {
    const untimed: string[] = [];
    let earliest: string | undefined;
    for (const key of keys) {
      const at = timeOf(key);
      if (at === undefined) untimed.push(key);
      else if (earliest === undefined || at < earliest) earliest = at;
    }
    if (earliest !== undefined) await this.#loadFrom(earliest);
    const seen = new Set(keys.filter((k) => this.#loaded.has(k)));
    if (untimed.length > 0) {
      const found = await this.store.filterSeen(
        this.source,
        untimed,
        this.#nowSec(),
        this.reads.readOptions(),
      );
      for (const key of found) seen.add(key);
    }
    return seen;
  }

  /**
   * Which keys are seen, when a seen digest vouches for some hours (seen-digest.ts): keys of those
   * hours are seen without a read; the seen entries of the other hours the keys fall in are read,
   * an hour at a time or a run of hours in one Query; untimed keys are asked one by one.
   */
  async seenVouched(
    keys: readonly string[],
    timeMsOf: (key: string) => number | undefined,
    vouched: ReadonlySet<number>,
  ): Promise<Set<string>> {
    const seen = new Set<string>();
    const untimed: string[] = [];
    const unvouched: string[] = [];
    const hours = new Set<number>();
    for (const key of keys) {
      const ms = timeMsOf(key);
      if (ms === undefined) {
        untimed.push(key);
        continue;
      }
      const hour = hourOf(ms);
      if (vouched.has(hour)) seen.add(key);
      else {
        unvouched.push(key);
        hours.add(hour);
      }
    }
    await this.#loadHours([...hours].sort((a, b) => a - b));
    for (const key of unvouched) if (this.#loaded.has(key)) seen.add(key);
    if (untimed.length > 0) {
      const found = await this.store.filterSeen(
        this.source,
        untimed,
        this.#nowSec(),
        this.reads.readOptions(),
      );
      for (const key of found) seen.add(key);
    }
    return seen;
  }

  /** Loads the seen entries from `earliest` onwards (what a tracked facet's earlier values need). */
  async loadFrom(earliest: string): Promise<void> {
    await this.#loadFrom(earliest);
  }

  /** Files keys this scan wrote, so later pages see them. */
  add(key: string, tag?: { group: string; value: string }): void {
    this.#loaded.add(key);
    if (tag) this.#remember(tag.group, tag.value);
  }

  /** The values seen before for this facet's group, other than its own. */
  earlierValues(track: Track): string[] {
    const { group, value } = seenTag(track);
    return [...(this.#groups.get(group) ?? [])].filter((v) => v !== value);
  }

  /** Reads the seen entries of these hours (ascending) not read yet: one Query per run of hours. */
  async #loadHours(hours: readonly number[]): Promise<void> {
    const missing = hours.filter(
      (h) =>
        !this.#hoursLoaded.has(h) &&
        !(this.#seenFrom !== undefined && new Date(h * HOUR_MS).toISOString() >= this.#seenFrom),
    );
    let i = 0;
    while (i < missing.length) {
      let j = i;
      while (j + 1 < missing.length && missing[j + 1] === missing[j]! + 1) j++;
      const fromAt = new Date(missing[i]! * HOUR_MS).toISOString();
      const toAt = new Date((missing[j]! + 1) * HOUR_MS).toISOString();
      const more = await this.store.seenEntriesSince(this.source, fromAt, this.#nowSec(), {
        ...this.reads.readOptions(),
        toAt,
      });
      for (const entry of more) {
        this.#loaded.add(entry.fingerprint);
        if (entry.group !== undefined && entry.value !== undefined) this.#remember(entry.group, entry.value);
      }
      for (let h = missing[i]!; h <= missing[j]!; h++) this.#hoursLoaded.add(h);
      i = j + 1;
    }
  }

  async #loadFrom(earliest: string): Promise<void> {
    if (this.#seenFrom !== undefined && earliest >= this.#seenFrom) return;
    const more = await this.store.seenEntriesSince(this.source, earliest, this.#nowSec(), {
      ...this.reads.readOptions(),
      ...(this.#seenFrom === undefined ? {} : { toAt: this.#seenFrom }),
    });
    for (const entry of more) {
      this.#loaded.add(entry.fingerprint);
      if (entry.group !== undefined && entry.value !== undefined) this.#remember(entry.group, entry.value);
    }
    this.#seenFrom = earliest;
  }

  #remember(group: string, value: string): void {
    const values = this.#groups.get(group);
    if (values) values.add(value);
    else this.#groups.set(group, new Set([value]));
  }

  #nowSec(): number {
    return Math.floor(this.startMs / 1000);
  }
}
