/**
 * The state table's shape, defined once: the CDK stack reuses `stateTableKeySchema`, and
 * `createStateTable` makes the same table for the CLI (`poll --create-table`), the local demo and
 * tests. Idempotent: an existing table with the right keys is accepted as is.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { sleep as realSleep } from '../common/backoff';
import { logger } from '../common/logger';
import { StoreError } from './store';

export const stateTableKeySchema = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  /** Number attribute, epoch seconds. TTL deletes late (or never, on dynalite): reads filter it too. */
  timeToLiveAttribute: 'expiresAt',
} as const;

export type TimeToLiveState = 'ENABLED' | 'ENABLING' | 'UNSUPPORTED';

export interface CreateStateTableResult {
  readonly tableName: string;
  /** True if this call created the table, false if it already existed. */
  readonly created: boolean;
  /** UNSUPPORTED: the endpoint has no UpdateTimeToLive (dynalite); expiry still works on read. */
  readonly timeToLive: TimeToLiveState;
}

export interface CreateStateTableOptions {
  /** How long to wait for the table to become ACTIVE. @default 300_000 */
  readonly timeoutMs?: number;
  /** @default setTimeout-based sleep */
  readonly sleep?: (ms: number) => Promise<void>;
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

function tableError(tableName: string, what: string, cause?: unknown): StoreError {
  const detail = cause instanceof Error ? `: ${cause.name}: ${cause.message}` : '';
  return new StoreError(`state table ${tableName}: ${what}${detail}`, { cause });
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return out.Table;
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException') return undefined;
    throw tableError(tableName, 'DescribeTable failed', err);
  }
}

function assertKeySchema(tableName: string, table: TableDescription): void {
  const hash = table.KeySchema?.find((k) => k.KeyType === 'HASH')?.AttributeName;
  const range = table.KeySchema?.find((k) => k.KeyType === 'RANGE')?.AttributeName;
  const { partitionKey, sortKey } = stateTableKeySchema;
  if (hash !== partitionKey.name || range !== sortKey.name) {
    throw tableError(
      tableName,
      `exists with keys ${hash}/${range}, expected ${partitionKey.name}/${sortKey.name}: choose another table name`,
    );
  }
}

async function createIfMissing(client: DynamoDBClient, tableName: string): Promise<boolean> {
  if (await describe(client, tableName)) return false;
  const { partitionKey, sortKey } = stateTableKeySchema;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: partitionKey.name, AttributeType: partitionKey.type },
          { AttributeName: sortKey.name, AttributeType: sortKey.type },
        ],
        KeySchema: [
          { AttributeName: partitionKey.name, KeyType: 'HASH' },
          { AttributeName: sortKey.name, KeyType: 'RANGE' },
        ],
      }),
    );
    logger.info('created state table', { tableName });
    return true;
  } catch (err) {
    // Someone else created it between our describe and create: fine, wait for it like any other.
    if (errorName(err) === 'ResourceInUseException') return false;
    throw tableError(tableName, 'CreateTable failed', err);
  }
}

async function waitUntilActive(
  client: DynamoDBClient,
  tableName: string,
  timeoutMs: number,
  sleep: (ms: number) => Promise<void>,
): Promise<TableDescription> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const table = await describe(client, tableName);
    if (table?.TableStatus === 'ACTIVE') return table;
    if (table?.TableStatus === 'DELETING') throw tableError(tableName, 'is being deleted');
    if (Date.now() >= deadline) {
      throw tableError(
        tableName,
        `not ACTIVE after ${timeoutMs} ms (status ${table?.TableStatus ?? 'missing'})`,
      );
    }
    await sleep(Math.min(2000, 25 * 2 ** attempt));
  }
}

async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<TimeToLiveState> {
  const attribute = stateTableKeySchema.timeToLiveAttribute;
  try {
    const current = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    const status = current.TimeToLiveDescription?.TimeToLiveStatus;
    if (status === 'ENABLED' || status === 'ENABLING') {
      const name = current.TimeToLiveDescription?.AttributeName;
      if (name !== undefined && name !== attribute) {
        throw tableError(tableName, `has TTL on ${name}, expected ${attribute}`);
      }
      return status;
    }
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: attribute },
      }),
    );
    logger.info('enabled TTL on state table', { tableName, attribute });
    return 'ENABLING';
  } catch (err) {
    if (err instanceof StoreError) throw err;
    const name = errorName(err);
    if (name === 'UnknownOperationException' || name === 'UnknownOperation') {
      logger.debug('endpoint has no UpdateTimeToLive (dynalite?); expiry is filtered on read', { tableName });
      return 'UNSUPPORTED';
    }
    // A concurrent caller enabled it between our describe and update.
    if (name === 'ValidationException' && err instanceof Error && /already enabled/i.test(err.message)) {
      return 'ENABLED';
    }
    throw tableError(tableName, 'enabling TTL failed', err);
  }
}

/**
 * Creates the state table if it does not exist (pk/sk strings, PAY_PER_REQUEST), waits until it is
 * ACTIVE, and turns on TTL on `expiresAt` where the endpoint supports it. Safe to call every start.
 */
export async function createStateTable(
  client: DynamoDBClient,
  tableName: string,
  options: CreateStateTableOptions = {},
): Promise<CreateStateTableResult> {
  if (!tableName) throw new StoreError('createStateTable needs a table name');
  const sleep = options.sleep ?? realSleep;
  const created = await createIfMissing(client, tableName);
  const table = await waitUntilActive(client, tableName, options.timeoutMs ?? 300_000, sleep);
  assertKeySchema(tableName, table);
  const timeToLive = await enableTimeToLive(client, tableName);
  return { tableName, created, timeToLive };
}
