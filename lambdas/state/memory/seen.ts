/**
 * SeenStore in process memory: the keyed seen set and the time-ordered seen set (kept in key
 * order), with the DynamoDB adapter's semantics (expiry filtered on read, the same range bounds).
 */
import {
  assertEpochSeconds,
  assertSeenDigest,
  atOfSeenAtSk,
  fingerprintOfSeenAtSk,
  seenAtKey,
  seenAtMemo,
  seenAtPk,
  seenAtTag,
  seenDigestKey,
  seenKey,
  seenPk,
} from '../keys';
import { SortedStringMap } from '../sorted-string-map';
import type { FilterSeenOptions, SeenAt, SeenEntry, SeenSinceOptions, SeenStore, SourceName } from '../store';
import { validateSeenRange } from '../validation';
import { partitionOf } from './partitions';

/** An entry with more than its expiry: a group and value, a memo, or both. */
interface TaggedSeenAt {
  readonly expiresAt: number;
  readonly group?: string;
  readonly value?: string;
  readonly memo?: string;
  readonly announced?: true;
}

const expiryOf = (stored: number | TaggedSeenAt) => (typeof stored === 'number' ? stored : stored.expiresAt);

export class MemorySeenStore implements SeenStore {
  private readonly seen = new Map<string, Map<string, number>>();
  /**
   * Time-ordered seen partitions: sort key `<at>#<fingerprint>` -> expiresAt (or, for an entry
   * with a group and value, all three), kept in key order.
   */
  private readonly seenAt = new Map<string, SortedStringMap<number | TaggedSeenAt>>();

  /** Seen digests by `pk|sk`, with their expiry. */
  private readonly digests = new Map<string, { bytes: Uint8Array; expiresAt: number }>();

  async getSeenDigest(clubId: string, source: SourceName, nowSec: number): Promise<Uint8Array | undefined> {
    const { pk, sk } = seenDigestKey(clubId, source);
    const stored = this.digests.get(`${pk}|${sk}`);
    return stored && stored.expiresAt > nowSec ? Uint8Array.from(stored.bytes) : undefined;
  }

  async putSeenDigest(
    clubId: string,
    source: SourceName,
    digest: Uint8Array,
    expiresAtSec: number,
  ): Promise<void> {
    const { pk, sk } = seenDigestKey(clubId, source);
    const bytes = Uint8Array.from(assertSeenDigest(digest));
    this.digests.set(`${pk}|${sk}`, { bytes, expiresAt: assertEpochSeconds('expiresAtSec', expiresAtSec) });
  }

  async filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    _options?: FilterSeenOptions,
  ): Promise<Set<string>> {
    const pk = seenPk(clubId, source);
    const keys = fingerprints.map((fp) => seenKey(pk, fp));
    const partition = this.seen.get(pk);
    const out = new Set<string>();
    for (const { sk } of keys) {
      const expiresAt = partition?.get(sk);
      if (expiresAt !== undefined && expiresAt > nowSec) out.add(sk);
    }
    return out;
  }

  async putSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const keys = fingerprints.map((fp) => seenKey(pk, fp));
    const partition = partitionOf(this.seen, pk);
    for (const { sk } of keys) partition.set(sk, expiresAt);
  }

  async seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<Set<string>> {
    const out = new Set<string>();
    for (const [sk] of this.seenAtRange(clubId, source, fromAt, nowSec, options)) {
      out.add(fingerprintOfSeenAtSk(sk));
    }
    return out;
  }

  async seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<SeenEntry[]> {
    const out: SeenEntry[] = [];
    for (const [sk, stored] of this.seenAtRange(clubId, source, fromAt, nowSec, options)) {
      const entry = { fingerprint: fingerprintOfSeenAtSk(sk), at: atOfSeenAtSk(sk) };
      if (typeof stored === 'number') {
        out.push(entry);
        continue;
      }
      const { group, value, memo, announced } = stored;
      out.push({
        ...entry,
        ...(group === undefined ? {} : { group, value: value ?? '' }),
        ...(memo === undefined ? {} : { memo }),
        ...(announced ? { announced } : {}),
      });
    }
    return out;
  }

  /** The unexpired entries of `fromAt <= at < toAt`, in key order. */
  private *seenAtRange(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions,
  ): Generator<[string, number | TaggedSeenAt]> {
    const pk = seenAtPk(clubId, source);
    if (!validateSeenRange(fromAt, options.toAt, nowSec)) return;
    const partition = this.seenAt.get(pk);
    if (!partition) return;
    // The same bounds as the DynamoDB adapter's `sk BETWEEN :from AND :to` (see there).
    for (const [sk, stored] of partition.range(fromAt, options.toAt)) {
      if (expiryOf(stored) > nowSec) yield [sk, stored];
    }
  }

  async putSeenAt(
    clubId: string,
    source: SourceName,
    entries: readonly SeenAt[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenAtPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    // Validate every entry before writing any, as the DynamoDB adapter does.
    const items = entries.map((entry) => ({
      key: seenAtKey(pk, entry.at, entry.fingerprint),
      tag: seenAtTag(entry),
      memo: seenAtMemo(entry),
      announced: entry.announced === true,
    }));
    let partition = this.seenAt.get(pk);
    if (!partition) {
      partition = new SortedStringMap<number | TaggedSeenAt>();
      this.seenAt.set(pk, partition);
    }
    for (const { key, tag, memo, announced } of items) {
      const extra = {
        ...(tag ?? {}),
        ...(memo === undefined ? {} : { memo }),
        ...(announced ? { announced: true as const } : {}),
      };
      partition.set(key.sk, Object.keys(extra).length > 0 ? { expiresAt, ...extra } : expiresAt);
    }
  }
}
