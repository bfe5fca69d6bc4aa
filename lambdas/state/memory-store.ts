/**
 * StateStore in process memory with the same semantics as DynamoDbStateStore (same key validation,
 * same stored-value rules, same conditional behaviour, expiry filtered on read): for unit tests,
 * benchmarks and throwaway local runs. Composed of one adapter per narrow port in `memory/`. Each
 * method's check-and-write runs synchronously, so it is atomic with respect to concurrent callers in
 * the same process. Nothing is shared across processes.
 */
import { ClubStates } from './club-states';
import { BridgeStateStore } from './state-store';
import { MemoryClubItems } from './memory/club-items';
import { MemoryLifecycleStore } from './memory/lifecycle';
import { MemoryQuarantineStore } from './memory/quarantine';
import { MemorySeenStore } from './memory/seen';
import { MemorySnapshotStore } from './memory/snapshots';

export interface MemoryStateStoreOptions {
  /** Clock in epoch ms where the port takes no time (quarantine expiry, the lease check of a write outside a poll, the checkpoint timer). @default Date.now */
  readonly now?: () => number;
}

export class MemoryStateStore extends BridgeStateStore {
  constructor(options: MemoryStateStoreOptions = {}) {
    const clubs = new ClubStates(new MemoryClubItems(), options.now ?? Date.now);
    super({
      clubs,
      seen: new MemorySeenStore(),
      snapshots: new MemorySnapshotStore(),
      quarantine: new MemoryQuarantineStore(options.now ?? Date.now),
      lifecycle: new MemoryLifecycleStore(),
    });
  }
}
