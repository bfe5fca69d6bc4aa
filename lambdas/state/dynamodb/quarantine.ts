/** QuarantineStore on the state table: records that failed validation, newest first, kept until their TTL. */
import { assertEpochSeconds, quarantineKey, quarantinePk } from '../keys';
import {
  DEFAULT_QUARANTINE_LIST_LIMIT,
  type QuarantinedRecord,
  type QuarantineStore,
  type SourceName,
  StoreError,
} from '../store';
import { decodeQuarantinedRaw, encodeQuarantinedRaw, MAX_QUARANTINE_REASON_CHARS } from '../stored-values';
import type { Item, StateTableClient } from './state-table-client';

function withoutUndefined(item: Item): Item {
  const out: Item = {};
  for (const [k, v] of Object.entries(item)) if (v !== undefined) out[k] = v;
  return out;
}

export class DynamoDbQuarantineStore implements QuarantineStore {
  /** `now` in epoch ms: the port takes no time for listQuarantined's expiry. */
  constructor(
    private readonly table: StateTableClient,
    private readonly now: () => number,
  ) {}

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
    await this.table.batchWrite([...bySk.values()]);
  }

  async listQuarantined(
    clubId: string,
    source: SourceName,
    limit = DEFAULT_QUARANTINE_LIST_LIMIT,
  ): Promise<QuarantinedRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreError(`limit must be a positive integer`);
    const nowSec = Math.floor(this.now() / 1000);
    const items = await this.table.queryAll(
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
}
