/** SnapshotStore in process memory: one stored copy per record. */
import { snapshotKey, snapshotPk } from '../keys';
import type { Snapshot, SnapshotKind, SnapshotStore } from '../store';
import { copyOf, toStorable } from '../stored-values';
import { partitionOf } from './partitions';

export class MemorySnapshotStore implements SnapshotStore {
  /** Partition key -> record id -> snapshot. */
  private readonly items = new Map<string, Map<string, Snapshot>>();

  async getSnapshots(
    clubId: string,
    kind: SnapshotKind,
    ids: string[],
    _options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>> {
    const pk = snapshotPk(clubId, kind);
    const partition = this.items.get(pk);
    const out = new Map<string, Snapshot>();
    for (const id of ids) {
      const stored = partition?.get(snapshotKey(pk, id).sk);
      if (stored) out.set(id, { ...copyOf(stored), id });
    }
    return out;
  }

  /** Listed as stored (memory is always consistent; the option is the DynamoDB adapter's). */
  async listSnapshots(
    clubId: string,
    kind: SnapshotKind,
    _options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>> {
    const partition = this.items.get(snapshotPk(clubId, kind));
    const out = new Map<string, Snapshot>();
    for (const stored of partition?.values() ?? []) out.set(stored.id, copyOf(stored));
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
    const partition = partitionOf(this.items, pk);
    for (const { sk, snapshot } of prepared) partition.set(sk, snapshot);
  }
}
