/**
 * The AWS side of the poll function in a process of its own (as the bench's other servers, rpc.ts):
 * dynalite for the state table, the local EventBridge with the function's bus (events counted, not
 * kept) and a local Secrets Manager holding the clubs' credentials. Run by the bench, never on its
 * own.
 */

import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';
import { type LocalEventBridge, startLocalEventBridge } from '../../local-aws/local-eventbridge';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../local-aws/local-secrets-manager';
import { serveHost } from './rpc';

export interface PollAwsEndpoints {
  readonly dynamodb: string;
  readonly eventBridge: string;
  readonly secretsManager: string;
}

let running: { db: EmbeddedDynamoDb; bus: LocalEventBridge; secrets: LocalSecretsManager } | undefined;
let events = 0;

serveHost({
  async start(options: { readonly bus: string }): Promise<PollAwsEndpoints> {
    const [db, bus, secrets] = await Promise.all([
      startEmbeddedDynamoDb({ createTableMs: 0 }),
      startLocalEventBridge({ buses: [options.bus], keepEvents: false, onEvent: () => void events++ }),
      startLocalSecretsManager(),
    ]);
    running = { db, bus, secrets };
    return { dynamodb: db.endpoint, eventBridge: bus.endpoint, secretsManager: secrets.endpoint };
  },
  /** Creates or replaces secrets, in process. */
  setSecrets(secrets: readonly (readonly [name: string, value: string])[]) {
    for (const [name, value] of secrets) running?.secrets.setSecret(name, value);
    return true;
  },
  /** Events the bus accepted since the last call. */
  takeEventCount() {
    const n = events;
    events = 0;
    return n;
  },
  async close() {
    await Promise.all([running?.db.close(), running?.bus.close(), running?.secrets.close()]);
    running = undefined;
    return true;
  },
});
