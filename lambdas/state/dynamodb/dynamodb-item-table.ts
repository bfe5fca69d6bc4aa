/**
 * The item stores' primitives (../item-table.ts) on the state table: each one DynamoDB call (a
 * batch or a paginated Query a few), sent through the shared StateTableClient, which chunks batches
 * to 100 / 25, runs them on its concurrency limiter, resubmits unprocessed entries and maps failures
 * to StoreError.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type {
  Item,
  ItemTable,
  PutCondition,
  PutResult,
  QueryOptions,
  QueryRange,
  ReadOptions,
} from '../item-table';
import type { ItemKey } from '../keys';
import type { Projection, StateTableClient } from './state-table-client';

/** A projection with every name a placeholder (`#name`), so that no reserved word gets in the way. */
function projectionOf(names: readonly string[] | undefined): Projection | undefined {
  if (!names) return undefined;
  return {
    ProjectionExpression: names.map((name) => `#${name}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
  };
}

function keyCondition({ pk, from, to }: QueryRange) {
  const values: Record<string, string> = { ':pk': pk };
  if (from !== undefined) values[':from'] = from;
  if (to !== undefined) values[':to'] = to;
  const sk =
    from !== undefined && to !== undefined
      ? ' AND sk BETWEEN :from AND :to'
      : from !== undefined
        ? ' AND sk >= :from'
        : to !== undefined
          ? ' AND sk <= :to'
          : '';
  return { KeyConditionExpression: `pk = :pk${sk}`, ExpressionAttributeValues: values };
}

function conditionOf(condition: PutCondition) {
  if ('absent' in condition) return { ConditionExpression: 'attribute_not_exists(pk)' };
  const { name, value } = condition.equals;
  return {
    ConditionExpression: '#c = :c',
    ExpressionAttributeNames: { '#c': name },
    ExpressionAttributeValues: { ':c': value },
  };
}

export class DynamoDbItemTable implements ItemTable {
  constructor(private readonly table: StateTableClient) {}

  async get(key: ItemKey, options: ReadOptions): Promise<Item | undefined> {
    const { doc, tableName } = this.table;
    const out = await this.table.call('GetItem', () =>
      doc.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: key.pk, sk: key.sk },
          ConsistentRead: options.consistent,
          ...projectionOf(options.projection),
        }),
      ),
    );
    return out.Item;
  }

  batchGet(keys: readonly ItemKey[], options: ReadOptions): Promise<Item[]> {
    return this.table.batchGet(keys, projectionOf(options.projection), options.consistent);
  }

  batchWrite(items: readonly Item[]): Promise<void> {
    return this.table.batchWrite(items);
  }

  batchDelete(keys: readonly ItemKey[]): Promise<void> {
    return this.table.batchDelete(keys);
  }

  query(range: QueryRange, options: QueryOptions): Promise<Item[]> {
    const condition = keyCondition(range);
    const projection = projectionOf(options.projection);
    return this.table.queryAll(
      {
        ...condition,
        ...projection,
        ...(options.reverse ? { ScanIndexForward: false } : {}),
      },
      options.limit ?? Number.POSITIVE_INFINITY,
      options.consistent,
      options.keep,
    );
  }

  async put(item: Item, condition?: PutCondition): Promise<PutResult> {
    const { doc, tableName } = this.table;
    let old: Item | undefined;
    const applied = await this.table.conditionally('PutItem', async () => {
      const out = await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: item,
          // A conditional put returns the item it replaced (what the lifecycle store cleans up after).
          ...(condition ? { ...conditionOf(condition), ReturnValues: 'ALL_OLD' } : {}),
        }),
      );
      old = out.Attributes;
    });
    if (!applied) return { applied: false };
    return old ? { applied: true, old } : { applied: true };
  }
}
