/**
 * The club registry in the state table.
 *
 * | item                | pk          | sk        | holds                                   |
 * | ------------------- | ----------- | --------- | --------------------------------------- |
 * | club config         | `CLUB#<id>` | `CONFIG`  | the ClubRecord (authoritative)          |
 * | club directory entry| `CLUBS`     | `<id>`    | a copy of the same record, for listing  |
 *
 * Why a directory partition: the dispatcher lists the clubs every minute. The table has no index
 * on `sk`, so finding every `CONFIG` item would be a Scan of the whole table (millions of seen keys
 * and snapshots), read every minute. One Query on `pk = CLUBS` reads only the club entries (about
 * 2,000 clubs per 1 MB page). `get` reads the authoritative CONFIG item; `put` and `disable` write
 * CONFIG first and the directory entry second, so a failure in between leaves the CONFIG item
 * right and the next `clubs add` (idempotent) repairs the copy; the poller always re-checks CONFIG.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { logger } from '../common/logger';
import { type ClubRecord, ClubRecordSchema, parseClubRecord } from './club-record';
import { type ClubListing, type ClubRegistry, ClubRegistryError } from './club-registry';

export const CLUB_DIRECTORY_PK = 'CLUBS';
export const CLUB_CONFIG_SK = 'CONFIG';

export const clubConfigKey = (clubId: string) => ({ pk: `CLUB#${clubId}`, sk: CLUB_CONFIG_SK });
export const clubDirectoryKey = (clubId: string) => ({ pk: CLUB_DIRECTORY_PK, sk: clubId });

export interface DynamoDbClubRegistryOptions {
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default Date.now */
  readonly now?: () => number;
}

const isConditionalCheckFailed = (err: unknown) =>
  err instanceof Error && err.name === 'ConditionalCheckFailedException';

export class DynamoDbClubRegistry implements ClubRegistry {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => number;

  constructor(options: DynamoDbClubRegistryOptions) {
    this.#doc =
      options.client instanceof DynamoDBDocumentClient
        ? options.client
        : DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
    this.#table = options.tableName;
    this.#now = options.now ?? Date.now;
  }

  listEnabled(): Promise<ClubListing> {
    return this.#list(true);
  }

  listAll(): Promise<ClubListing> {
    return this.#list(false);
  }

  async get(clubId: string): Promise<ClubRecord | undefined> {
    const out = await this.#call('GetItem', () =>
      this.#doc.send(
        new GetCommand({ TableName: this.#table, Key: clubConfigKey(clubId), ConsistentRead: true }),
      ),
    );
    return out.Item ? parseClubRecord(out.Item) : undefined;
  }

  async put(record: ClubRecord): Promise<void> {
    const item = ClubRecordSchema.parse({ ...record, updatedAt: new Date(this.#now()).toISOString() });
    await this.#call('PutItem', () =>
      this.#doc.send(
        new PutCommand({ TableName: this.#table, Item: { ...item, ...clubConfigKey(item.clubId) } }),
      ),
    );
    await this.#putDirectoryEntry(item);
  }

  async disable(clubId: string): Promise<boolean> {
    let updated: Record<string, unknown> | undefined;
    try {
      const out = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: clubConfigKey(clubId),
          UpdateExpression: 'SET #enabled = :false, #updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#enabled': 'enabled', '#updatedAt': 'updatedAt' },
          ExpressionAttributeValues: { ':false': false, ':now': new Date(this.#now()).toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      updated = out.Attributes;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw this.#error('UpdateItem', err);
    }
    if (updated) await this.#putDirectoryEntry(parseClubRecord(updated));
    return true;
  }

  async #putDirectoryEntry(record: ClubRecord): Promise<void> {
    await this.#call('PutItem', () =>
      this.#doc.send(
        new PutCommand({ TableName: this.#table, Item: { ...record, ...clubDirectoryKey(record.clubId) } }),
      ),
    );
  }

  async #list(enabledOnly: boolean): Promise<ClubListing> {
    const clubs: ClubRecord[] = [];
    let requests = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.#call('Query', () =>
        this.#doc.send(
          new QueryCommand({
            TableName: this.#table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': CLUB_DIRECTORY_PK },
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        ),
      );
      requests++;
      for (const item of out.Items ?? []) {
        try {
          const record = parseClubRecord(item);
          if (!enabledOnly || record.enabled) clubs.push(record);
        } catch (err) {
          // One bad entry must not stop every other club from being polled.
          logger.error('club directory entry skipped', { clubId: item.sk, err });
        }
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    clubs.sort((a, b) => (a.clubId < b.clubId ? -1 : a.clubId > b.clubId ? 1 : 0));
    return { clubs, requests };
  }

  async #call<T>(operation: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      throw this.#error(operation, err);
    }
  }

  #error(operation: string, cause: unknown): ClubRegistryError {
    const code = cause instanceof Error ? cause.name : 'unknown error';
    return new ClubRegistryError(`club registry ${operation} on table ${this.#table} failed (${code})`, {
      cause,
    });
  }
}
