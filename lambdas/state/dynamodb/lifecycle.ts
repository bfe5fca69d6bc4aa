/**
 * LifecycleStore on the state table: each document in its head item (one conditional PutItem) and,
 * for a large one, its pieces (written first, one BatchWriteItem per 25; read with one BatchGetItem
 * per 100; the replaced head's pieces deleted after), as ../lifecycle-store.ts lays them out.
 */
import { BatchWriteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../common/logger';
import { clubPk } from '../keys';
import {
  gzipLifecycle,
  LifecycleConflictError,
  type LifecyclePart,
  type LifecycleStore,
  lifecycleItems,
  lifecycleSk,
  pieceKeys,
  type StoredLifecycle,
  storedLifecycle,
} from '../lifecycle-store';
import { StoreError } from '../store-errors';
import type { StateTableClient } from './state-table-client';

export class DynamoDbLifecycleStore implements LifecycleStore {
  constructor(private readonly table: StateTableClient) {}

  async getLifecycle(clubId: string, part: LifecyclePart = 'base'): Promise<StoredLifecycle | undefined> {
    const { doc, tableName } = this.table;
    const pk = clubPk(clubId);
    const out = await this.table.call('GetItem', () =>
      doc.send(
        new GetCommand({ TableName: tableName, Key: { pk, sk: lifecycleSk(part) }, ConsistentRead: true }),
      ),
    );
    const item = out.Item;
    if (!item) return undefined;
    if (typeof item.v !== 'number' || item.d === undefined)
      throw new StoreError(`lifecycle ${part} item of ${clubId} has no document or version`);
    const head: { v: number; d?: unknown; n?: unknown; w?: unknown } = { ...item, v: item.v };
    const keys = pieceKeys(part, head);
    const found = keys.length > 0 ? await this.table.batchGet(keys.map((sk) => ({ pk, sk }))) : [];
    return storedLifecycle(clubId, part, head, new Map(found.map((p) => [String(p.sk), p])));
  }

  async putLifecycle(
    clubId: string,
    doc: unknown,
    expectedVersion: number,
    part: LifecyclePart = 'base',
  ): Promise<number> {
    const { head, pieces } = lifecycleItems(
      clubId,
      part,
      await gzipLifecycle(clubId, doc, part),
      expectedVersion,
    );
    const { doc: client, tableName } = this.table;
    const pk = clubPk(clubId);
    if (pieces.length > 0) await this.table.batchWrite(pieces.map((p) => ({ pk, ...p })));
    let old: Record<string, unknown> | undefined;
    const applied = await this.table.conditionally('PutItem', async () => {
      const out = await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk, sk: lifecycleSk(part), ...head },
          ConditionExpression: expectedVersion === 0 ? 'attribute_not_exists(pk)' : 'v = :v',
          ...(expectedVersion === 0 ? {} : { ExpressionAttributeValues: { ':v': expectedVersion } }),
          ReturnValues: 'ALL_OLD',
        }),
      );
      old = out.Attributes;
    });
    if (!applied) {
      await this.deletePieces(
        clubId,
        pieces.map((p) => p.sk),
      );
      throw new LifecycleConflictError(clubId, expectedVersion);
    }
    await this.deletePieces(clubId, pieceKeys(part, old));
    return head.v;
  }

  /** Deletes pieces no head names; one that stays is only unused bytes (logged, never an error). */
  private async deletePieces(clubId: string, sks: readonly string[]): Promise<void> {
    const pk = clubPk(clubId);
    const { doc: client, tableName } = this.table;
    for (let i = 0; i < sks.length; i += 25) {
      const batch = sks.slice(i, i + 25).map((sk) => ({ DeleteRequest: { Key: { pk, sk } } }));
      try {
        await this.table.call('BatchWriteItem', () =>
          client.send(new BatchWriteCommand({ RequestItems: { [tableName]: batch } })),
        );
      } catch (err) {
        logger.warn('lifecycle pieces of a replaced document not deleted: unused bytes stay', {
          clubId,
          err,
        });
      }
    }
  }
}
