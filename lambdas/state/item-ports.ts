/**
 * The club's item stores (the seen set with its digests, snapshots, quarantine, lifecycle
 * documents), each one implementation written on the item table's primitives (item-table.ts):
 * what both state stores are built from, over their own table.
 */
import type { ItemTable } from './item-table';
import type { LifecycleStore } from './lifecycle-items';
import { LifecycleItemStore } from './lifecycle-items';
import { QuarantineItemStore } from './quarantine-items';
import { SeenItemStore } from './seen-items';
import { SnapshotItemStore } from './snapshot-items';
import type { QuarantineStore, SeenStore, SnapshotStore } from './store';

export interface ItemPorts {
  readonly seen: SeenStore;
  readonly snapshots: SnapshotStore;
  readonly quarantine: QuarantineStore;
  readonly lifecycle: LifecycleStore;
}

/** The item stores on `table`; `now` (epoch ms) where a port takes no time (quarantine expiry). */
export function itemPorts(table: ItemTable, now: () => number): ItemPorts {
  return {
    seen: new SeenItemStore(table),
    snapshots: new SnapshotItemStore(table),
    quarantine: new QuarantineItemStore(table, now),
    lifecycle: new LifecycleItemStore(table),
  };
}
