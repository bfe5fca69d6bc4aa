import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../lambdas/state/store';
import { createStateTable, stateTableKeySchema } from '../../../lambdas/state/table';
import { type Dynalite, startDynalite } from '../../support/dynalite';

describe('createStateTable on dynalite', () => {
  let db: Dynalite;

  beforeAll(async () => {
    db = await startDynalite();
  });

  afterAll(async () => {
    await db.close();
  });

  it('creates an ACTIVE pk/sk PAY_PER_REQUEST table, and accepts it as is the second time', async () => {
    // Act
    const first = await createStateTable(db.client, 'state-idempotent');
    const second = await createStateTable(db.client, 'state-idempotent');

    // Assess
    expect(first).toEqual({ tableName: 'state-idempotent', created: true, timeToLive: 'UNSUPPORTED' });
    expect(second).toMatchObject({ created: false, timeToLive: 'UNSUPPORTED' });
    const { Table } = await db.client.send(new DescribeTableCommand({ TableName: 'state-idempotent' }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: stateTableKeySchema.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: stateTableKeySchema.sortKey.name, KeyType: 'RANGE' },
    ]);
  });

  it('survives concurrent callers creating the same table', async () => {
    // Act
    const results = await Promise.all([1, 2, 3].map(() => createStateTable(db.client, 'state-race')));

    // Assess
    expect(results.filter((r) => r.created).length).toBeLessThanOrEqual(1);
    expect(results.every((r) => r.tableName === 'state-race')).toBe(true);
  });

  it('refuses an existing table with other keys', async () => {
    // Prepare
    await db.client.send(
      new CreateTableCommand({
        TableName: 'not-a-state-table',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );

    // Act
    const result = createStateTable(db.client, 'not-a-state-table');

    // Assess
    await expect(result).rejects.toBeInstanceOf(StoreError);
    await expect(result).rejects.toThrow(/expected pk\/sk/);
  });
});
