/**
 * The webhook table of the local stack (local-aws): the same table as a deployed stage's (endpoints,
 * health, dead letters: lambdas/delivery/webhook-store.ts), plus what AWS keeps elsewhere and
 * local-aws does not serve: the signing keys (./table-signing-keys.ts, instead of Secrets Manager),
 * the delivery queue (./table-delivery-queue.ts, instead of SQS) and an archive of the events the
 * bus received (./local-archive.ts, instead of the EventBridge archive). So the `webhooks` commands,
 * run in another process, reach everything through the one DynamoDB endpoint local-aws prints.
 *
 * local-aws marks the table (`STACK/LOCAL`); the CLI treats a table as the local stack's only when
 * the mark is there AND the DynamoDB endpoint is on this machine: a deployed table is never read
 * that way, whatever it holds.
 *
 * | item | pk | sk |
 * |---|---|---|
 * | the mark | `STACK` | `LOCAL` |
 * | a key document (as a key secret holds it) | `KEYS` | `<secret name>` |
 * | a queued delivery | `QUEUE` | `<visible at, ms, 15 digits>#<message id>` |
 * | an archived event | `ARCHIVE` | `<event time>#<eventId>` |
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

export const LOCAL_STACK_KEY = { pk: 'STACK', sk: 'LOCAL' } as const;
/** Where the local stack's key documents are named (the endpoint records its secret name). */
export const LOCAL_SECRET_PREFIX = 'local/webhooks/';

export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** Marks the table as the local stack's (local-aws, at start). */
export async function markLocalStack(client: DynamoDBClient, tableName: string): Promise<void> {
  await documentClient(client).send(
    new PutCommand({
      TableName: tableName,
      Item: { ...LOCAL_STACK_KEY, by: 'local-aws', at: new Date().toISOString() },
    }),
  );
}

/** An endpoint URL on this machine (loopback), e.g. local-aws's http://127.0.0.1:4567. */
export function isLoopbackEndpoint(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * Whether `tableName` is the local stack's: DynamoDB on this machine (`dynamodbEndpoint`, the
 * SDK's AWS_ENDPOINT_URL_DYNAMODB) and the table marked by local-aws.
 */
export async function isLocalStack(
  client: DynamoDBClient,
  tableName: string,
  dynamodbEndpoint: string | undefined,
): Promise<boolean> {
  if (!isLoopbackEndpoint(dynamodbEndpoint)) return false;
  const out = await documentClient(client).send(
    new GetCommand({ TableName: tableName, Key: LOCAL_STACK_KEY, ConsistentRead: true }),
  );
  return out.Item !== undefined;
}
