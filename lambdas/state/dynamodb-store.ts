/**
 * StateStore on one DynamoDB table (works the same against dynalite): the club state item's store
 * (club-states.ts) over `dynamodb/club-items.ts`, and the item stores (item-ports.ts: seen set,
 * snapshots, quarantine, lifecycle documents) over `dynamodb/dynamodb-item-table.ts`, both on one
 * shared table client. Conditional single-item writes for the club state item and the lifecycle
 * head; BatchGetItem/BatchWriteItem for the rest, chunked (100 / 25) and run with bounded
 * concurrency; one paginated Query for a time range of the time-ordered seen set. No
 * TransactWriteItems anywhere.
 *
 * Retries: a throttled call (which DynamoDB guarantees was not applied) is retried by the AWS SDK's
 * own retry strategy, configured on the client (`common/aws-clients.ts`); unprocessed batch entries
 * are resubmitted alone by `common/retry-partial.ts` until done. Everything else, a call still
 * throttled when the SDK gives up, and unprocessed entries that stop making progress, is a
 * StoreError.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sleep as realSleep } from '../common/backoff';
import { ClubStates } from './club-states';
import { DynamoDbClubItems } from './dynamodb/club-items';
import { DynamoDbItemTable } from './dynamodb/dynamodb-item-table';
import { StateTableClient } from './dynamodb/state-table-client';
import { itemPorts } from './item-ports';
import type { StateParts } from './state-store';
import { BridgeStateStore } from './state-store';
import { StoreError } from './store';

export { BATCH_GET_MAX_KEYS, BATCH_WRITE_MAX_ITEMS } from './dynamodb/state-table-client';

export interface DynamoDbStateStoreOptions {
  /**
   * A plain client (wrapped in a DocumentClient here) or a DocumentClient with default unmarshalling.
   * Its retry settings (`awsClientConfig()`) decide how throttled calls are retried.
   */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default setTimeout-based sleep; tests pass a recorder. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Back-off rounds in a row without progress on unprocessed batch entries before a StoreError. @default 10 */
  readonly maxAttempts?: number;
  /** Back-off before resubmitting unprocessed batch entries. @default 50 */
  readonly baseDelayMs?: number;
  /** @default 3000 */
  readonly maxDelayMs?: number;
  /** Batch calls in flight at once per store method. @default 8 */
  readonly maxConcurrency?: number;
  /** Clock in epoch ms where the port takes no time (quarantine expiry, a session's lease checks, the checkpoint timer). @default Date.now */
  readonly now?: () => number;
}

export class DynamoDbStateStore extends BridgeStateStore {
  constructor(options: DynamoDbStateStoreOptions) {
    super(DynamoDbStateStore.ports(options));
  }

  private static ports(options: DynamoDbStateStoreOptions): StateParts {
    if (!options.tableName) throw new StoreError('DynamoDbStateStore needs a tableName');
    const doc =
      options.client instanceof DynamoDBDocumentClient
        ? options.client
        : DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
    const table = new StateTableClient({
      doc,
      tableName: options.tableName,
      sleep: options.sleep ?? realSleep,
      maxStalledRounds: Math.max(1, options.maxAttempts ?? 10),
      baseDelayMs: options.baseDelayMs ?? 50,
      maxDelayMs: options.maxDelayMs ?? 3000,
      maxConcurrency: Math.max(1, options.maxConcurrency ?? 8),
    });
    const now = options.now ?? Date.now;
    const clubs = new ClubStates(new DynamoDbClubItems(table), now);
    return { clubs, ...itemPorts(new DynamoDbItemTable(table), now) };
  }
}
