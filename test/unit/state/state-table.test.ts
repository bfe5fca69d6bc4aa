/**
 * createStateTable paths that dynalite cannot show: a table that takes a while to become ACTIVE,
 * and TTL on an endpoint that supports it (real DynamoDB). The SDK is mocked.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../lambdas/state/store';
import { createStateTable } from '../../../lambdas/state/table';

const ddb = mockClient(DynamoDBClient);
const KEYS = [
  { AttributeName: 'pk', KeyType: 'HASH' as const },
  { AttributeName: 'sk', KeyType: 'RANGE' as const },
];
const notFound = () =>
  new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} });

describe('createStateTable against DynamoDB (mocked)', () => {
  const client = new DynamoDBClient({ region: 'us-east-1' });
  let sleeps: number[];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };

  beforeEach(() => {
    ddb.reset();
    sleeps = [];
  });

  afterAll(() => {
    ddb.restore();
  });

  it('creates the table, waits while it is CREATING, then enables TTL on expiresAt', async () => {
    // Prepare
    ddb
      .on(DescribeTableCommand)
      .rejectsOnce(notFound())
      .resolvesOnce({ Table: { TableStatus: 'CREATING', KeySchema: KEYS } })
      .resolvesOnce({ Table: { TableStatus: 'CREATING', KeySchema: KEYS } })
      .resolves({ Table: { TableStatus: 'ACTIVE', KeySchema: KEYS } });
    ddb.on(CreateTableCommand).resolves({});
    ddb.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    ddb.on(UpdateTimeToLiveCommand).resolves({});

    // Act
    const result = await createStateTable(client, 'bridge-state', { sleep });

    // Assess
    expect(result).toEqual({ tableName: 'bridge-state', created: true, timeToLive: 'ENABLING' });
    expect(sleeps).toHaveLength(2);
    expect(ddb.commandCalls(CreateTableCommand)[0]?.args[0].input).toMatchObject({
      TableName: 'bridge-state',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: KEYS,
    });
    expect(ddb.commandCalls(UpdateTimeToLiveCommand)[0]?.args[0].input).toEqual({
      TableName: 'bridge-state',
      TimeToLiveSpecification: { Enabled: true, AttributeName: 'expiresAt' },
    });
  });

  it('leaves an existing table with TTL already on expiresAt alone', async () => {
    // Prepare
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE', KeySchema: KEYS } });
    ddb
      .on(DescribeTimeToLiveCommand)
      .resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' } });

    // Act
    const result = await createStateTable(client, 'bridge-state', { sleep });

    // Assess
    expect(result).toEqual({ tableName: 'bridge-state', created: false, timeToLive: 'ENABLED' });
    expect(ddb.commandCalls(CreateTableCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateTimeToLiveCommand)).toHaveLength(0);
  });

  it('refuses a table whose TTL is on another attribute', async () => {
    // Prepare
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE', KeySchema: KEYS } });
    ddb
      .on(DescribeTimeToLiveCommand)
      .resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' } });

    // Act / Assess
    await expect(createStateTable(client, 'bridge-state', { sleep })).rejects.toThrow(
      /TTL on ttl, expected expiresAt/,
    );
  });

  it('gives up with a StoreError when the table never becomes ACTIVE', async () => {
    // Prepare
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'CREATING', KeySchema: KEYS } });

    // Act
    const result = createStateTable(client, 'bridge-state', { sleep, timeoutMs: 0 });

    // Assess
    await expect(result).rejects.toBeInstanceOf(StoreError);
    await expect(result).rejects.toThrow(/not ACTIVE after 0 ms \(status CREATING\)/);
  });
});
