/**
 * The club registry in the state table.
 *
 * | item                 | pk               | sk        | holds                                   |
 * | -------------------- | ---------------- | --------- | --------------------------------------- |
 * | club config          | `CLUB#<id>`      | `CONFIG`  | the ClubRecord (authoritative)          |
 * | club directory entry | `CLUBS#<bucket>` | `<id>`    | a copy of the same record, for listing  |
 *
 * Why a directory: the dispatcher lists the clubs every minute. The table has no index on `sk`, so
 * finding every `CONFIG` item would be a Scan of the whole table (millions of seen keys and
 * snapshots), read every minute. Queries on the directory read only the club entries (about 2,000
 * clubs per 1 MB page).
 *
 * Why in buckets: a deployment runs N dispatch shards side by side (common/club-shard.ts). Each
 * shard queries only its buckets (`clubBucket(id) mod N = shard`), so the fleet's directory is
 * read once a minute in all, spread over CLUB_DIRECTORY_BUCKETS partition keys, instead of N times
 * from one partition (at 50,000 clubs, 20 MB a shard and the one partition's 3,000 RCU/s limit).
 * The buckets do not depend on N: changing the shard count rewrites nothing.
 *
 * Entries written before the buckets (pk `CLUBS`) are still listed, each by the shard of its
 * bucket, until `put` or `disable` rewrites the club (it moves the entry: a new one, then the old
 * one deleted); `clubs add` again migrates a fleet.
 *
 * `get` reads the authoritative CONFIG item; `put` and `disable` write CONFIG first and the
 * directory entry second, so a failure in between leaves the CONFIG item right and the next
 * `clubs add` (idempotent) repairs the copy; the poller always re-checks CONFIG.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  bucketsOfShard,
  CLUB_DIRECTORY_BUCKETS,
  clubBucket,
  type DispatchShard,
  inShard,
  WHOLE_FLEET,
} from '../common/club-shard';
import { mapWithConcurrency } from '../common/concurrency';
import { logger } from '../common/logger';
import { type ClubRecord, ClubRecordSchema, parseClubRecord } from './club-record';
import { type ClubListing, type ClubRegistry, ClubRegistryError } from './club-registry';

/** The directory partition of entries written before the buckets: read until rewritten. */
export const LEGACY_CLUB_DIRECTORY_PK = 'CLUBS';
export const CLUB_CONFIG_SK = 'CONFIG';
/** Directory partitions queried side by side in one listing. */
const LIST_CONCURRENCY = 16;

/** `CLUBS#07`: the directory partition of a bucket. */
export const clubDirectoryPk = (bucket: number) =>
  `${LEGACY_CLUB_DIRECTORY_PK}#${String(bucket).padStart(String(CLUB_DIRECTORY_BUCKETS - 1).length, '0')}`;
export const clubConfigKey = (clubId: string) => ({ pk: `CLUB#${clubId}`, sk: CLUB_CONFIG_SK });
export const clubDirectoryKey = (clubId: string) => ({ pk: clubDirectoryPk(clubBucket(clubId)), sk: clubId });
const legacyDirectoryKey = (clubId: string) => ({ pk: LEGACY_CLUB_DIRECTORY_PK, sk: clubId });

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

  listEnabled(shard: DispatchShard = WHOLE_FLEET): Promise<ClubListing> {
    return this.#list(true, shard);
  }

  listAll(): Promise<ClubListing> {
    return this.#list(false, WHOLE_FLEET);
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

  /** Writes the club's entry in its bucket, then deletes its entry of before the buckets, if any. */
  async #putDirectoryEntry(record: ClubRecord): Promise<void> {
    await this.#call('PutItem', () =>
      this.#doc.send(
        new PutCommand({ TableName: this.#table, Item: { ...record, ...clubDirectoryKey(record.clubId) } }),
      ),
    );
    await this.#call('DeleteItem', () =>
      this.#doc.send(new DeleteCommand({ TableName: this.#table, Key: legacyDirectoryKey(record.clubId) })),
    );
  }

  /** The shard's buckets and the entries of before the buckets that fall in them, side by side. */
  async #list(enabledOnly: boolean, shard: DispatchShard): Promise<ClubListing> {
    const partitions = [LEGACY_CLUB_DIRECTORY_PK, ...bucketsOfShard(shard).map(clubDirectoryPk)];
    const pages = await mapWithConcurrency(partitions, LIST_CONCURRENCY, (pk) => this.#queryPartition(pk));
    const byId = new Map<string, ClubRecord>();
    // The legacy partition comes first: an entry in a bucket replaces it.
    for (const [i, { records }] of pages.entries()) {
      for (const record of records) {
        if (i === 0 && !inShard(record.clubId, shard)) continue;
        byId.set(record.clubId, record);
      }
    }
    const clubs = [...byId.values()].filter((r) => !enabledOnly || r.enabled);
    clubs.sort((a, b) => (a.clubId < b.clubId ? -1 : a.clubId > b.clubId ? 1 : 0));
    return { clubs, requests: pages.reduce((n, p) => n + p.requests, 0) };
  }

  /** Every valid entry of one directory partition, page by page. */
  async #queryPartition(pk: string): Promise<{ records: ClubRecord[]; requests: number }> {
    const records: ClubRecord[] = [];
    let requests = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.#call('Query', () =>
        this.#doc.send(
          new QueryCommand({
            TableName: this.#table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        ),
      );
      requests++;
      for (const item of out.Items ?? []) {
        try {
          records.push(parseClubRecord(item));
        } catch (err) {
          // One bad entry must not stop every other club from being polled.
          logger.error('club directory entry skipped', { clubId: item.sk, err });
        }
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return { records, requests };
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
