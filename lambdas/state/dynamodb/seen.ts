/**
 * SeenStore on the state table: the keyed seen set (one item per fingerprint, read by BatchGetItem)
 * and the time-ordered seen set (items `<at>#<fingerprint>`, one paginated Query per window).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  assertEpochSeconds,
  assertSeenDigest,
  atOfSeenAtSk,
  fingerprintOfSeenAtSk,
  seenAtKey,
  seenAtMemo,
  seenAtPk,
  seenAtTag,
  seenDigestKey,
  seenKey,
  seenPk,
} from '../keys';
import type { FilterSeenOptions, SeenAt, SeenEntry, SeenSinceOptions, SeenStore, SourceName } from '../store';
import { validateSeenRange } from '../validation';
import type { Item, StateTableClient } from './state-table-client';

function isUnexpired(expiresAt: unknown, nowSec: number): boolean {
  return typeof expiresAt !== 'number' || expiresAt > nowSec;
}

export class DynamoDbSeenStore implements SeenStore {
  constructor(private readonly table: StateTableClient) {}

  async filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options: FilterSeenOptions = {},
  ): Promise<Set<string>> {
    const pk = seenPk(clubId, source);
    const keys = [...new Set(fingerprints)].map((fp) => seenKey(pk, fp));
    const items = await this.table.batchGet(
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
    await this.table.batchWrite(items);
  }

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
    // `g`, `v` and `m` cost nothing extra to project: a Query is billed by the size of the items read.
    const items = await this.querySeenAt(
      clubId,
      source,
      fromAt,
      nowSec,
      options,
      'sk, expiresAt, #g, #v, #m',
      { '#g': 'g', '#v': 'v', '#m': 'm' },
    );
    return items.map((item) => {
      const sk = String(item.sk);
      const tagged = typeof item.g === 'string' && typeof item.v === 'string';
      return {
        fingerprint: fingerprintOfSeenAtSk(sk),
        at: atOfSeenAtSk(sk),
        ...(tagged ? { group: item.g as string, value: item.v as string } : {}),
        ...(typeof item.m === 'string' ? { memo: item.m } : {}),
      };
    });
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
      const memo = seenAtMemo(entry);
      bySk.set(key.sk, {
        ...key,
        expiresAt,
        ...(tag ? { g: tag.group, v: tag.value } : {}),
        ...(memo === undefined ? {} : { m: memo }),
      });
    }
    await this.table.batchWrite([...bySk.values()]);
  }

  async getSeenDigest(clubId: string, source: SourceName, nowSec: number): Promise<Uint8Array | undefined> {
    const { doc, tableName } = this.table;
    const Key = seenDigestKey(clubId, source);
    const out = await this.table.call('GetItem', () =>
      doc.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: false })),
    );
    const item = out.Item;
    if (!item || !isUnexpired(item.expiresAt, nowSec)) return undefined;
    return item.d instanceof Uint8Array ? item.d : undefined;
  }

  async putSeenDigest(
    clubId: string,
    source: SourceName,
    digest: Uint8Array,
    expiresAtSec: number,
  ): Promise<void> {
    const Item = {
      ...seenDigestKey(clubId, source),
      d: assertSeenDigest(digest),
      expiresAt: assertEpochSeconds('expiresAtSec', expiresAtSec),
    };
    const { doc, tableName } = this.table;
    await this.table.call('PutItem', () => doc.send(new PutCommand({ TableName: tableName, Item })));
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
    const items = await this.table.queryAll(
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
}
