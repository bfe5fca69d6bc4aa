/**
 * SeenStore on the state table: the keyed seen set (one item per fingerprint, read by BatchGetItem)
 * and the time-ordered seen set (packs of a call's entries per hour, seen-packs.ts, and the entry
 * items `<at>#<fingerprint>` of earlier releases; one paginated Query per window).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  assertEpochSeconds,
  assertSeenDigest,
  atOfSeenAtSk,
  fingerprintOfSeenAtSk,
  seenAtPk,
  seenDigestKey,
  seenKey,
  seenPk,
} from '../keys';
import { isPackSk, packSeenAt, seenAtQueryEnd, unpackSeenAt } from '../seen-packs';
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
    const entries = await this.seenEntriesSince(clubId, source, fromAt, nowSec, options);
    return new Set(entries.map((entry) => entry.fingerprint));
  }

  async seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions = {},
  ): Promise<SeenEntry[]> {
    const items = await this.querySeenAt(clubId, source, fromAt, nowSec, options);
    const { toAt } = options;
    // One entry per `<at>#<fingerprint>`: the latest written (packs carry `w`; entry items of the
    // layout before packs count as the oldest), in key order.
    const latest = new Map<string, { entry: SeenEntry; w: number }>();
    for (const item of items) {
      const w = typeof item.w === 'number' ? item.w : -1;
      for (const entry of entriesOfItem(item)) {
        if (entry.at < fromAt || (toAt !== undefined && entry.at >= toAt)) continue;
        const key = `${entry.at}#${entry.fingerprint}`;
        const held = latest.get(key);
        if (!held || w >= held.w) latest.set(key, { entry, w });
      }
    }
    return [...latest.keys()].sort().map((key) => (latest.get(key) as { entry: SeenEntry }).entry);
  }

  async putSeenAt(
    clubId: string,
    source: SourceName,
    entries: readonly SeenAt[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = seenAtPk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const w = Date.now();
    await this.table.batchWrite(packSeenAt(pk, entries).map(({ sk, p }) => ({ pk, sk, expiresAt, w, p })));
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

  /**
   * The unexpired items that may hold entries of `fromAt <= at < toAt`, in key order (one Query,
   * followed to the end): packs up to the end of `toAt`'s hour (seen-packs.ts), entry items too.
   */
  private async querySeenAt(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options: SeenSinceOptions,
  ): Promise<Item[]> {
    const pk = seenAtPk(clubId, source);
    const { toAt } = options;
    if (!validateSeenRange(fromAt, toAt, nowSec)) return [];
    // BETWEEN is inclusive, but an entry item's sort key is `<at>#<fingerprint>`, longer than the
    // bound and so after it when its `at` equals it: such an entry is read only when in range.
    const to = toAt === undefined ? undefined : seenAtQueryEnd(toAt);
    const items = await this.table.queryAll(
      {
        KeyConditionExpression:
          to === undefined ? 'pk = :pk AND sk >= :from' : 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues:
          to === undefined ? { ':pk': pk, ':from': fromAt } : { ':pk': pk, ':from': fromAt, ':to': to },
        // `g`, `v`, `m` and `p` cost nothing extra to project: a Query is billed by the size of the items read.
        ProjectionExpression: 'sk, expiresAt, #g, #v, #m, #p, #w',
        ExpressionAttributeNames: { '#g': 'g', '#v': 'v', '#m': 'm', '#p': 'p', '#w': 'w' },
      },
      Number.POSITIVE_INFINITY,
      options.consistentRead ?? false,
    );
    return items.filter((item) => isUnexpired(item.expiresAt, nowSec));
  }
}

/** The entries a time-ordered seen item holds: a pack's, or the one of an entry item. */
function entriesOfItem(item: Item): SeenEntry[] {
  const sk = String(item.sk);
  if (isPackSk(sk)) return unpackSeenAt(sk, item.p);
  const tagged = typeof item.g === 'string' && typeof item.v === 'string';
  return [
    {
      fingerprint: fingerprintOfSeenAtSk(sk),
      at: atOfSeenAtSk(sk),
      ...(tagged ? { group: item.g as string, value: item.v as string } : {}),
      ...(typeof item.m === 'string' ? { memo: item.m } : {}),
    },
  ];
}
