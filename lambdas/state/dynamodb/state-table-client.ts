/**
 * The plumbing every DynamoDB adapter of the store shares: one DocumentClient on one table, calls
 * whose failures become StoreError (a conditional failure passes through, or answers false),
 * paginated queries, and BatchGetItem / BatchWriteItem chunked to DynamoDB's limits (100 / 25), run
 * on the one concurrency limiter, with unprocessed entries resubmitted by the one partial-failure
 * loop. Throttled calls are retried by the AWS SDK's own retry strategy (`common/aws-clients.ts`),
 * never here.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { chunk, mapWithConcurrency } from '../../common/concurrency';
import { logger } from '../../common/logger';
import { PartialFailureError, resubmitFailedEntries } from '../../common/retry-partial';
import type { ItemKey } from '../keys';
import { StoreError } from '../store';

/** DynamoDB's per-call limits. */
export const BATCH_GET_MAX_KEYS = 100;
export const BATCH_WRITE_MAX_ITEMS = 25;

export type Item = Record<string, unknown>;
type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: ItemKey } };
/** The attributes a read returns (all when absent). */
export interface Projection {
  readonly ProjectionExpression: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
}
export type QueryInput = Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>;

export interface StateTableClientOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly sleep: (ms: number) => Promise<void>;
  /** Rounds in a row without progress on unprocessed batch entries before giving up. */
  readonly maxStalledRounds: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Batch calls in flight at once per store method. */
  readonly maxConcurrency: number;
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

export function isConditionalCheckFailed(err: unknown): boolean {
  return errorName(err) === 'ConditionalCheckFailedException';
}

const putRequest = (Item: Item): WriteRequest => ({ PutRequest: { Item } });
const deleteRequest = (key: ItemKey): WriteRequest => ({
  DeleteRequest: { Key: { pk: key.pk, sk: key.sk } },
});

export class StateTableClient {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly #options: StateTableClientOptions;

  constructor(options: StateTableClientOptions) {
    this.doc = options.doc;
    this.tableName = options.tableName;
    this.#options = options;
  }

  /** Sends once (the SDK retries throttling); maps failures to StoreError (conditional failures pass through). */
  async call<T>(operation: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      if (isConditionalCheckFailed(err)) throw err;
      throw this.failure(operation, err);
    }
  }

  /** A conditional write: true if applied, false if its condition did not hold. */
  async conditionally(operation: string, send: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.call(operation, send);
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  }

  /**
   * The items of a Query (those `keep` keeps, all by default), followed page by page until `limit`
   * items or the end; each page asks for no more than are still wanted.
   */
  async queryAll(
    input: QueryInput,
    limit = Number.POSITIVE_INFINITY,
    consistentRead = true,
    keep?: (item: Item) => boolean,
  ): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const remaining = limit - items.length;
      const out = await this.call('Query', () =>
        this.doc.send(
          new QueryCommand({
            ...input,
            TableName: this.tableName,
            ConsistentRead: consistentRead,
            ExclusiveStartKey: startKey,
            Limit: Number.isFinite(remaining) ? remaining : undefined,
          }),
        ),
      );
      const page = out.Items ?? [];
      items.push(...(keep ? page.filter(keep) : page));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined && items.length < limit);
    return items.slice(0, limit);
  }

  async batchGet(keys: readonly ItemKey[], projection?: Projection, consistentRead = true): Promise<Item[]> {
    const batches = chunk(keys, BATCH_GET_MAX_KEYS);
    const results = await mapWithConcurrency(batches, this.#options.maxConcurrency, (batch) =>
      this.#batchGetUntilDone(batch, projection, consistentRead),
    );
    return results.flat();
  }

  async batchWrite(items: readonly Item[]): Promise<void> {
    await this.#batchWriteRequests(items.map(putRequest));
  }

  async batchDelete(keys: readonly ItemKey[]): Promise<void> {
    await this.#batchWriteRequests(keys.map(deleteRequest));
  }

  async #batchWriteRequests(requests: WriteRequest[]): Promise<void> {
    const batches = chunk(requests, BATCH_WRITE_MAX_ITEMS);
    await mapWithConcurrency(batches, this.#options.maxConcurrency, (batch) =>
      this.#untilDone('BatchWriteItem', batch, async (pending) => {
        const out = await this.call('BatchWriteItem', () =>
          this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: [...pending] } })),
        );
        return (out.UnprocessedItems?.[this.tableName] ?? []) as WriteRequest[];
      }),
    );
  }

  async #batchGetUntilDone(
    keys: readonly ItemKey[],
    projection: Projection | undefined,
    consistentRead: boolean,
  ): Promise<Item[]> {
    const found: Item[] = [];
    const request: Item[] = keys.map((k) => ({ pk: k.pk, sk: k.sk }));
    await this.#untilDone('BatchGetItem', request, async (pending) => {
      const out = await this.call('BatchGetItem', () =>
        this.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: { Keys: [...pending], ConsistentRead: consistentRead, ...projection },
            },
          }),
        ),
      );
      found.push(...(out.Responses?.[this.tableName] ?? []));
      return out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    });
    return found;
  }

  /** Resubmits unprocessed entries; a StoreError after maxStalledRounds rounds without progress. */
  async #untilDone<E>(
    operation: string,
    entries: readonly E[],
    send: (pending: readonly E[]) => Promise<readonly E[]>,
  ) {
    const { tableName } = this;
    const { sleep, maxStalledRounds, baseDelayMs, maxDelayMs } = this.#options;
    try {
      await resubmitFailedEntries(entries, send, {
        operation,
        maxStalledRounds,
        baseDelayMs,
        maxDelayMs,
        sleep,
        onRetry: ({ failed, delayMs }) =>
          logger.debug('DynamoDB returned unprocessed batch entries, retrying', {
            operation,
            tableName,
            unprocessed: failed,
            delayMs,
          }),
      });
    } catch (err) {
      if (!(err instanceof PartialFailureError)) throw err;
      throw new StoreError(
        `DynamoDB ${operation} on table ${tableName} left ${err.remaining.length} entries unprocessed ` +
          `after ${err.stalledRounds} retries without progress`,
        { cause: err, operation },
      );
    }
  }

  private failure(operation: string, err: unknown): StoreError {
    if (err instanceof StoreError) return err;
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    const attempts = (err as { $metadata?: { attempts?: number } } | undefined)?.$metadata?.attempts ?? 1;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    return new StoreError(`DynamoDB ${operation} on table ${this.tableName} failed${tries}: ${detail}`, {
      cause: err,
      operation,
    });
  }
}
