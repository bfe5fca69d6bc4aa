/**
 * The per-source layout of releases before the club state item: a `CURSOR#<source>` item per
 * source, a `LEASE#CLUB` item, a `QUOTA#<yyyy-mm>` counter per month. Read (never written, except
 * the lease claim) for a club whose state item was never committed, so an upgraded deployment
 * carries on from its watermarks. The claim takes the old lease for a day under a marker owner: a
 * poller of the previous version still running during the upgrade finds the club held and skips it.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PreviousLayout } from '../club-state';
import { CURSOR_SK_PREFIX, clubPk, leaseKey, quotaKey } from '../keys';
import type { Cursor } from '../store';
import type { Item, StateTableClient } from './state-table-client';

/** The owner written on a claimed old lease. */
export const MIGRATED_LEASE_OWNER = 'club-state-item';
export const MIGRATED_LEASE_MS = 24 * 60 * 60_000;

export class DynamoDbPreviousLayout implements PreviousLayout {
  constructor(private readonly table: StateTableClient) {}

  async cursors(clubId: string): Promise<Cursor[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': clubPk(clubId), ':prefix': CURSOR_SK_PREFIX },
    });
    return items.map(cursorFromItem);
  }

  async quota(clubId: string, month: string): Promise<number> {
    const { doc, tableName } = this.table;
    const out = await this.table.call('GetItem', () =>
      doc.send(new GetCommand({ TableName: tableName, Key: quotaKey(clubId, month), ConsistentRead: true })),
    );
    return Number(out.Item?.requests ?? 0);
  }

  async claimLease(clubId: string, _owner: string, nowMs: number): Promise<boolean> {
    const { doc, tableName } = this.table;
    const expiresAtMs = nowMs + MIGRATED_LEASE_MS;
    return this.table.conditionally('PutItem', () =>
      doc.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...leaseKey(clubId, 'CLUB'),
            owner: MIGRATED_LEASE_OWNER,
            expiresAtMs,
            expiresAt: Math.ceil(expiresAtMs / 1000) + 3600,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs <= :now OR #owner = :marker',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': nowMs, ':marker': MIGRATED_LEASE_OWNER },
        }),
      ),
    );
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
