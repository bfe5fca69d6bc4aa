/**
 * StateStore in process memory with the same semantics as DynamoDbStateStore (same key validation,
 * same stored-value rules, same conditional behaviour, expiry filtered on read): for unit tests,
 * benchmarks and throwaway local runs. Each method's check-and-write runs synchronously, so it is
 * atomic with respect to concurrent callers in the same process. Nothing is shared across processes.
 */
import {
  assertEpochSeconds,
  atOfSeenAtSk,
  CURSOR_SK_PREFIX,
  clubPk,
  cursorKey,
  fingerprintOfSeenAtSk,
  type ItemKey,
  leaseKey,
  quarantineKey,
  quarantinePk,
  quotaKey,
  seenAtKey,
  seenAtPk,
  seenAtTag,
  seenKey,
  seenPk,
  snapshotKey,
  snapshotPk,
} from './keys';
import { SortedStringMap } from './sorted-string-map';
import {
  ConcurrentModificationError,
  type Cursor,
  DEFAULT_QUARANTINE_LIST_LIMIT,
  type FilterSeenOptions,
  newCursor,
  type QuarantinedRecord,
  type SeenAt,
  type SeenEntry,
  type SeenSinceOptions,
  type Snapshot,
  type SnapshotKind,
  type SourceName,
  type StateStore,
  StoreError,
} from './store';
import { copyOf, storableCursor, storableQuarantined, toStorable } from './stored-values';
import { validateLeaseArgs, validateQuotaRequests, validateSeenRange } from './validation';

export interface MemoryStateStoreOptions {
  /** Clock in epoch ms, used where the port takes no time (listQuarantined expiry). @default Date.now */
  readonly now?: () => number;
}

interface Lease {
  owner: string;
  expiresAtMs: number;
}

interface TaggedSeenAt {
  readonly expiresAt: number;
  readonly group: string;
  readonly value: string;
}

const expiryOf = (stored: number | TaggedSeenAt) => (typeof stored === 'number' ? stored : stored.expiresAt);

interface Quarantined {
  record: QuarantinedRecord;
  expiresAt: number;
}

/** Sort keys compare as DynamoDB compares them: by UTF-8 bytes. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export class MemoryStateStore implements StateStore {
  /** Partition key -> sort key -> item; one map per kind keeps values typed. */
  private readonly cursors = new Map<string, Map<string, Cursor>>();
  private readonly leases = new Map<string, Lease>();
  private readonly quota = new Map<string, number>();
  private readonly seen = new Map<string, Map<string, number>>();
  /**
   * Time-ordered seen partitions: sort key `<at>#<fingerprint>` -> expiresAt (or, for an entry
   * with a group and value, all three), kept in key order.
   */
  private readonly seenAt = new Map<string, SortedStringMap<number | TaggedSeenAt>>();
  private readonly snapshots = new Map<string, Map<string, Snapshot>>();
  private readonly quarantine = new Map<string, Map<string, Quarantined>>();
  private readonly now: () => number;

  constructor(options: MemoryStateStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    const key = cursorKey(clubId, source);
    const stored = this.cursors.get(key.pk)?.get(key.sk);
    return stored ? copyOf(stored) : newCursor(clubId, source);
  }

  async listCursors(clubId: string): Promise<Cursor[]> {
    const partition = this.cursors.get(clubPk(clubId));
    if (!partition) return [];
    return [...partition.entries()]
      .filter(([sk]) => sk.startsWith(CURSOR_SK_PREFIX))
      .sort(([a], [b]) => compareUtf8(a, b))
      .map(([, cursor]) => copyOf(cursor));
  }

  async putCursor(cursor: Cursor): Promise<Cursor> {
    const key = cursorKey(cursor.clubId, cursor.source);
    const stored = storableCursor(cursor, cursor.version + 1);
    const partition = partitionOf(this.cursors, key.pk);
    const current = partition.get(key.sk);
    const matches = cursor.version === 0 ? current === undefined : current?.version === cursor.version;
    if (!matches) throw new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version);
    partition.set(key.sk, stored);
    return copyOf(stored);
  }

  async acquireLease(
    clubId: string,
    source: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<boolean> {
    validateLeaseArgs(owner, ttlMs, nowMs);
    const id = flatKey(leaseKey(clubId, source));
    const current = this.leases.get(id);
    if (current && current.expiresAtMs > nowMs && current.owner !== owner) return false;
    this.leases.set(id, { owner, expiresAtMs: nowMs + ttlMs });
    return true;
  }

  async renewLease(
    clubId: string,
    source: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<boolean> {
    validateLeaseArgs(owner, ttlMs, nowMs);
    const id = flatKey(leaseKey(clubId, source));
    const current = this.leases.get(id);
    if (!current || current.owner !== owner) return false;
    current.expiresAtMs = nowMs + ttlMs;
    return true;
  }

  async releaseLease(clubId: string, source: string, owner: string): Promise<void> {
    const id = flatKey(leaseKey(clubId, source));
    if (this.leases.get(id)?.owner === owner) this.leases.delete(id);
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
      out.push(typeof stored === 'number' ? entry : { ...entry, group: stored.group, value: stored.value });
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
    }));
    let partition = this.seenAt.get(pk);
    if (!partition) {
      partition = new SortedStringMap<number | TaggedSeenAt>();
      this.seenAt.set(pk, partition);
    }
    for (const { key, tag } of items) partition.set(key.sk, tag ? { expiresAt, ...tag } : expiresAt);
  }

  async getSnapshots(clubId: string, kind: SnapshotKind, ids: string[]): Promise<Map<string, Snapshot>> {
    const pk = snapshotPk(clubId, kind);
    const keys = ids.map((id) => snapshotKey(pk, id));
    const partition = this.snapshots.get(pk);
    const out = new Map<string, Snapshot>();
    for (const { sk } of keys) {
      const stored = partition?.get(sk);
      if (stored) out.set(sk, copyOf(stored));
    }
    return out;
  }

  async putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]): Promise<void> {
    const pk = snapshotPk(clubId, kind);
    const prepared = snapshots.map((s) => ({
      sk: snapshotKey(pk, s.id).sk,
      snapshot: {
        id: s.id,
        hash: String(s.hash),
        fields: toStorable(s.fields, `snapshot ${s.id} fields`) as Record<string, unknown>,
        updatedAt: String(s.updatedAt),
      },
    }));
    const partition = partitionOf(this.snapshots, pk);
    for (const { sk, snapshot } of prepared) partition.set(sk, snapshot);
  }

  async addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    const id = flatKey(quotaKey(clubId, month));
    validateQuotaRequests(requests);
    const total = (this.quota.get(id) ?? 0) + requests;
    this.quota.set(id, total);
    return total;
  }

  async getQuotaUsage(clubId: string, month: string): Promise<number> {
    return this.quota.get(flatKey(quotaKey(clubId, month))) ?? 0;
  }

  async putQuarantined(
    clubId: string,
    source: SourceName,
    records: QuarantinedRecord[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = quarantinePk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const prepared = records.map((r) => ({
      sk: quarantineKey(pk, r.at, r.key).sk,
      record: storableQuarantined(r),
    }));
    const partition = partitionOf(this.quarantine, pk);
    for (const { sk, record } of prepared) partition.set(sk, { record, expiresAt });
  }

  async listQuarantined(
    clubId: string,
    source: SourceName,
    limit = DEFAULT_QUARANTINE_LIST_LIMIT,
  ): Promise<QuarantinedRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreError(`limit must be a positive integer`);
    const partition = this.quarantine.get(quarantinePk(clubId, source));
    if (!partition) return [];
    const nowSec = Math.floor(this.now() / 1000);
    return [...partition.entries()]
      .filter(([, q]) => q.expiresAt > nowSec)
      .sort(([a], [b]) => compareUtf8(b, a))
      .slice(0, limit)
      .map(([, q]) => copyOf(q.record));
  }
}

function partitionOf<V>(table: Map<string, Map<string, V>>, pk: string): Map<string, V> {
  let partition = table.get(pk);
  if (!partition) {
    partition = new Map();
    table.set(pk, partition);
  }
  return partition;
}

function flatKey(key: ItemKey): string {
  return `${key.pk}\u0000${key.sk}`;
}
