/**
 * A DynamoDB-compatible server in this process (dynalite, in memory), for the local demo and tests.
 * Listens on 127.0.0.1 (an ephemeral port unless one is given). Not for Lambda: dynalite is loaded
 * only when this is called, and `index.ts` does not re-export it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsClientConfig } from '../lambdas/common/aws-clients';

export interface EmbeddedDynamoDb {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  /** A client for it: region us-east-1, dummy credentials, the runtime's retry settings. */
  readonly client: DynamoDBClient;
  /** Destroys the client and stops the server; all data is gone. */
  close(): Promise<void>;
}

export interface EmbeddedDynamoDbOptions {
  /** @default 0 (an ephemeral port) */
  readonly port?: number;
  /** How long a new table stays CREATING, in ms (real DynamoDB: seconds). @default 0 */
  readonly createTableMs?: number;
}

export async function startEmbeddedDynamoDb(
  options: EmbeddedDynamoDbOptions = {},
): Promise<EmbeddedDynamoDb> {
  const { default: dynalite } = await import('dynalite');
  const createTableMs = options.createTableMs ?? 0;
  const server: Server = dynalite({ createTableMs, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    ...awsClientConfig(),
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let closed: Promise<void> | undefined;
  return {
    endpoint,
    client,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        client.destroy();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
