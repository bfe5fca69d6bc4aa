/**
 * The club state item on the state table (`CLUB#<id>` / `STATE`, layout in ../club-state.ts):
 * attributes `v` (version), `lo`/`le` (lease owner, lease end in epoch ms), `c` (gzipped cursors),
 * `qm`/`qn` (the month and its request count), `lh` (the hour of the last lifecycle evaluation),
 * `ln` (what the polls changed since it: ../lifecycle-notes.ts).
 * Every write is one conditional UpdateItem.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  CLUB_STATE_SK,
  type ClubItemBackend,
  type ClubWrite,
  decodeCursors,
  encodeCursors,
  type StoredClubState,
} from '../club-state';
import { clubPk, type ItemKey } from '../keys';
import { decodeNotes, encodeNotes, isEmptyNotes } from '../lifecycle-notes';
import { StoreError } from '../store';
import { DynamoDbPreviousLayout } from './previous-layout';
import { type Item, isConditionalCheckFailed, type StateTableClient } from './state-table-client';

export function clubStateKey(clubId: string): ItemKey {
  return { pk: clubPk(clubId), sk: CLUB_STATE_SK };
}

const LEASE_FREE = 'attribute_not_exists(le) OR le <= :now OR lo = :owner';

export class DynamoDbClubItems implements ClubItemBackend {
  readonly previousLayout: DynamoDbPreviousLayout;

  constructor(private readonly table: StateTableClient) {
    this.previousLayout = new DynamoDbPreviousLayout(table);
  }

  async take(clubId: string, owner: string, expiresAtMs: number, nowMs: number) {
    const { doc, tableName } = this.table;
    try {
      const out = await this.table.call('UpdateItem', () =>
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: clubStateKey(clubId),
            UpdateExpression: 'SET lo = :owner, le = :until',
            ConditionExpression: LEASE_FREE,
            ExpressionAttributeValues: { ':owner': owner, ':until': expiresAtMs, ':now': nowMs },
            // The item before: a lease still on it is a poll that stopped without its closing write.
            ReturnValues: 'ALL_OLD',
          }),
        ),
      );
      const before = out.Attributes ?? {};
      return {
        ...stateOf(clubId, before),
        leaseOwner: owner,
        leaseExpiresAtMs: expiresAtMs,
        ...(before.lo === undefined ? {} : { uncleanStop: true }),
      };
    } catch (err) {
      if (isConditionalCheckFailed(err)) return 'held' as const;
      throw err;
    }
  }

  async drop(clubId: string, owner: string): Promise<void> {
    const { doc, tableName } = this.table;
    await this.table.conditionally('UpdateItem', () =>
      doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: clubStateKey(clubId),
          UpdateExpression: 'REMOVE lo, le',
          ConditionExpression: 'lo = :owner',
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }

  async write(change: ClubWrite): Promise<boolean> {
    const { doc, tableName } = this.table;
    const values: Record<string, unknown> = { ':v': change.version };
    const sets = ['v = :v'];
    const removes: string[] = [];
    if (change.cursors) {
      sets.push('c = :c');
      values[':c'] = encodeCursors(change.cursors);
    }
    if (change.quota) {
      sets.push('qm = :qm', 'qn = :qn');
      values[':qm'] = change.quota.month;
      values[':qn'] = change.quota.requests;
    }
    if (change.lifecycleHour !== undefined) {
      sets.push('lh = :lh');
      values[':lh'] = change.lifecycleHour;
    }
    if (change.lifecycleNotes !== undefined) {
      if (isEmptyNotes(change.lifecycleNotes)) removes.push('ln');
      else {
        sets.push('ln = :ln');
        values[':ln'] = encodeNotes(change.lifecycleNotes);
      }
    }
    // Fenced: the owner, a lease not yet expired, and no write by anyone since this session's.
    const version =
      change.condition.expectVersion === 0 ? '(attribute_not_exists(v) OR v = :expect)' : 'v = :expect';
    const condition = `lo = :owner AND le > :now AND ${version}`;
    values[':owner'] = change.condition.owner;
    values[':now'] = change.condition.nowMs;
    values[':expect'] = change.condition.expectVersion;
    if (change.condition.release) removes.push('lo', 'le');
    const update = `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`;
    return this.table.conditionally('UpdateItem', () =>
      doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: clubStateKey(change.clubId),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async read(clubId: string): Promise<StoredClubState | undefined> {
    const { doc, tableName } = this.table;
    const out = await this.table.call('GetItem', () =>
      doc.send(new GetCommand({ TableName: tableName, Key: clubStateKey(clubId), ConsistentRead: true })),
    );
    return out.Item ? stateOf(clubId, out.Item) : undefined;
  }

  async readMany(clubIds: readonly string[]): Promise<Map<string, StoredClubState>> {
    const items = await this.table.batchGet(clubIds.map(clubStateKey), undefined, false);
    const out = new Map<string, StoredClubState>();
    for (const item of items) {
      const clubId = String(item.pk).slice('CLUB#'.length);
      out.set(clubId, stateOf(clubId, item));
    }
    return out;
  }
}

function stateOf(clubId: string, item: Item): StoredClubState {
  const bytes = item.c;
  if (bytes !== undefined && !(bytes instanceof Uint8Array)) {
    throw new StoreError(`club ${clubId}: the stored cursors are not binary`);
  }
  return {
    version: Number(item.v ?? 0),
    ...(typeof item.lo === 'string' ? { leaseOwner: item.lo } : {}),
    ...(item.le !== undefined ? { leaseExpiresAtMs: Number(item.le) } : {}),
    ...(bytes ? { cursors: decodeCursors(clubId, bytes) } : {}),
    ...(typeof item.qm === 'string' ? { quotaMonth: item.qm } : {}),
    ...(item.qn !== undefined ? { quotaRequests: Number(item.qn) } : {}),
    ...(item.lh !== undefined ? { lifecycleHour: Number(item.lh) } : {}),
    ...(item.ln !== undefined ? { lifecycleNotes: decodeNotes(item.ln) } : {}),
  };
}
