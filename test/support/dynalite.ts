/**
 * DynamoDB for tests: dynalite in this process on 127.0.0.1 (ephemeral port) and the real AWS SDK.
 *
 *   const db = await startDynalite();                       // beforeAll
 *   const tableName = await createTestTable(db.client);     // a fresh, empty state table
 *   await db.close();                                       // afterAll
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createStateTable } from '../../lambdas/state/table';
import { startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';

export interface Dynalite {
  /** http://127.0.0.1:<port>; e.g. for AWS_ENDPOINT_URL_DYNAMODB in a child process. */
  readonly endpoint: string;
  /** Region us-east-1, dummy credentials. */
  readonly client: DynamoDBClient;
  close(): Promise<void>;
}

export function startDynalite(): Promise<Dynalite> {
  return startEmbeddedDynamoDb({ createTableMs: 0 });
}

let tableCounter = 0;

/** A state table (same keys as production) under a unique name, ready to use. */
export async function createTestTable(client: DynamoDBClient, prefix = 'test-state'): Promise<string> {
  tableCounter += 1;
  const tableName = `${prefix}-${process.pid}-${tableCounter}-${randomBytes(3).toString('hex')}`;
  await createStateTable(client, tableName);
  return tableName;
}
