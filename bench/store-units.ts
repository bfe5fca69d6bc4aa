/**
 * What each call of the state store port costs in DynamoDB, as the DynamoDB adapter makes it: the
 * API requests, the items and the read and write request units (dynamo-units.ts), from the sizes
 * of the items the call reads or writes. BatchGetItem per 100 keys, BatchWriteItem per 25 items, a
 * Query per 1 MB page; outside a poll, the club state item is read with a GetItem, billed on the
 * whole item's size (a poll's session reads it with its opening write).
 */
import { clubStateItemBytes } from '../lambdas/state/club-state';
import {
  encodeLifecycle,
  LIFECYCLE_SK,
  lifecycleItems,
  type StoredLifecycle,
} from '../lambdas/state/lifecycle-items';
import type { LifecycleNotes } from '../lambdas/state/lifecycle-notes';
import { packSeenAt, seenAtQueryEnd } from '../lambdas/state/seen-packs';
import { SortedStringMap } from '../lambdas/state/sorted-string-map';
import type { StateStore, StoreMethod } from '../lambdas/state/state-store';
import type {
  ClubStateSession,
  ClubStateSummary,
  Cursor,
  FilterSeenOptions,
  QuarantinedRecord,
  SeenAt,
  SeenSinceOptions,
  Snapshot,
  SnapshotKind,
  SourceName,
} from '../lambdas/state/store';
import { itemBytes, readUnits, writeUnits } from './dynamo-units';

/** API requests, items and request units of one side (read or write) of a call. */
export interface Usage {
  readonly requests: number;
  readonly items: number;
  readonly units: number;
}

export interface Bill {
  readonly read?: Usage;
  readonly write?: Usage;
}

/** The club state item's size with these cursors, a live lease and a counter (as a poll writes it). */
export function stateBytes(clubId: string, cursors: readonly Cursor[], notes?: LifecycleNotes): number {
  return clubStateItemBytes(clubId, {
    ...(notes ? { lifecycleNotes: notes } : {}),
    version: 123456,
    // The poll Lambda's owner: poll:<request id>:<message id>:<the club's place in the message>.
    leaseOwner: `poll:${'x'.repeat(36)}:${'y'.repeat(36)}:19`,
    leaseExpiresAtMs: 1e12,
    cursors: [...cursors],
    quotaMonth: '2026-01',
    quotaRequests: 123456,
  });
}

const seenItem = (clubId: string, source: string, fp: string) => ({
  pk: `CLUB#${clubId}#SEEN#${source}`,
  sk: fp,
  expiresAt: 1e9,
});
/** DynamoDB ends a Query page once it has read 1 MB. */
const QUERY_PAGE_BYTES = 1024 * 1024;

/**
 * Requests and read units of a Query that reads items of these sizes: a page per 1 MB read (as
 * dynalite pages: an item starts a new page once the current one holds 1 MB or more), each page's
 * bytes rounded up to 4 KB units (at least 1), halved when eventually consistent.
 */
export function queryCost(
  sizes: Iterable<number>,
  consistentRead: boolean,
): { requests: number; units: number } {
  const pages: number[] = [0];
  for (const size of sizes) {
    if ((pages[pages.length - 1] as number) >= QUERY_PAGE_BYTES) pages.push(0);
    pages[pages.length - 1] = (pages[pages.length - 1] as number) + size;
  }
  // A full last page still carries a LastEvaluatedKey: one more (empty) page says it was the end.
  if ((pages[pages.length - 1] as number) >= QUERY_PAGE_BYTES) pages.push(0);
  let units = 0;
  for (const bytes of pages) units += readUnits(bytes) * (consistentRead ? 1 : 0.5);
  return { requests: pages.length, units };
}

const snapshotItem = (clubId: string, kind: string, s: Snapshot) => ({
  pk: `CLUB#${clubId}#${kind}`,
  sk: s.id,
  ...s,
});

const usage = (requests: number, items: number, units: number): Usage => ({ requests, items, units });

/** The club state item read whole (a GetItem). */
async function stateItem(inner: StateStore, clubId: string): Promise<Bill> {
  const bytes = stateBytes(clubId, await inner.view(clubId).listCursors());
  return { read: usage(1, 1, readUnits(bytes)) };
}

/** A Query of the time-ordered seen set (none when its range is empty): the unexpired packs in its key range. */
function seenQuery(inner: StateStore, args: readonly unknown[]): Bill {
  const [clubId, source, fromAt, nowSec, options] = args as [
    string,
    SourceName,
    string,
    number,
    SeenSinceOptions?,
  ];
  if (options?.toAt !== undefined && options.toAt <= fromAt) return {}; // answered without a request
  const end = options?.toAt === undefined ? undefined : seenAtQueryEnd(options.toAt);
  const sizes = shadowRange(inner, `CLUB#${clubId}#SEENT#${source}`, fromAt, end, nowSec);
  const { requests, units } = queryCost(sizes, options?.consistentRead === true);
  return { read: usage(requests, sizes.length, units) };
}

type Rule = (inner: StateStore, args: readonly unknown[], result: unknown) => Bill | Promise<Bill>;

/**
 * The lifecycle document's items (lifecycle-items.ts: one, or a head and its pieces): each one's
 * keys, version (and write id) and gzipped bytes (binary: their length).
 */
const lifecycleItemSizes = (clubId: string, doc: unknown, version: number): number[] => {
  const { head, pieces } = lifecycleItems(clubId, 'base', encodeLifecycle(clubId, doc), version - 1);
  const keys = (sk: string) => itemBytes({ pk: `CLUB#${clubId}`, sk, v: version });
  return [
    keys(LIFECYCLE_SK) + 1 + head.d.length + (head.w ? 12 : 0),
    ...pieces.map((p) => keys(p.sk) + 1 + p.d.length + 10),
  ];
};

/** The seen digest item: its keys, the expiry and the digest (binary: its length). */
const seenDigestItemBytes = (clubId: string, source: string, digest: Uint8Array) =>
  itemBytes({ pk: `CLUB#${clubId}`, sk: `SEENDIGEST#${source}`, expiresAt: 1e9 }) + 1 + digest.length;

/**
 * The cost of each port method, from its arguments and its result. Expired seen items still inside
 * a range are read (and billed) by DynamoDB too, but a wrapper cannot see them; the engine's
 * windows are far younger than the TTL.
 */
const RULES: Record<StoreMethod, Rule> = {
  // Sized from its own answer: no read of the item to bill it (a units check counts every read).
  readCursors: (_inner, [clubId], cursors) => ({
    read: usage(1, 1, readUnits(stateBytes(clubId as string, cursors as Cursor[]))),
  }),
  readQuotaUsage: (inner, [clubId]) => stateItem(inner, clubId as string),
  /** One conditional UpdateItem (ReturnValues ALL_OLD: the read comes with it). */
  openClub: async (_inner, [clubId], session) => {
    const cursors = session ? await (session as ClubStateSession).listCursors() : [];
    const notes = session ? (session as ClubStateSession).lifecycleNotes() : undefined;
    return { write: usage(1, 1, writeUnits(stateBytes(clubId as string, cursors, notes))) };
  },
  /** BatchGetItem, 100 keys a call, eventually consistent (half a unit per 4 KB item). */
  readClubStates: (_inner, [clubIds], states) => {
    let units = 0;
    for (const [clubId, state] of states as Map<string, ClubStateSummary>)
      units += readUnits(stateBytes(clubId, state.cursors)) * 0.5;
    const n = (clubIds as readonly string[]).length;
    return { read: usage(Math.ceil(n / 100), n, units) };
  },
  /** Every key costs a read, found or not: 1 RRU strongly consistent, 0.5 eventually consistent. */
  filterSeen: (_inner, [, , fingerprints, , options]) => {
    const unique = new Set(fingerprints as string[]).size;
    const perKey = (options as FilterSeenOptions | undefined)?.consistentRead === false ? 0.5 : 1;
    return { read: usage(Math.ceil(unique / 100), unique, unique * perKey) };
  },
  putSeen: (_inner, [clubId, source, fingerprints]) => {
    const unique = [...new Set(fingerprints as string[])];
    let units = 0;
    for (const fp of unique) units += writeUnits(itemBytes(seenItem(clubId as string, source as string, fp)));
    return { write: usage(Math.ceil(unique.length / 25), unique.length, units) };
  },
  /** One Query over the packs in its key range (seen-packs.ts), as the adapter writes them. */
  seenSince: (inner, args) => seenQuery(inner, args),
  seenEntriesSince: (inner, args) => seenQuery(inner, args),
  /** The call's packs (an item per UTC hour of its entries, at most PACK_BYTES each), BatchWriteItem 25. */
  putSeenAt: (inner, [clubId, source, entries, expiresAt]) => {
    const pk = `CLUB#${clubId}#SEENT#${source}`;
    const packs = packSeenAt(pk, entries as readonly SeenAt[]);
    let units = 0;
    for (const { sk, p } of packs) {
      const bytes = itemBytes({ pk, sk, expiresAt: 1e9, w: 1e12, p });
      shadowPut(inner, pk, sk, { bytes, expiresAt: expiresAt as number });
      units += writeUnits(bytes);
    }
    return { write: usage(Math.ceil(packs.length / 25), packs.length, units) };
  },
  /** One GetItem: half a unit per 4 KB, found or not, eventually consistent; a whole one strongly. */
  getSeenDigest: (_inner, [clubId, source, , options], digest) => {
    const bytes = digest ? seenDigestItemBytes(clubId as string, source as string, digest as Uint8Array) : 0;
    const share = (options as { consistentRead?: boolean } | undefined)?.consistentRead === true ? 1 : 0.5;
    return { read: usage(1, 1, readUnits(bytes) * share) };
  },
  putSeenDigest: (_inner, [clubId, source, digest]) => ({
    write: usage(
      1,
      1,
      writeUnits(seenDigestItemBytes(clubId as string, source as string, digest as Uint8Array)),
    ),
  }),
  /** Half a unit per 4 KB item, found or not, eventually consistent; a whole one strongly. */
  getSnapshots: (_inner, [clubId, kind, ids, options], found) => {
    const unique = new Set(ids as string[]).size;
    const snapshots = found as Map<string, Snapshot>;
    const share = (options as { consistentRead?: boolean } | undefined)?.consistentRead === true ? 1 : 0.5;
    let units = (unique - snapshots.size) * share;
    for (const s of snapshots.values())
      units += readUnits(itemBytes(snapshotItem(clubId as string, kind as SnapshotKind, s))) * share;
    return { read: usage(Math.ceil(unique / 100), unique, units) };
  },
  putSnapshots: (_inner, [clubId, kind, snapshots]) => {
    const byId = new Map((snapshots as Snapshot[]).map((s) => [s.id, s]));
    let units = 0;
    for (const s of byId.values())
      units += writeUnits(itemBytes(snapshotItem(clubId as string, kind as SnapshotKind, s)));
    return { write: usage(Math.ceil(byId.size / 25), byId.size, units) };
  },
  /** One Query of the kind's partition, billed by the bytes read (strongly consistent: twice). */
  listSnapshots: (_inner, [clubId, kind, options], found) => {
    const sizes = [...(found as Map<string, Snapshot>).values()].map((s) =>
      itemBytes(snapshotItem(clubId as string, kind as SnapshotKind, s)),
    );
    const consistent = (options as { consistentRead?: boolean } | undefined)?.consistentRead === true;
    const { requests, units } = queryCost(sizes, consistent);
    return { read: usage(requests, sizes.length, units) };
  },
  /** GetItem (and a BatchGetItem of the pieces), strongly consistent: a unit per 4 KB of each item. */
  getLifecycle: (_inner, [clubId], found) => {
    const stored = found as StoredLifecycle | undefined;
    // Strongly consistent: an absent item costs a whole unit too.
    if (!stored || stored.unreadable) return { read: usage(1, stored ? 1 : 0, 1) };
    const sizes = lifecycleItemSizes(clubId as string, stored.doc, stored.version);
    const units = sizes.reduce((n, b) => n + readUnits(b), 0);
    return { read: usage(sizes.length > 1 ? 2 : 1, sizes.length, units) };
  },
  /** One conditional PutItem (after a BatchWriteItem of the pieces): a unit per 1 KB of each item. */
  putLifecycle: (_inner, [clubId, doc, expected]) => {
    const sizes = lifecycleItemSizes(clubId as string, doc, (expected as number) + 1);
    const units = sizes.reduce((n, b) => n + writeUnits(b), 0);
    return { write: usage(1 + Math.ceil((sizes.length - 1) / 25), sizes.length, units) };
  },
  putQuarantined: (_inner, [clubId, , records]) => {
    let units = 0;
    for (const r of records as QuarantinedRecord[])
      units += writeUnits(itemBytes({ pk: clubId, sk: r.at + r.key, ...r, raw: JSON.stringify(r.raw) }));
    const n = (records as QuarantinedRecord[]).length;
    return { write: usage(Math.ceil(n / 25), n, units) };
  },
  listQuarantined: (_inner, _args, records) => {
    const n = (records as QuarantinedRecord[]).length;
    return { read: usage(1, n, readUnits(n * 1024)) };
  },
};

/** What a call of `method` cost, from its arguments and result (`inner` answers the sizes). */
export function billOf(method: StoreMethod, inner: StateStore, args: readonly unknown[], result: unknown) {
  const rule = RULES[method];
  return rule(inner, args, result);
}

/** A session's own write (checkpoint or close): one conditional UpdateItem of the whole item. */
export function sessionWriteBill(clubId: string, cursors: readonly Cursor[], notes?: LifecycleNotes): Bill {
  return { write: usage(1, 1, writeUnits(stateBytes(clubId, cursors, notes))) };
}

/**
 * The packs of the time-ordered seen set each counted store was given (seen-packs.ts), per
 * partition in key order: a Query's cost is the size of the items in its key range, which a
 * wrapper cannot see in the entries it returns (a pack at the range's edge is read whole, a re-put
 * entry sits in two packs). The store's units above price the seen set's calls from it.
 */
/** A pack as the model keeps it: its size and expiry, under its sort key. */
export interface ShadowPack {
  readonly bytes: number;
  readonly expiresAt: number;
}

const SHADOW = new WeakMap<StateStore, Map<string, SortedStringMap<ShadowPack>>>();

function shadowOf(inner: StateStore, pk: string): SortedStringMap<ShadowPack> {
  let partitions = SHADOW.get(inner);
  if (!partitions) {
    partitions = new Map();
    SHADOW.set(inner, partitions);
  }
  let packs = partitions.get(pk);
  if (!packs) {
    packs = new SortedStringMap();
    partitions.set(pk, packs);
  }
  return packs;
}

/** Files a pack written to `inner` (a re-put of its key replaces it). */
export function shadowPut(inner: StateStore, pk: string, sk: string, pack: ShadowPack): void {
  shadowOf(inner, pk).set(sk, pack);
}

/** The sizes of the unexpired packs with `from <= sk <= end` (no `end`: to the partition's end). */
export function shadowRange(
  inner: StateStore,
  pk: string,
  from: string,
  end: string | undefined,
  nowSec: number,
): number[] {
  const sizes: number[] = [];
  for (const [, pack] of shadowOf(inner, pk).range(from, end)) {
    if (pack.expiresAt > nowSec) sizes.push(pack.bytes);
  }
  return sizes;
}
