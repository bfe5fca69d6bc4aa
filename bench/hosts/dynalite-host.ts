/**
 * dynalite (the embedded DynamoDB-compatible server) in its own process, so the bench measures the
 * bridge's CPU apart from the store server's. Run by the bench, never on its own.
 */
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';
import { serveHost } from './rpc';

let db: EmbeddedDynamoDb | undefined;

serveHost({
  async start() {
    db = await startEmbeddedDynamoDb({ createTableMs: 0 });
    return { endpoint: db.endpoint };
  },
  cpu() {
    return process.cpuUsage();
  },
  async close() {
    await db?.close();
    db = undefined;
    return true;
  },
});
