/** SnapshotStore on the item table (item-table.ts): one item per record, read and written in batches. */
import type { Item, ItemTable } from './item-table';
import { ENCODED_ID_PREFIX, snapshotKey, snapshotPk } from './keys';
import type { Snapshot, SnapshotKind, SnapshotStore } from './store';
import { toStorable } from './stored-values';

export class SnapshotItemStore implements SnapshotStore {
  constructor(private readonly table: ItemTable) {}

  async getSnapshots(
    clubId: string,
    kind: SnapshotKind,
    ids: string[],
    options: { readonly consistentRead?: boolean } = {},
  ): Promise<Map<string, Snapshot>> {
    const pk = snapshotPk(clubId, kind);
    // The sort key of an odd record number is a hash of it (keys.ts): read back by that key.
    const idBySk = new Map<string, string>();
    for (const id of ids) idBySk.set(snapshotKey(pk, id).sk, id);
    const keys = [...idBySk.keys()].map((sk) => ({ pk, sk }));
    // Eventually consistent by default (half the read units): a snapshot is written a poll before it
    // is read again; a stale one at worst re-publishes a transition under the same eventId (docs/state.md).
    const items = await this.table.batchGet(keys, { consistent: options.consistentRead === true });
    const out = new Map<string, Snapshot>();
    for (const item of items) {
      const id = idBySk.get(String(item.sk));
      if (id === undefined) continue;
      out.set(id, snapshotOf(id, item));
    }
    return out;
  }

  async listSnapshots(
    clubId: string,
    kind: SnapshotKind,
    options: { readonly consistentRead?: boolean } = {},
  ): Promise<Map<string, Snapshot>> {
    const items = await this.table.query(
      { pk: snapshotPk(clubId, kind) },
      { consistent: options.consistentRead === true },
    );
    const out = new Map<string, Snapshot>();
    for (const item of items) {
      const sk = String(item.sk);
      const id = typeof item.id === 'string' ? item.id : sk.startsWith(ENCODED_ID_PREFIX) ? undefined : sk;
      if (id !== undefined) out.set(id, snapshotOf(id, item));
    }
    return out;
  }

  async putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]): Promise<void> {
    const pk = snapshotPk(clubId, kind);
    const byId = new Map<string, Item>();
    for (const s of snapshots) {
      const key = snapshotKey(pk, s.id);
      byId.set(s.id, {
        ...key,
        // An id that is not its own sort key is kept, so that listSnapshots can name it.
        ...(key.sk === s.id ? {} : { id: s.id }),
        hash: String(s.hash),
        fields: toStorable(s.fields, `snapshot ${s.id} fields`),
        updatedAt: String(s.updatedAt),
      });
    }
    await this.table.batchWrite([...byId.values()]);
  }
}

function snapshotOf(id: string, item: Item): Snapshot {
  return {
    id,
    hash: String(item.hash),
    fields: (item.fields ?? {}) as Record<string, unknown>,
    updatedAt: String(item.updatedAt),
  };
}
