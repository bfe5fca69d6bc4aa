/**
 * StateStore on one DynamoDB table (works the same against dynalite). Conditional single-item writes
 * for cursors, leases and quota; BatchGetItem/BatchWriteItem for seen keys, snapshots and
 * quarantine, chunked (100 / 25) and run with bounded concurrency; one paginated Query for a time
 * range of the time-ordered seen set. No TransactWriteItems anywhere.
 *
 * Retries: throttling errors (which DynamoDB guarantees were not applied) are retried with capped
 * exponential backoff and full jitter, on top of the SDK's own retries; unprocessed batch items are
 * resubmitted with backoff until done. Everything else, and running out of attempts, is a StoreError.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { backoffDelayMs, sleep as realSleep } from '../common/backoff';
import { chunk, mapWithConcurrency } from '../common/concurrency';
import { logger } from '../common/logger';
import {
  assertEpochSeconds,
  atOfSeenAtSk,
  CURSOR_SK_PREFIX,
  clubPk,
  cursorKey,
  fingerprintOfSeenAtSk,
  type ItemKey,
  leaseKey,
  quarantineKey,
  quarantinePk,
  quotaKey,
  seenAtKey,
  seenAtPk,
  seenAtTag,
  seenKey,
  seenPk,
  snapshotKey,
  snapshotPk,
} from './keys';
import {
  ConcurrentModificationError,
  type Cursor,
  DEFAULT_QUARANTINE_LIST_LIMIT,
  type FilterSeenOptions,
  newCursor,
  type QuarantinedRecord,
  type SeenAt,
  type SeenEntry,
  type SeenSinceOptions,
  type Snapshot,
  type SnapshotKind,
  type SourceName,
  type StateStore,
  StoreError,
} from './store';
import {
  decodeQuarantinedRaw,
  encodeQuarantinedRaw,
  MAX_QUARANTINE_REASON_CHARS,
  storableCursor,
  toStorable,
} from './stored-values';
import { quotaExpiresAtSec, validateLeaseArgs, validateQuotaRequests, validateSeenRange } from './validation';

/** DynamoDB's per-call limits. */
export const BATCH_GET_MAX_KEYS = 100;
export const BATCH_WRITE_MAX_ITEMS = 25;

export interface DynamoDbStateStoreOptions {
  /** A plain client (wrapped in a DocumentClient here) or a DocumentClient with default unmarshalling. */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default setTimeout-based sleep; tests pass a recorder. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Attempts per call on throttling, and backoff rounds without progress on unprocessed batch items. @default 10 */
  readonly maxAttempts?: number;
  /** @default 50 */
  readonly baseDelayMs?: number;
  /** @default 3000 */
  readonly maxDelayMs?: number;
  /** Batch calls in flight at once per store method. @default 8 */
  readonly maxConcurrency?: number;
  /** Clock in epoch ms, used where the port takes no time (listQuarantined expiry). @default Date.now */
  readonly now?: () => number;
}

type Item = Record<string, unknown>;
type WriteRequest = { PutRequest: { Item: Item } };

const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'Throttling',
]);

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

export function isConditionalCheckFailed(err: unknown): boolean {
  return errorName(err) === 'ConditionalCheckFailedException';
}

export function isThrottlingError(err: unknown): boolean {
  return THROTTLING_ERRORS.has(errorName(err));
}

function withoutUndefined(item: Item): Item {
  const out: Item = {};
  for (const [k, v] of Object.entries(item)) if (v !== undefined) out[k] = v;
  return out;
}

export class DynamoDbStateStore implements StateStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxConcurrency: number;
  private readonly now: () => number;

  constructor(options: DynamoDbStateStoreOptions) {
    if (!options.tableName) throw new StoreError('DynamoDbStateStore needs a tableName');
    this.doc =
      options.client instanceof DynamoDBDocumentClient
        ? options.client
        : DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
    this.tableName = options.tableName;
    this.sleep = options.sleep ?? realSleep;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 10);
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 3000;
    this.maxConcurrency = Math.max(1, options.maxConcurrency ?? 8);
    this.now = options.now ?? Date.now;
  }

  // ---- cursors -------------------------------------------------------------------------------

  async getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    const key = cursorKey(clubId, source);
    const out = await this.call('GetItem', () =>
      this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true })),
    );
    return out.Item ? cursorFromItem(out.Item) : newCursor(clubId, source);
  }

  async listCursors(clubId: string): Promise<Cursor[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': clubPk(clubId), ':prefix': CURSOR_SK_PREFIX },
    });
    return items.map(cursorFromItem);
  }

  async putCursor(cursor: Cursor): Promise<Cursor> {
    const key = cursorKey(cursor.clubId, cursor.source);
    const stored = storableCursor(cursor, cursor.version + 1);
    const firstWrite = cursor.version === 0;
    try {
      await this.call('PutItem', () =>
        this.doc.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...stored, ...key },
            ConditionExpression: firstWrite ? 'attribute_not_exists(pk)' : '#version = :expected',
            ExpressionAttributeNames: firstWrite ? undefined : { '#version': 'version' },
            ExpressionAttributeValues: firstWrite ? undefined : { ':expected': cursor.version },
          }),
        ),
      );
    } catch (err) {
      if (isConditionalCheckFailed(err)) {
        throw new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version, { cause: err });
      }
      throw err;
    }
    return stored;
  }

  // ---- leases --------------------------------------------------------------------------------

  async acquireLease(
    clubId: string,
    source: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<boolean> {
    validateLeaseArgs(owner, ttlMs, nowMs);
    const key = leaseKey(clubId, source);
    const expiresAtMs = nowMs + ttlMs;
    return this.conditionally('PutItem', () =>
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, owner, expiresAtMs, expiresAt: leaseTtlSec(expiresAtMs) },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs <= :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': nowMs, ':owner': owner },
        }),
      ),
    );
  }

  async renewLease(
    clubId: string,
    source: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<boolean> {
    validateLeaseArgs(owner, ttlMs, nowMs);
    const key = leaseKey(clubId, source);
    const expiresAtMs = nowMs + ttlMs;
    return this.conditionally('UpdateItem', () =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET expiresAtMs = :expiresAtMs, expiresAt = :ttl',
          ConditionExpression: 'attribute_exists(pk) AND #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':expiresAtMs': expiresAtMs,
            ':ttl': leaseTtlSec(expiresAtMs),
            ':owner': owner,
          },
        }),
      ),
    );
  }

  async releaseLease(clubId: string, source: string, owner: string): Promise<void> {
    const key = leaseKey(clubId, source);
    await this.conditionally('DeleteItem', () =>
      this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key,
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }

  // ---- seen fingerprints ---------------------------------------------------------------------

  async filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options: FilterSeenOptions = {},
  ): Promise<Set<string>> {
    const pk = seenPk(clubId, source);
    const keys = [...new Set(fingerprints)].map((fp) => seenKey(pk, fp));
    const items = await this.batchGet(
      keys,
      { ProjectionExpression: 'sk, expiresAt' },
      options.consistentRead ?? true,
    );
    const seen = new Set<string>();
    for (const item of items) {
      if (isUnexpired(item.expiresAt, nowSec)) seen.add(String(item.sk));
    }
    return seen;
  }

  async putSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const items = [...new Set(fingerprints)].map((fp) => ({ ...seenKey(pk, fp), expiresAt }));
    await this.batchWrite(items);
  }

  // ---- time-ordered seen set ----------------------------------------------------------------

  async seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<Set<string>> {
    const items = await this.querySeenAt(clubId, source, fromAt, nowSec, options, 'sk, expiresAt');
    const seen = new Set<string>();
    for (const item of items) seen.add(fingerprintOfSeenAtSk(String(item.sk)));
    return seen;
  }

  async seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<SeenEntry[]> {
    // `g` and `v` cost nothing extra to project: a Query is billed by the size of the items read.
    const items = await this.querySeenAt(clubId, source, fromAt, nowSec, options, 'sk, expiresAt, #g, #v', {
      '#g': 'g',
      '#v': 'v',
    });
    return items.map((item) => {
      const sk = String(item.sk);
      const tagged = typeof item.g === 'string' && typeof item.v === 'string';
      return {
        fingerprint: fingerprintOfSeenAtSk(sk),
        at: atOfSeenAtSk(sk),
        ...(tagged ? { group: item.g as string, value: item.v as string } : {}),
      };
    });
  }

  /** The unexpired items of `fromAt <= at < toAt`, in key order (one Query, followed to the end). */
  private async querySeenAt(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions,
    projection: string,
    names?: Record<string, string>,
  ): Promise<Item[]> {
    const pk = seenAtPk(clubId, source);
    const { toAt } = options;
    if (!validateSeenRange(fromAt, toAt, nowSec)) return [];
    // BETWEEN is inclusive, but every sort key is `<at>#<fingerprint>`, longer than `toAt` and so
    // after it when its `at` equals `toAt`: BETWEEN fromAt AND toAt is exactly fromAt <= at < toAt.
    const items = await this.queryAll(
      {
        KeyConditionExpression:
          toAt === undefined ? 'pk = :pk AND sk >= :from' : 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues:
          toAt === undefined ? { ':pk': pk, ':from': fromAt } : { ':pk': pk, ':from': fromAt, ':to': toAt },
        ProjectionExpression: projection,
        ...(names ? { ExpressionAttributeNames: names } : {}),
      },
      Number.POSITIVE_INFINITY,
      options.consistentRead ?? false,
    );
    return items.filter((item) => isUnexpired(item.expiresAt, nowSec));
  }

  async putSeenAt(
    clubId: string,
    source: SourceName,
    entries: readonly SeenAt[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenAtPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const bySk = new Map<string, Item>();
    for (const entry of entries) {
      const key = seenAtKey(pk, entry.at, entry.fingerprint);
      const tag = seenAtTag(entry);
      bySk.set(key.sk, tag ? { ...key, expiresAt, g: tag.group, v: tag.value } : { ...key, expiresAt });
    }
    await this.batchWrite([...bySk.values()]);
  }

  // ---- snapshots -----------------------------------------------------------------------------

  async getSnapshots(clubId: string, kind: SnapshotKind, ids: string[]): Promise<Map<string, Snapshot>> {
    const pk = snapshotPk(clubId, kind);
    const keys = [...new Set(ids)].map((id) => snapshotKey(pk, id));
    const items = await this.batchGet(keys);
    const out = new Map<string, Snapshot>();
    for (const item of items) {
      const id = String(item.sk);
      out.set(id, {
        id,
        hash: String(item.hash),
        fields: (item.fields ?? {}) as Record<string, unknown>,
        updatedAt: String(item.updatedAt),
      });
    }
    return out;
  }

  async putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]): Promise<void> {
    const pk = snapshotPk(clubId, kind);
    const byId = new Map<string, Item>();
    for (const s of snapshots) {
      byId.set(s.id, {
        ...snapshotKey(pk, s.id),
        hash: String(s.hash),
        fields: toStorable(s.fields, `snapshot ${s.id} fields`),
        updatedAt: String(s.updatedAt),
      });
    }
    await this.batchWrite([...byId.values()]);
  }

  // ---- quota ---------------------------------------------------------------------------------

  async addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    const key = quotaKey(clubId, month);
    validateQuotaRequests(requests);
    const out = await this.call('UpdateItem', () =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'ADD requests :n SET expiresAt = :ttl',
          ExpressionAttributeValues: { ':n': requests, ':ttl': quotaExpiresAtSec(month) },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    return Number(out.Attributes?.requests ?? 0);
  }

  async getQuotaUsage(clubId: string, month: string): Promise<number> {
    const key = quotaKey(clubId, month);
    const out = await this.call('GetItem', () =>
      this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true })),
    );
    return Number(out.Item?.requests ?? 0);
  }

  // ---- quarantine ----------------------------------------------------------------------------

  async putQuarantined(
    clubId: string,
    source: SourceName,
    records: QuarantinedRecord[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = quarantinePk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const bySk = new Map<string, Item>();
    for (const r of records) {
      const key = quarantineKey(pk, r.at, r.key);
      bySk.set(
        key.sk,
        withoutUndefined({
          ...key,
          key: r.key,
          at: r.at,
          reason: String(r.reason).slice(0, MAX_QUARANTINE_REASON_CHARS),
          rawJson: encodeQuarantinedRaw(r.raw),
          expiresAt,
        }),
      );
    }
    await this.batchWrite([...bySk.values()]);
  }

  async listQuarantined(
    clubId: string,
    source: SourceName,
    limit = DEFAULT_QUARANTINE_LIST_LIMIT,
  ): Promise<QuarantinedRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreError(`limit must be a positive integer`);
    const nowSec = Math.floor(this.now() / 1000);
    const items = await this.queryAll(
      {
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'attribute_not_exists(expiresAt) OR expiresAt > :now',
        ExpressionAttributeValues: { ':pk': quarantinePk(clubId, source), ':now': nowSec },
        ScanIndexForward: false,
      },
      limit,
    );
    return items.map((item) => ({
      key: String(item.key),
      reason: String(item.reason),
      raw: decodeQuarantinedRaw(typeof item.rawJson === 'string' ? item.rawJson : undefined),
      at: String(item.at),
    }));
  }

  // ---- plumbing ------------------------------------------------------------------------------

  /** Sends with retries on throttling; maps failures to StoreError (conditional failures pass through). */
  private async call<T>(operation: string, send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        if (isConditionalCheckFailed(err)) throw err;
        if (isThrottlingError(err) && attempt < this.maxAttempts) {
          const delay = this.delay(attempt - 1);
          logger.warn('DynamoDB throttled, backing off', {
            operation,
            tableName: this.tableName,
            attempt,
            delayMs: delay,
          });
          await this.sleep(delay);
          continue;
        }
        throw this.failure(operation, err, attempt);
      }
    }
  }

  /** A conditional write: true if applied, false if its condition did not hold. */
  private async conditionally(operation: string, send: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.call(operation, send);
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  }

  private failure(operation: string, err: unknown, attempts: number): StoreError {
    if (err instanceof StoreError) return err;
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    return new StoreError(`DynamoDB ${operation} on table ${this.tableName} failed${tries}: ${detail}`, {
      cause: err,
      operation,
    });
  }

  private delay(attempt: number): number {
    return backoffDelayMs(attempt + 1, { baseDelayMs: this.baseDelayMs, maxDelayMs: this.maxDelayMs });
  }

  private async queryAll(
    input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>,
    limit = Number.POSITIVE_INFINITY,
    consistentRead = true,
  ): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const remaining = limit - items.length;
      const out = await this.call('Query', () =>
        this.doc.send(
          new QueryCommand({
            ...input,
            TableName: this.tableName,
            ConsistentRead: consistentRead,
            ExclusiveStartKey: startKey,
            Limit: Number.isFinite(remaining) ? remaining : undefined,
          }),
        ),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined && items.length < limit);
    return items.slice(0, limit);
  }

  private async batchGet(
    keys: ItemKey[],
    projection?: { ProjectionExpression: string },
    consistentRead = true,
  ): Promise<Item[]> {
    const batches = chunk(keys, BATCH_GET_MAX_KEYS);
    const results = await mapWithConcurrency(batches, this.maxConcurrency, (batch) =>
      this.batchGetUntilDone(batch, projection, consistentRead),
    );
    return results.flat();
  }

  private async batchGetUntilDone(
    keys: ItemKey[],
    projection: { ProjectionExpression: string } | undefined,
    consistentRead: boolean,
  ): Promise<Item[]> {
    const found: Item[] = [];
    let pending: Item[] = keys.map((k) => ({ pk: k.pk, sk: k.sk }));
    let round = 0;
    let stalled = 0;
    while (pending.length > 0) {
      const request = pending;
      const out = await this.call('BatchGetItem', () =>
        this.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: { Keys: request, ConsistentRead: consistentRead, ...projection },
            },
          }),
        ),
      );
      found.push(...(out.Responses?.[this.tableName] ?? []));
      pending = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      if (pending.length === 0) break;
      stalled = pending.length < request.length ? 0 : stalled + 1;
      await this.backOffOnUnprocessed('BatchGetItem', pending.length, round++, stalled);
    }
    return found;
  }

  private async batchWrite(items: Item[]): Promise<void> {
    const batches = chunk(items, BATCH_WRITE_MAX_ITEMS);
    await mapWithConcurrency(batches, this.maxConcurrency, (batch) => this.batchWriteUntilDone(batch));
  }

  private async batchWriteUntilDone(items: Item[]): Promise<void> {
    let pending: WriteRequest[] = items.map((Item) => ({ PutRequest: { Item } }));
    let round = 0;
    let stalled = 0;
    while (pending.length > 0) {
      const request = pending;
      const out = await this.call('BatchWriteItem', () =>
        this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: request } })),
      );
      pending = (out.UnprocessedItems?.[this.tableName] ?? []) as WriteRequest[];
      if (pending.length === 0) break;
      stalled = pending.length < request.length ? 0 : stalled + 1;
      await this.backOffOnUnprocessed('BatchWriteItem', pending.length, round++, stalled);
    }
  }

  /** Waits before resubmitting unprocessed batch entries; gives up after maxAttempts rounds without progress. */
  private async backOffOnUnprocessed(operation: string, unprocessed: number, round: number, stalled: number) {
    if (stalled >= this.maxAttempts) {
      throw new StoreError(
        `DynamoDB ${operation} on table ${this.tableName} left ${unprocessed} entries unprocessed ` +
          `after ${stalled} retries without progress`,
        { operation },
      );
    }
    const delay = this.delay(round);
    logger.debug('DynamoDB returned unprocessed batch entries, retrying', {
      operation,
      tableName: this.tableName,
      unprocessed,
      delayMs: delay,
    });
    await this.sleep(delay);
  }
}

function isUnexpired(expiresAt: unknown, nowSec: number): boolean {
  return typeof expiresAt !== 'number' || expiresAt > nowSec;
}

/** Lease items linger an hour past their expiry before TTL may remove them (purely housekeeping). */
function leaseTtlSec(expiresAtMs: number): number {
  return Math.ceil(expiresAtMs / 1000) + 3600;
}

function cursorFromItem(item: Item): Cursor {
  const { pk: _pk, sk: _sk, ...fields } = item;
  const cursor = fields as unknown as Cursor;
  cursor.version = Number(cursor.version ?? 0);
  cursor.baselineDone = cursor.baselineDone === true;
  cursor.health ??= { consecutiveFailures: 0 };
  return cursor;
}
