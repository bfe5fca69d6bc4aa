/** QuotaStore on the state table: one counter item per (club, month), incremented atomically. */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { quotaKey } from '../keys';
import type { QuotaStore } from '../store';
import { quotaExpiresAtSec, validateQuotaRequests } from '../validation';
import type { StateTableClient } from './state-table-client';

export class DynamoDbQuotaStore implements QuotaStore {
  constructor(private readonly table: StateTableClient) {}

  async addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    const { doc, tableName } = this.table;
    const key = quotaKey(clubId, month);
    validateQuotaRequests(requests);
    const out = await this.table.call('UpdateItem', () =>
      doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'ADD requests :n SET expiresAt = :ttl',
          ExpressionAttributeValues: { ':n': requests, ':ttl': quotaExpiresAtSec(month) },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    return Number(out.Attributes?.requests ?? 0);
  }

  async getQuotaUsage(clubId: string, month: string): Promise<number> {
    const { doc, tableName } = this.table;
    const key = quotaKey(clubId, month);
    const out = await this.table.call('GetItem', () =>
      doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })),
    );
    return Number(out.Item?.requests ?? 0);
  }
}
