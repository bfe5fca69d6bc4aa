/**
 * Signing keys of the local stack, kept in its webhook table (local-aws serves no Secrets Manager):
 * one item per key document, `KEYS/<secret name>`, holding the document a key secret holds in AWS
 * (`{ format, endpoints: { <id>: { keyVersion, key, previous?, headers? } } }`,
 * lambdas/delivery/signing-keys.ts), written with a compare-and-swap on its version attribute, so
 * two `webhooks add` at once never lose one another's endpoint. Read fresh every time (the local
 * stack is one machine); keys and header values read are remembered for the output's redaction.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  changedEndpoints,
  KEYS_FORMAT,
  type KeyEntry,
  type KeysDocument,
  KeysDocumentSchema,
  rememberKeyEntry,
  SigningKeyError,
  type SigningKeyStore,
} from '../../lambdas/delivery/signing-keys';
import { documentClient } from './local-stack-table';

const CAS_ATTEMPTS = 20;
/** A random wait before writing again after a lost race, up to this many ms per attempt so far. */
const BACKOFF_MS = 20;

export class TableSigningKeys implements SigningKeyStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(client: DynamoDBClient, tableName: string) {
    this.#doc = documentClient(client);
    this.#table = tableName;
  }

  async entry(secretName: string, endpointId: string, keyVersion: number): Promise<KeyEntry | undefined> {
    const entry = (await this.#read(secretName)).doc.endpoints[endpointId];
    rememberKeyEntry(entry);
    return entry && entry.keyVersion >= keyVersion ? entry : undefined;
  }

  async update(
    secretName: string,
    endpointId: string,
    change: (e: KeyEntry | undefined) => KeyEntry | undefined,
  ): Promise<void> {
    for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
      const { doc, version } = await this.#read(secretName);
      const endpoints = changedEndpoints(doc, endpointId, change);
      try {
        await this.#doc.send(
          new PutCommand({
            TableName: this.#table,
            Item: {
              pk: 'KEYS',
              sk: secretName,
              doc: JSON.stringify({ format: KEYS_FORMAT, endpoints }),
              v: version + 1,
            },
            ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'v = :v',
            ...(version === 0 ? {} : { ExpressionAttributeValues: { ':v': version } }),
          }),
        );
        return;
      } catch (err) {
        if (!(err instanceof Error && err.name === 'ConditionalCheckFailedException')) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * attempt));
      }
    }
    throw new SigningKeyError(`keys '${secretName}': ${CAS_ATTEMPTS} writes in a row lost a race; try again`);
  }

  async #read(secretName: string): Promise<{ doc: KeysDocument; version: number }> {
    const out = await this.#doc.send(
      new GetCommand({ TableName: this.#table, Key: { pk: 'KEYS', sk: secretName }, ConsistentRead: true }),
    );
    if (!out.Item) return { doc: { format: KEYS_FORMAT, endpoints: {} }, version: 0 };
    let json: unknown;
    try {
      json = JSON.parse(String(out.Item.doc));
    } catch {
      json = undefined;
    }
    const parsed = KeysDocumentSchema.safeParse(json);
    if (!parsed.success)
      throw new SigningKeyError(`keys '${secretName}' in the table are not a key document`);
    return { doc: parsed.data, version: Number(out.Item.v ?? 0) };
  }
}
