/**
 * SeenStore on the item table (item-table.ts), one implementation for both adapters: the keyed
 * seen set (one item per fingerprint, read by BatchGetItem), the time-ordered seen set (packs of a
 * call's entries per hour, seen-packs.ts, and the entry items `<at>#<fingerprint>` of earlier
 * releases; one paginated Query per window) and the seen digest (one item per source). Expired
 * items are filtered here, on read.
 */
import type { Item, ItemTable } from './item-table';
import {
  assertEpochSeconds,
  assertSeenDigest,
  atOfSeenAtSk,
  fingerprintOfSeenAtSk,
  isUnexpired,
  seenAtPk,
  seenDigestKey,
  seenKey,
  seenPk,
} from './keys';
import { isPackSk, packSeenAt, seenAtQueryEnd, unpackSeenAt } from './seen-packs';
import type { FilterSeenOptions, SeenAt, SeenEntry, SeenSinceOptions, SeenStore, SourceName } from './store';
import { validateSeenRange } from './validation';

/**
 * When a pack is written (`w`, epoch ms), strictly increasing in the process: of two puts of one
 * entry in the same millisecond, the later still wins on read.
 */
let lastWrite = 0;
function writeTime(): number {
  lastWrite = Math.max(Date.now(), lastWrite + 1);
  return lastWrite;
}

/** What a time-ordered seen read needs of an item: `g`, `v`, `m`, `p` cost nothing extra in a Query. */
const SEEN_AT_PROJECTION = ['sk', 'expiresAt', 'g', 'v', 'm', 'p', 'w'];

export class SeenItemStore implements SeenStore {
  constructor(private readonly table: ItemTable) {}

  async filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options: FilterSeenOptions = {},
  ): Promise<Set<string>> {
    const pk = seenPk(clubId, source);
    const keys = [...new Set(fingerprints)].map((fp) => seenKey(pk, fp));
    const items = await this.table.batchGet(keys, {
      consistent: options.consistentRead ?? true,
      projection: ['sk', 'expiresAt'],
    });
    const seen = new Set<string>();
    for (const item of items) {
      if (isUnexpired(item.expiresAt, nowSec)) seen.add(String(item.sk));
    }
    return seen;
  }

  async putSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const items = [...new Set(fingerprints)].map((fp) => ({ ...seenKey(pk, fp), expiresAt }));
    await this.table.batchWrite(items);
  }

  async seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<Set<string>> {
    const entries = await this.seenEntriesSince(clubId, source, fromAt, nowSec, options);
    return new Set(entries.map((entry) => entry.fingerprint));
  }

  async seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<SeenEntry[]> {
    const items = await this.querySeenAt(clubId, source, fromAt, nowSec, options);
    const { toAt } = options;
    // One entry per `<at>#<fingerprint>`: the latest written (packs carry `w`; entry items of the
    // layout before packs count as the oldest), in key order.
    const latest = new Map<string, { entry: SeenEntry; w: number }>();
    for (const item of items) {
      const w = typeof item.w === 'number' ? item.w : -1;
      for (const entry of entriesOfItem(item)) {
        if (entry.at < fromAt || (toAt !== undefined && entry.at >= toAt)) continue;
        const key = `${entry.at}#${entry.fingerprint}`;
        const held = latest.get(key);
        if (!held || w >= held.w) latest.set(key, { entry, w });
      }
    }
    return [...latest.keys()].sort().map((key) => (latest.get(key) as { entry: SeenEntry }).entry);
  }

  async putSeenAt(
    clubId: string,
    source: SourceName,
    entries: readonly SeenAt[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenAtPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const w = writeTime();
    await this.table.batchWrite(packSeenAt(pk, entries).map(({ sk, p }) => ({ pk, sk, expiresAt, w, p })));
  }

  async getSeenDigest(
    clubId: string,
    source: SourceName,
    nowSec: number,
    options: { readonly consistentRead?: boolean } = {},
  ): Promise<Uint8Array | undefined> {
    const item = await this.table.get(seenDigestKey(clubId, source), {
      consistent: options.consistentRead === true,
    });
    if (!item || !isUnexpired(item.expiresAt, nowSec)) return undefined;
    return item.d instanceof Uint8Array ? item.d : undefined;
  }

  async putSeenDigest(
    clubId: string,
    source: SourceName,
    digest: Uint8Array,
    expiresAtSec: number,
  ): Promise<void> {
    await this.table.put({
      ...seenDigestKey(clubId, source),
      d: assertSeenDigest(digest),
      expiresAt: assertEpochSeconds('expiresAtSec', expiresAtSec),
    });
  }

  /**
   * The unexpired items that may hold entries of `fromAt <= at < toAt`, in key order (one Query,
   * followed to the end): packs up to the end of `toAt`'s hour (seen-packs.ts), entry items too.
   */
  private async querySeenAt(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions,
  ): Promise<Item[]> {
    const pk = seenAtPk(clubId, source);
    const { toAt } = options;
    if (!validateSeenRange(fromAt, toAt, nowSec)) return [];
    // BETWEEN is inclusive, but an entry item's sort key is `<at>#<fingerprint>`, longer than the
    // bound and so after it when its `at` equals it: such an entry is read only when in range.
    const to = toAt === undefined ? undefined : seenAtQueryEnd(toAt);
    return this.table.query(
      { pk, from: fromAt, ...(to === undefined ? {} : { to }) },
      {
        consistent: options.consistentRead ?? false,
        projection: SEEN_AT_PROJECTION,
        keep: (item) => isUnexpired(item.expiresAt, nowSec),
      },
    );
  }
}

/** The entries a time-ordered seen item holds: a pack's, or the one of an entry item. */
function entriesOfItem(item: Item): SeenEntry[] {
  const sk = String(item.sk);
  if (isPackSk(sk)) return unpackSeenAt(sk, item.p);
  const tagged = typeof item.g === 'string' && typeof item.v === 'string';
  return [
    {
      fingerprint: fingerprintOfSeenAtSk(sk),
      at: atOfSeenAtSk(sk),
      ...(tagged ? { group: item.g as string, value: item.v as string } : {}),
      ...(typeof item.m === 'string' ? { memo: item.m } : {}),
    },
  ];
}
