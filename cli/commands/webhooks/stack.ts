/**
 * Where the `webhooks` commands find a stage's webhook resources, as `clubs` finds its own: the
 * table from --table or the variable the stack sets ($WEBHOOK_TABLE_NAME; stack output
 * WebhookTableName), the keys under --secret-prefix / $WEBHOOK_SECRET_PREFIX (WebhookSecretPrefix)
 * in Secrets Manager, the delivery queue from --queue-url / $WEBHOOK_QUEUE_URL (WebhookQueueUrl).
 *
 * The local stack (local-aws) keeps its keys, queue and archive in its webhook table
 * (../../local-stack/local-stack-table.ts) and allows http and loopback URLs: a table is taken for
 * the local stack's when local-aws marked it and DynamoDB is on this machine.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../../lambdas/common/aws-clients';
import type { AddressPolicy } from '../../../lambdas/delivery/address-policy';
import { type DeliveryQueue, SqsDeliveryQueue } from '../../../lambdas/delivery/delivery-queue';
import { SecretsManagerSigningKeys, type SigningKeyStore } from '../../../lambdas/delivery/signing-keys';
import type { AdminContext } from '../../../lambdas/delivery/webhook-admin';
import { WebhookStore } from '../../../lambdas/delivery/webhook-store';
import { stateTableKeySchema } from '../../../lambdas/state/table';
import { CliUsageError } from '../../args';
import { dynamoDbClient, region } from '../../aws-env';
import { isLocalStack, LOCAL_SECRET_PREFIX } from '../../local-stack/local-stack-table';
import { TableDeliveryQueue } from '../../local-stack/table-delivery-queue';
import { TableSigningKeys } from '../../local-stack/table-signing-keys';
import { checkTableName, PreflightError, whereFromEnv } from '../../preflight';
import { DEFAULT_TABLE, type Flags } from './usage';

export interface WebhookStack {
  readonly tableName: string;
  /** The local stack (local-aws): keys and queue in the table, http and loopback allowed. */
  readonly local: boolean;
  readonly client: DynamoDBClient;
  readonly store: WebhookStore;
  readonly policy: AddressPolicy;
  /** The library's context; `secretPrefix` is only read by add. */
  admin(secretPrefix?: string): AdminContext;
  /** The delivery queue (redrive, replay on the local stack). */
  queue(queueUrl?: string): DeliveryQueue;
}

const PREFIX = /^[A-Za-z0-9/_+=.@-]{1,256}$/;

/** The webhook table, checked, and what the stage keeps where. */
export async function openStack(flags: Pick<Flags, 'table'>, flag = '--table'): Promise<WebhookStack> {
  const tableName = flags.table ?? process.env.WEBHOOK_TABLE_NAME ?? DEFAULT_TABLE;
  checkTableName(tableName, flag);
  const client = dynamoDbClient();
  await checkWebhookTable(client, tableName, flag);
  const local = await isLocalStack(
    client,
    tableName,
    process.env.AWS_ENDPOINT_URL_DYNAMODB ?? process.env.AWS_ENDPOINT_URL,
  );
  const store = new WebhookStore({ client, tableName });
  const policy: AddressPolicy = local ? 'local' : 'public';
  let keys: SigningKeyStore | undefined;
  const keyStore = () => {
    keys ??= local
      ? new TableSigningKeys(client, tableName)
      : new SecretsManagerSigningKeys({
          client: new SecretsManagerClient({ ...awsClientConfig(), region: region() }),
        });
    return keys;
  };
  return {
    tableName,
    local,
    client,
    store,
    policy,
    admin: (secretPrefix) => ({
      store,
      keys: keyStore(),
      secretPrefix: local ? LOCAL_SECRET_PREFIX : (secretPrefix ?? ''),
      policy,
    }),
    queue: (queueUrl) => {
      if (local) return new TableDeliveryQueue(client, tableName);
      const url = queueUrl ?? process.env.WEBHOOK_QUEUE_URL;
      if (!url)
        throw new CliUsageError(
          'give the delivery queue with --queue-url (the stack output WebhookQueueUrl) or $WEBHOOK_QUEUE_URL',
        );
      if (!/^https?:\/\/\S+$/.test(url)) throw new CliUsageError('--queue-url must be an SQS queue URL');
      return new SqsDeliveryQueue({
        client: new SQSClient({ ...awsClientConfig(), region: region() }),
        queueUrl: url,
      });
    },
  };
}

/** The key secrets' name prefix `add` writes under (a deployed stage's WebhookSecretPrefix). */
export function secretPrefixOf(flags: Pick<Flags, 'secret-prefix'>, stack: WebhookStack): string {
  if (stack.local) return LOCAL_SECRET_PREFIX;
  const prefix = flags['secret-prefix'] ?? process.env.WEBHOOK_SECRET_PREFIX;
  if (!prefix)
    throw new CliUsageError(
      'give where the signing keys go with --secret-prefix (the stack output WebhookSecretPrefix) or $WEBHOOK_SECRET_PREFIX',
    );
  if (!PREFIX.test(prefix) || !prefix.endsWith('/'))
    throw new CliUsageError(
      `--secret-prefix is a Secrets Manager name prefix ending in / (letters, digits, /_+=.@-), got '${prefix}'`,
    );
  return prefix;
}

/** The table exists with the webhook table's keys: missing or other keys exit 2, unreachable 1. */
async function checkWebhookTable(client: DynamoDBClient, name: string, flag: string): Promise<void> {
  const where = whereFromEnv('DYNAMODB');
  let keys: { AttributeName?: string | undefined; KeyType?: string | undefined }[] | undefined;
  try {
    keys = (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.KeySchema;
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceNotFoundException')
      throw new CliUsageError(
        `webhook table '${name}' does not exist at ${where}: give the stage's with ${flag} (the stack output WebhookTableName) or $WEBHOOK_TABLE_NAME; locally, start local-aws and export what it prints`,
      );
    const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new PreflightError(`DynamoDB DescribeTable ${name} at ${where} failed: ${reason}`, { cause: err });
  }
  const hash = keys?.find((k) => k.KeyType === 'HASH')?.AttributeName;
  const range = keys?.find((k) => k.KeyType === 'RANGE')?.AttributeName;
  if (hash !== stateTableKeySchema.partitionKey.name || range !== stateTableKeySchema.sortKey.name)
    throw new CliUsageError(
      `table '${name}' at ${where} is not a webhook table (keys ${hash ?? '-'}/${range ?? '-'})`,
    );
}
