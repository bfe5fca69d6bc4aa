/**
 * The primitives the item stores (seen set, snapshots, quarantine, lifecycle documents) are written
 * on, named for what DynamoDB does: the policy (keys, validation, expiry filtered on read, packing,
 * layout) is in the stores, one implementation each; an adapter only moves items. Two adapters:
 * `dynamodb/dynamodb-item-table.ts` (one call per primitive, batches chunked to 100 / 25 with their
 * unprocessed entries resubmitted) and `memory/memory-item-table.ts` (sorted partitions in process
 * memory, with DynamoDB's semantics for these calls). Neither filters expired items: the stores do.
 */
import type { ItemKey } from './keys';

/** A stored item: its `pk` and `sk` and its attributes (strings, numbers, booleans, bytes, lists, maps). */
export type Item = Record<string, unknown>;

export interface ReadOptions {
  /** Strongly consistent (DynamoDB's ConsistentRead); the memory table is always consistent. */
  readonly consistent: boolean;
  /** Only these attributes of each item (DynamoDB's ProjectionExpression); all when absent. */
  readonly projection?: readonly string[];
}

/** The sort keys of one partition a Query reads: `from <= sk <= to` (each bound optional, inclusive). */
export interface QueryRange {
  readonly pk: string;
  readonly from?: string;
  readonly to?: string;
}

export interface QueryOptions extends ReadOptions {
  /** Descending sort-key order (DynamoDB's ScanIndexForward false). */
  readonly reverse?: boolean;
  /**
   * Stop once this many items were kept (`keep`, every item when absent): the Query is read page by
   * page, each page no larger than what is still wanted.
   */
  readonly limit?: number;
  /** Which items count (e.g. the unexpired): applied to each page as it is read. */
  readonly keep?: (item: Item) => boolean;
}

/** The condition of a put: no item under its key, or one whose attribute `name` equals `value`. */
export type PutCondition =
  | { readonly absent: true }
  | { readonly equals: { readonly name: string; readonly value: string | number } };

/** A put's outcome: a conditional put that applied returns the item it replaced (if any). */
export type PutResult = { readonly applied: false } | { readonly applied: true; readonly old?: Item };

export interface ItemTable {
  /** One item by key (GetItem). */
  get(key: ItemKey, options: ReadOptions): Promise<Item | undefined>;
  /** The items found of `keys` (BatchGetItem), in no particular order; keys must be distinct. */
  batchGet(keys: readonly ItemKey[], options: ReadOptions): Promise<Item[]>;
  /** Puts every item (BatchWriteItem), replacing any under the same key; keys must be distinct. */
  batchWrite(items: readonly Item[]): Promise<void>;
  /** Deletes every key (BatchWriteItem); a key with no item is no error. */
  batchDelete(keys: readonly ItemKey[]): Promise<void>;
  /** The items of one partition's sort-key range, in sort-key order (Query, followed to the end). */
  query(range: QueryRange, options: QueryOptions): Promise<Item[]>;
  /** Puts one item (PutItem); with a condition, only if it holds (`applied: false` when it did not). */
  put(item: Item, condition?: PutCondition): Promise<PutResult>;
}
