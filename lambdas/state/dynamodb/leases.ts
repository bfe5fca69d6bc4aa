/** LeaseStore on the state table: one item per lease, taken and released by conditional writes. */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { leaseKey } from '../keys';
import type { LeaseStore } from '../store';
import { validateLeaseArgs } from '../validation';
import type { StateTableClient } from './state-table-client';

/** Lease items linger an hour past their expiry before TTL may remove them (purely housekeeping). */
function leaseTtlSec(expiresAtMs: number): number {
  return Math.ceil(expiresAtMs / 1000) + 3600;
}

export class DynamoDbLeaseStore implements LeaseStore {
  constructor(private readonly table: StateTableClient) {}

  async acquireLease(
    clubId: string,
    source: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<boolean> {
    validateLeaseArgs(owner, ttlMs, nowMs);
    const { doc, tableName } = this.table;
    const key = leaseKey(clubId, source);
    const expiresAtMs = nowMs + ttlMs;
    return this.table.conditionally('PutItem', () =>
      doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...key, owner, expiresAtMs, expiresAt: leaseTtlSec(expiresAtMs) },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs <= :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': nowMs, ':owner': owner },
        }),
      ),
    );
  }

  async releaseLease(clubId: string, source: string, owner: string): Promise<void> {
    const { doc, tableName } = this.table;
    const key = leaseKey(clubId, source);
    await this.table.conditionally('DeleteItem', () =>
      doc.send(
        new DeleteCommand({
          TableName: tableName,
          Key: key,
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }
}
