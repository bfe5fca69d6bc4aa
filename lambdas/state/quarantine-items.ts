/**
 * QuarantineStore on the item table (item-table.ts): records that failed validation, newest first,
 * listed until their TTL (expired items filtered here, on read).
 */
import type { Item, ItemTable } from './item-table';
import { assertEpochSeconds, isUnexpired, quarantineKey, quarantinePk } from './keys';
import {
  DEFAULT_QUARANTINE_LIST_LIMIT,
  type QuarantinedRecord,
  type QuarantineStore,
  type SourceName,
  StoreError,
} from './store';
import { decodeQuarantinedRaw, encodeQuarantinedRaw, MAX_QUARANTINE_REASON_CHARS } from './stored-values';

function withoutUndefined(item: Item): Item {
  const out: Item = {};
  for (const [k, v] of Object.entries(item)) if (v !== undefined) out[k] = v;
  return out;
}

export class QuarantineItemStore implements QuarantineStore {
  /** `now` in epoch ms: the port takes no time for listQuarantined's expiry. */
  constructor(
    private readonly table: ItemTable,
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
    const items = await this.table.query(
      { pk: quarantinePk(clubId, source) },
      { consistent: true, reverse: true, limit, keep: (item) => isUnexpired(item.expiresAt, nowSec) },
    );
    return items.map((item) => ({
      key: String(item.key),
      reason: String(item.reason),
      raw: decodeQuarantinedRaw(typeof item.rawJson === 'string' ? item.rawJson : undefined),
      at: String(item.at),
    }));
  }
}
