/**
 * StateStore in process memory with the same semantics as DynamoDbStateStore: for unit tests,
 * benchmarks and throwaway local runs. The same stores as DynamoDbStateStore (club-states.ts, and
 * item-ports.ts's item stores, which keep the DynamoDB layout: packs, pieces and all) over the
 * memory adapters of their primitives (`memory/club-items.ts`, `memory/memory-item-table.ts`). Each
 * primitive runs synchronously, so it is atomic with respect to concurrent callers in the same
 * process. Nothing is shared across processes.
 */
import { ClubStates } from './club-states';
import { itemPorts } from './item-ports';
import { MemoryClubItems } from './memory/club-items';
import { MemoryItemTable } from './memory/memory-item-table';
import { BridgeStateStore } from './state-store';

export interface MemoryStateStoreOptions {
  /** Clock in epoch ms where the port takes no time (quarantine expiry, a session's lease checks, the checkpoint timer). @default Date.now */
  readonly now?: () => number;
}

export class MemoryStateStore extends BridgeStateStore {
  constructor(options: MemoryStateStoreOptions = {}) {
    const now = options.now ?? Date.now;
    const clubs = new ClubStates(new MemoryClubItems(), now);
    super({ clubs, ...itemPorts(new MemoryItemTable(), now) });
  }
}
