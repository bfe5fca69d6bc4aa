/**
 * State store: the port (`StateStore`) and its adapters. `startEmbeddedDynamoDb` (dynalite) is
 * deliberately not re-exported, so Lambda bundles never pull it in: import it from
 * './embedded-dynamodb' where a local store is wanted (CLI demo, tests).
 */
export {
  BATCH_GET_MAX_KEYS,
  BATCH_WRITE_MAX_ITEMS,
  DynamoDbStateStore,
  type DynamoDbStateStoreOptions,
} from './dynamodb-store';
export { MemoryStateStore, type MemoryStateStoreOptions } from './memory-store';
export {
  BridgeStateStore,
  type ClubSession,
  type ClubView,
  decorateStore,
  type StateStore,
  withClubSession,
} from './state-store';
export {
  ConcurrentModificationError,
  type Cursor,
  type FilterSeenOptions,
  isSourceName,
  newCursor,
  type QuarantinedRecord,
  type ScanProgress,
  type SeenAt,
  type SeenEntry,
  type SeenSinceOptions,
  type Snapshot,
  type SnapshotKind,
  SOURCE_NAMES,
  type SourceHealth,
  type SourceName,
  StoreError,
} from './store';
export {
  type CreateStateTableOptions,
  type CreateStateTableResult,
  createStateTable,
  stateTableKeySchema,
  type TimeToLiveState,
} from './table';
