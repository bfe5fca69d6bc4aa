/**
 * StateStore in process memory with the same semantics as DynamoDbStateStore (same key validation,
 * same stored-value rules, same conditional behaviour, expiry filtered on read): for unit tests,
 * benchmarks and throwaway local runs. Composed of one adapter per narrow port in `memory/`. Each
 * method's check-and-write runs synchronously, so it is atomic with respect to concurrent callers in
 * the same process. Nothing is shared across processes.
 */
import { ComposedStateStore } from './composed-store';
import { MemoryCursorStore } from './memory/cursors';
import { MemoryLeaseStore } from './memory/leases';
import { MemoryQuarantineStore } from './memory/quarantine';
import { MemoryQuotaStore } from './memory/quota';
import { MemorySeenStore } from './memory/seen';
import { MemorySnapshotStore } from './memory/snapshots';

export interface MemoryStateStoreOptions {
  /** Clock in epoch ms, used where the port takes no time (listQuarantined expiry). @default Date.now */
  readonly now?: () => number;
}

export class MemoryStateStore extends ComposedStateStore {
  constructor(options: MemoryStateStoreOptions = {}) {
    super({
      cursors: new MemoryCursorStore(),
      leases: new MemoryLeaseStore(),
      seen: new MemorySeenStore(),
      snapshots: new MemorySnapshotStore(),
      quota: new MemoryQuotaStore(),
      quarantine: new MemoryQuarantineStore(options.now ?? Date.now),
    });
  }
}
