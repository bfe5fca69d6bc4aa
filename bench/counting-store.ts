/**
 * A StateStore wrapper that counts what the bridge asks of its store: calls per method, the
 * DynamoDB API calls they become (BatchGetItem per 100 keys, BatchWriteItem per 25 items, a Query
 * per 1 MB page; a poll's club state item: one UpdateItem to open, one to close, one per
 * checkpoint, each billed on the whole item's size), items, read and write request units
 * (dynamo-units.ts), and the wall time spent inside the store. Semantics are the wrapped store's: every call is passed through unchanged.
 */
import { clubStateItemBytes } from '../lambdas/state/club-state';
import type {
  ClubSession,
  ClubStateSummary,
  Cursor,
  FilterSeenOptions,
  QuarantinedRecord,
  SeenAt,
  SeenEntry,
  SeenSinceOptions,
  Snapshot,
  SnapshotKind,
  SourceName,
  StateStore,
} from '../lambdas/state/store';
import { itemBytes, readUnits, writeUnits } from './dynamo-units';
import { entryOf } from './stats';

export interface StoreCounts {
  /** Port calls per method. */
  calls: Record<string, number>;
  /** DynamoDB API requests these calls become. */
  apiRequests: number;
  itemsRead: number;
  itemsWritten: number;
  readUnits: number;
  writeUnits: number;
  /** Wall time inside store calls, ms. */
  wallMs: number;
  /** Items and request units per port method. */
  byMethod: Record<string, { items: number; readUnits: number; writeUnits: number }>;
}

export function emptyStoreCounts(): StoreCounts {
  return {
    calls: {},
    apiRequests: 0,
    itemsRead: 0,
    itemsWritten: 0,
    readUnits: 0,
    writeUnits: 0,
    wallMs: 0,
    byMethod: {},
  };
}

export function addStoreCounts(into: StoreCounts, more: StoreCounts): StoreCounts {
  for (const [k, v] of Object.entries(more.calls)) into.calls[k] = (into.calls[k] ?? 0) + v;
  into.apiRequests += more.apiRequests;
  into.itemsRead += more.itemsRead;
  into.itemsWritten += more.itemsWritten;
  into.readUnits += more.readUnits;
  into.writeUnits += more.writeUnits;
  into.wallMs += more.wallMs;
  for (const [k, v] of Object.entries(more.byMethod)) {
    const t = entryOf(into.byMethod, k, () => ({ items: 0, readUnits: 0, writeUnits: 0 }));
    t.items += v.items;
    t.readUnits += v.readUnits;
    t.writeUnits += v.writeUnits;
  }
  return into;
}

/** The club state item's size with these cursors, a live lease and a counter (as a poll writes it). */
function stateBytes(clubId: string, cursors: readonly Cursor[]): number {
  return clubStateItemBytes(clubId, {
    version: 123456,
    leaseOwner: `poll:${'x'.repeat(36)}:${'y'.repeat(36)}`,
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
/**
 * A time-ordered seen item; every `at` is 24 characters, so only the fingerprint and the optional
 * group and value (`g`, `v`: payments' Id hash and Response) vary its size.
 */
const seenAtItem = (
  clubId: string,
  source: string,
  fp: string,
  tag?: { readonly group?: string; readonly value?: string },
) => ({
  pk: `CLUB#${clubId}#SEENT#${source}`,
  sk: `${'0'.repeat(24)}#${fp}`,
  expiresAt: 1e9,
  ...(tag?.group === undefined ? {} : { g: tag.group, v: tag.value ?? '' }),
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

export class CountingStateStore implements StateStore {
  counts: StoreCounts = emptyStoreCounts();

  constructor(private readonly inner: StateStore) {}

  /** Returns the counts so far and starts new ones. */
  take(): StoreCounts {
    const taken = this.counts;
    this.counts = emptyStoreCounts();
    return taken;
  }

  async #timed<T>(method: string, run: () => Promise<T>): Promise<T> {
    this.counts.calls[method] = (this.counts.calls[method] ?? 0) + 1;
    const started = performance.now();
    try {
      return await run();
    } finally {
      this.counts.wallMs += performance.now() - started;
    }
  }

  #byMethod(method: string) {
    return entryOf(this.counts.byMethod, method, () => ({ items: 0, readUnits: 0, writeUnits: 0 }));
  }

  #read(method: string, requests: number, items: number, units: number): void {
    this.counts.apiRequests += requests;
    this.counts.itemsRead += items;
    this.counts.readUnits += units;
    const m = this.#byMethod(method);
    m.items += items;
    m.readUnits += units;
  }

  #write(method: string, requests: number, items: number, units: number): void {
    this.counts.apiRequests += requests;
    this.counts.itemsWritten += items;
    this.counts.writeUnits += units;
    const m = this.#byMethod(method);
    m.items += items;
    m.writeUnits += units;
  }

  /** Outside a poll: one GetItem of the club state item. */
  getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    return this.#timed('getCursor', async () => {
      const cursors = await this.inner.listCursors(clubId);
      this.#read('getCursor', 1, 1, readUnits(stateBytes(clubId, cursors)));
      return this.inner.getCursor(clubId, source);
    });
  }

  listCursors(clubId: string): Promise<Cursor[]> {
    return this.#timed('listCursors', async () => {
      const cursors = await this.inner.listCursors(clubId);
      this.#read('listCursors', 1, 1, readUnits(stateBytes(clubId, cursors)));
      return cursors;
    });
  }

  /** Outside a poll: a GetItem and a conditional UpdateItem of the club state item. */
  putCursor(cursor: Cursor): Promise<Cursor> {
    return this.#timed('putCursor', async () => {
      const stored = await this.inner.putCursor(cursor);
      const bytes = stateBytes(cursor.clubId, await this.inner.listCursors(cursor.clubId));
      this.#read('putCursor', 1, 1, readUnits(bytes));
      this.#write('putCursor', 1, 1, writeUnits(bytes));
      return stored;
    });
  }

  /** One conditional UpdateItem (ReturnValues ALL_NEW: the read comes with it). */
  openClub(clubId: string, owner: string, ttlMs: number, nowMs: number): Promise<ClubSession | undefined> {
    return this.#timed('openClub', async () => {
      const session = await this.inner.openClub(clubId, owner, ttlMs, nowMs);
      const cursors = session ? await session.listCursors(clubId) : [];
      this.#write('openClub', 1, 1, writeUnits(stateBytes(clubId, cursors)));
      return session && new CountingClubSession(session, this);
    });
  }

  /** BatchGetItem, 100 keys a call, eventually consistent (half a unit per 4 KB item). */
  readClubStates(clubIds: readonly string[], month: string): Promise<Map<string, ClubStateSummary>> {
    return this.#timed('readClubStates', async () => {
      const states = await this.inner.readClubStates(clubIds, month);
      let units = 0;
      for (const [clubId, state] of states) units += readUnits(stateBytes(clubId, state.cursors)) * 0.5;
      this.#read('readClubStates', Math.ceil(clubIds.length / 100), clubIds.length, units);
      return states;
    });
  }

  /** A session's own write (checkpoint or close): one conditional UpdateItem of the whole item. */
  countSessionWrite(method: string, clubId: string, cursors: readonly Cursor[]): void {
    this.counts.calls[method] = (this.counts.calls[method] ?? 0) + 1;
    this.#write(method, 1, 1, writeUnits(stateBytes(clubId, cursors)));
  }

  filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options?: FilterSeenOptions,
  ) {
    return this.#timed('filterSeen', async () => {
      const unique = new Set(fingerprints).size;
      // Every key costs a read, found or not: 1 RRU strongly consistent, 0.5 eventually consistent.
      const perKey = options?.consistentRead === false ? 0.5 : 1;
      this.#read('filterSeen', Math.ceil(unique / 100), unique, unique * perKey);
      return this.inner.filterSeen(clubId, source, fingerprints, nowSec, options);
    });
  }

  putSeen(clubId: string, source: SourceName, fingerprints: string[], expiresAtSec: number) {
    return this.#timed('putSeen', async () => {
      const unique = [...new Set(fingerprints)];
      let units = 0;
      for (const fp of unique) units += writeUnits(itemBytes(seenItem(clubId, source, fp)));
      this.#write('putSeen', Math.ceil(unique.length / 25), unique.length, units);
      return this.inner.putSeen(clubId, source, fingerprints, expiresAtSec);
    });
  }

  /**
   * Counts the items returned. Expired items still inside the range are read (and billed) by
   * DynamoDB too, but a wrapper cannot see them; the engine's windows are far younger than the TTL.
   */
  seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<Set<string>> {
    return this.#timed('seenSince', async () => {
      const seen = await this.inner.seenSince(clubId, source, fromAt, nowSec, options);
      const emptyRange = options?.toAt !== undefined && options.toAt <= fromAt;
      if (emptyRange) return seen; // answered without a request
      const sizes = [...seen].map((fp) => itemBytes(seenAtItem(clubId, source, fp)));
      const { requests, units } = queryCost(sizes, options?.consistentRead === true);
      this.#read('seenSince', requests, seen.size, units);
      return seen;
    });
  }

  /** The same Query as seenSince (and counted under its name), sized with each item's group and value. */
  seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<SeenEntry[]> {
    return this.#timed('seenSince', async () => {
      const entries = await this.inner.seenEntriesSince(clubId, source, fromAt, nowSec, options);
      const emptyRange = options?.toAt !== undefined && options.toAt <= fromAt;
      if (emptyRange) return entries; // answered without a request
      const sizes = entries.map((e) => itemBytes(seenAtItem(clubId, source, e.fingerprint, e)));
      const { requests, units } = queryCost(sizes, options?.consistentRead === true);
      this.#read('seenSince', requests, entries.length, units);
      return entries;
    });
  }

  putSeenAt(clubId: string, source: SourceName, entries: readonly SeenAt[], expiresAtSec: number) {
    return this.#timed('putSeenAt', async () => {
      const unique = new Map(entries.map((e) => [`${e.at}#${e.fingerprint}`, e]));
      let units = 0;
      for (const e of unique.values())
        units += writeUnits(itemBytes(seenAtItem(clubId, source, e.fingerprint, e)));
      this.#write('putSeenAt', Math.ceil(unique.size / 25), unique.size, units);
      return this.inner.putSeenAt(clubId, source, entries, expiresAtSec);
    });
  }

  getSnapshots(clubId: string, kind: SnapshotKind, ids: string[]) {
    return this.#timed('getSnapshots', async () => {
      const unique = new Set(ids).size;
      const found = await this.inner.getSnapshots(clubId, kind, ids);
      // Eventually consistent: half a unit per 4 KB item, found or not.
      let units = (unique - found.size) * 0.5;
      for (const s of found.values()) units += readUnits(itemBytes(snapshotItem(clubId, kind, s))) * 0.5;
      this.#read('getSnapshots', Math.ceil(unique / 100), unique, units);
      return found;
    });
  }

  putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]) {
    return this.#timed('putSnapshots', async () => {
      const byId = new Map(snapshots.map((s) => [s.id, s]));
      let units = 0;
      for (const s of byId.values()) units += writeUnits(itemBytes(snapshotItem(clubId, kind, s)));
      this.#write('putSnapshots', Math.ceil(byId.size / 25), byId.size, units);
      return this.inner.putSnapshots(clubId, kind, snapshots);
    });
  }

  /** Outside a poll: a GetItem and a conditional UpdateItem of the club state item. */
  addQuotaUsage(clubId: string, month: string, requests: number) {
    return this.#timed('addQuotaUsage', async () => {
      const bytes = stateBytes(clubId, await this.inner.listCursors(clubId));
      this.#read('addQuotaUsage', 1, 1, readUnits(bytes));
      this.#write('addQuotaUsage', 1, 1, writeUnits(bytes));
      return this.inner.addQuotaUsage(clubId, month, requests);
    });
  }

  getQuotaUsage(clubId: string, month: string) {
    return this.#timed('getQuotaUsage', async () => {
      this.#read('getQuotaUsage', 1, 1, readUnits(stateBytes(clubId, await this.inner.listCursors(clubId))));
      return this.inner.getQuotaUsage(clubId, month);
    });
  }

  putQuarantined(clubId: string, source: SourceName, records: QuarantinedRecord[], expiresAtSec: number) {
    return this.#timed('putQuarantined', async () => {
      let units = 0;
      for (const r of records)
        units += writeUnits(itemBytes({ pk: clubId, sk: r.at + r.key, ...r, raw: JSON.stringify(r.raw) }));
      this.#write('putQuarantined', Math.ceil(records.length / 25), records.length, units);
      return this.inner.putQuarantined(clubId, source, records, expiresAtSec);
    });
  }

  listQuarantined(clubId: string, source: SourceName, limit?: number) {
    return this.#timed('listQuarantined', async () => {
      const records = await this.inner.listQuarantined(clubId, source, limit);
      this.#read('listQuarantined', 1, records.length, readUnits(records.length * 1024));
      return records;
    });
  }
}

/**
 * A poll's session, counted: its reads and writes of cursors and counter are in memory (free); its
 * checkpoints and its close are one UpdateItem each of the whole item.
 */
class CountingClubSession implements ClubSession {
  constructor(
    private readonly inner: ClubSession,
    private readonly counter: CountingStateStore,
  ) {}

  get clubId() {
    return this.inner.clubId;
  }
  getCursor(clubId: string, source: SourceName) {
    return this.inner.getCursor(clubId, source);
  }
  listCursors(clubId: string) {
    return this.inner.listCursors(clubId);
  }
  putCursor(cursor: Cursor) {
    return this.inner.putCursor(cursor);
  }
  addQuotaUsage(clubId: string, month: string, requests: number) {
    return this.inner.addQuotaUsage(clubId, month, requests);
  }
  getQuotaUsage(clubId: string, month: string) {
    return this.inner.getQuotaUsage(clubId, month);
  }
  async checkpoint() {
    await this.inner.checkpoint();
    this.counter.countSessionWrite('checkpoint', this.clubId, await this.inner.listCursors(this.clubId));
  }
  async close() {
    const cursors = await this.inner.listCursors(this.clubId);
    await this.inner.close();
    this.counter.countSessionWrite('closeClub', this.clubId, cursors);
  }
  assertLeaseHeld() {
    this.inner.assertLeaseHeld();
  }
}
