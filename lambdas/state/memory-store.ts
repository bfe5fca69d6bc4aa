/**
 * StateStore in process memory with the same semantics as DynamoDbStateStore (same key validation,
 * same stored-value rules, same conditional behaviour, expiry filtered on read): for unit tests,
 * benchmarks and throwaway local runs. Each method's check-and-write runs synchronously, so it is
 * atomic with respect to concurrent callers in the same process. Nothing is shared across processes.
 */
import {
  assertEpochSeconds,
  CURSOR_SK_PREFIX,
  clubPk,
  cursorKey,
  leaseKey,
  quarantineKey,
  quarantinePk,
  quotaKey,
  snapshotKey,
  snapshotPk,
} from './keys';
import { compareUtf8, flatKey, partitionOf } from './memory/partitions';
import { MemorySeenStore } from './memory/seen';
import {
  ConcurrentModificationError,
  type Cursor,
  DEFAULT_QUARANTINE_LIST_LIMIT,
  newCursor,
  type QuarantinedRecord,
  type SeenStore,
  type Snapshot,
  type SnapshotKind,
  type SourceName,
  type StateStore,
  StoreError,
} from './store';
import { copyOf, storableCursor, storableQuarantined, toStorable } from './stored-values';
import { validateLeaseArgs, validateQuotaRequests } from './validation';

export interface MemoryStateStoreOptions {
  /** Clock in epoch ms, used where the port takes no time (listQuarantined expiry). @default Date.now */
  readonly now?: () => number;
}

interface Lease {
  owner: string;
  expiresAtMs: number;
}

interface Quarantined {
  record: QuarantinedRecord;
  expiresAt: number;
}

type Args<P, K extends keyof P> = P[K] extends (...args: infer A) => unknown ? A : never;

export class MemoryStateStore implements StateStore {
  /** Partition key -> sort key -> item; one map per kind keeps values typed. */
  private readonly cursors = new Map<string, Map<string, Cursor>>();
  private readonly leases = new Map<string, Lease>();
  private readonly quota = new Map<string, number>();
  private readonly seen = new MemorySeenStore();
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

  async releaseLease(clubId: string, source: string, owner: string): Promise<void> {
    const id = flatKey(leaseKey(clubId, source));
    if (this.leases.get(id)?.owner === owner) this.leases.delete(id);
  }

  filterSeen(...args: Args<SeenStore, 'filterSeen'>) {
    return this.seen.filterSeen(...args);
  }
  putSeen(...args: Args<SeenStore, 'putSeen'>) {
    return this.seen.putSeen(...args);
  }
  seenSince(...args: Args<SeenStore, 'seenSince'>) {
    return this.seen.seenSince(...args);
  }
  seenEntriesSince(...args: Args<SeenStore, 'seenEntriesSince'>) {
    return this.seen.seenEntriesSince(...args);
  }
  putSeenAt(...args: Args<SeenStore, 'putSeenAt'>) {
    return this.seen.putSeenAt(...args);
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
