/** LifecycleStore on the state table: two items per club (base, delta), one conditional PutItem per put. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { clubPk } from '../keys';
import {
  encodeLifecycle,
  LifecycleConflictError,
  type LifecyclePart,
  type LifecycleStore,
  lifecycleSk,
  type StoredLifecycle,
  storedLifecycle,
} from '../lifecycle-store';
import { StoreError } from '../store-errors';
import type { StateTableClient } from './state-table-client';

export class DynamoDbLifecycleStore implements LifecycleStore {
  constructor(private readonly table: StateTableClient) {}

  async getLifecycle(clubId: string, part: LifecyclePart = 'base'): Promise<StoredLifecycle | undefined> {
    const { doc, tableName } = this.table;
    const out = await this.table.call('GetItem', () =>
      doc.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: clubPk(clubId), sk: lifecycleSk(part) },
          ConsistentRead: true,
        }),
      ),
    );
    const item = out.Item;
    if (!item) return undefined;
    if (!(item.d instanceof Uint8Array) || typeof item.v !== 'number')
      throw new StoreError(`lifecycle ${part} item of ${clubId} has no document or version`);
    return storedLifecycle(clubId, item.d, item.v);
  }

  async putLifecycle(
    clubId: string,
    doc: unknown,
    expectedVersion: number,
    part: LifecyclePart = 'base',
  ): Promise<number> {
    const bytes = encodeLifecycle(clubId, doc, expectedVersion);
    const { doc: client, tableName } = this.table;
    const applied = await this.table.conditionally('PutItem', () =>
      client.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: clubPk(clubId), sk: lifecycleSk(part), v: expectedVersion + 1, d: bytes },
          ConditionExpression: expectedVersion === 0 ? 'attribute_not_exists(pk)' : 'v = :v',
          ...(expectedVersion === 0 ? {} : { ExpressionAttributeValues: { ':v': expectedVersion } }),
        }),
      ),
    );
    if (!applied) throw new LifecycleConflictError(clubId, expectedVersion);
    return expectedVersion + 1;
  }
}
