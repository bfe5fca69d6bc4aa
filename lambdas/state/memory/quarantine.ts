/** QuarantineStore in process memory: records that failed validation, newest first, until their expiry. */
import { assertEpochSeconds, quarantineKey, quarantinePk } from '../keys';
import {
  DEFAULT_QUARANTINE_LIST_LIMIT,
  type QuarantinedRecord,
  type QuarantineStore,
  type SourceName,
  StoreError,
} from '../store';
import { copyOf, storableQuarantined } from '../stored-values';
import { compareUtf8, partitionOf } from './partitions';

interface Quarantined {
  record: QuarantinedRecord;
  expiresAt: number;
}

export class MemoryQuarantineStore implements QuarantineStore {
  /** Partition key -> sort key -> record and its expiry. */
  private readonly items = new Map<string, Map<string, Quarantined>>();

  /** `now` in epoch ms: the port takes no time for listQuarantined's expiry. */
  constructor(private readonly now: () => number) {}

  async putQuarantined(
    clubId: string,
    source: SourceName,
    records: QuarantinedRecord[],
    expiresAtSec: number,
  ): Promise<void> {
    const pk = quarantinePk(clubId, source);
    const expiresAt = assertEpochSeconds('expiresAtSec', expiresAtSec);
    const prepared = records.map((r) => ({
      sk: quarantineKey(pk, r.at, r.key).sk,
      record: storableQuarantined(r),
    }));
    const partition = partitionOf(this.items, pk);
    for (const { sk, record } of prepared) partition.set(sk, { record, expiresAt });
  }

  async listQuarantined(
    clubId: string,
    source: SourceName,
    limit = DEFAULT_QUARANTINE_LIST_LIMIT,
  ): Promise<QuarantinedRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreError(`limit must be a positive integer`);
    const partition = this.items.get(quarantinePk(clubId, source));
    if (!partition) return [];
    const nowSec = Math.floor(this.now() / 1000);
    return [...partition.entries()]
      .filter(([, q]) => q.expiresAt > nowSec)
      .sort(([a], [b]) => compareUtf8(b, a))
      .slice(0, limit)
      .map(([, q]) => copyOf(q.record));
  }
}
