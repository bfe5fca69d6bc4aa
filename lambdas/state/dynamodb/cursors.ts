/** CursorStore on the state table: one item per (club, source), written under an optimistic version check. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { CURSOR_SK_PREFIX, clubPk, cursorKey } from '../keys';
import {
  ConcurrentModificationError,
  type Cursor,
  type CursorStore,
  newCursor,
  type SourceName,
} from '../store';
import { storableCursor } from '../stored-values';
import { type Item, isConditionalCheckFailed, type StateTableClient } from './state-table-client';

export class DynamoDbCursorStore implements CursorStore {
  constructor(private readonly table: StateTableClient) {}

  async getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    const { doc, tableName } = this.table;
    const key = cursorKey(clubId, source);
    const out = await this.table.call('GetItem', () =>
      doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })),
    );
    return out.Item ? cursorFromItem(out.Item) : newCursor(clubId, source);
  }

  async listCursors(clubId: string): Promise<Cursor[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': clubPk(clubId), ':prefix': CURSOR_SK_PREFIX },
    });
    return items.map(cursorFromItem);
  }

  async putCursor(cursor: Cursor): Promise<Cursor> {
    const { doc, tableName } = this.table;
    const key = cursorKey(cursor.clubId, cursor.source);
    const stored = storableCursor(cursor, cursor.version + 1);
    const firstWrite = cursor.version === 0;
    try {
      await this.table.call('PutItem', () =>
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...stored, ...key },
            ConditionExpression: firstWrite ? 'attribute_not_exists(pk)' : '#version = :expected',
            ExpressionAttributeNames: firstWrite ? undefined : { '#version': 'version' },
            ExpressionAttributeValues: firstWrite ? undefined : { ':expected': cursor.version },
          }),
        ),
      );
    } catch (err) {
      if (isConditionalCheckFailed(err)) {
        throw new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version, { cause: err });
      }
      throw err;
    }
    return stored;
  }
}

function cursorFromItem(item: Item): Cursor {
  const { pk: _pk, sk: _sk, ...fields } = item;
  const cursor = fields as unknown as Cursor;
  cursor.version = Number(cursor.version ?? 0);
  cursor.baselineDone = cursor.baselineDone === true;
  cursor.health ??= { consecutiveFailures: 0 };
  return cursor;
}
