/** The club registry in memory: same behaviour as the DynamoDB adapter, for unit tests and benchmarks. */
import { type DispatchShard, inShard, WHOLE_FLEET } from '../common/club-shard';
import { type ClubRecord, ClubRecordSchema } from './club-record';
import type { ClubListing, ClubRegistry } from './club-registry';

export class MemoryClubRegistry implements ClubRegistry {
  readonly #clubs = new Map<string, ClubRecord>();

  constructor(
    records: readonly ClubRecord[] = [],
    private readonly now: () => number = Date.now,
  ) {
    for (const r of records) this.#clubs.set(r.clubId, ClubRecordSchema.parse(r));
  }

  async listEnabled(shard: DispatchShard = WHOLE_FLEET): Promise<ClubListing> {
    return { clubs: this.#sorted((c) => c.enabled && inShard(c.clubId, shard)), requests: 1 };
  }

  async listAll(): Promise<ClubListing> {
    return { clubs: this.#sorted(), requests: 1 };
  }

  async get(clubId: string): Promise<ClubRecord | undefined> {
    const record = this.#clubs.get(clubId);
    return record ? structuredClone(record) : undefined;
  }

  async put(record: ClubRecord): Promise<void> {
    const item = ClubRecordSchema.parse({ ...record, updatedAt: new Date(this.now()).toISOString() });
    this.#clubs.set(item.clubId, item);
  }

  async disable(clubId: string): Promise<boolean> {
    const record = this.#clubs.get(clubId);
    if (!record) return false;
    this.#clubs.set(clubId, { ...record, enabled: false, updatedAt: new Date(this.now()).toISOString() });
    return true;
  }

  #sorted(keep: (record: ClubRecord) => boolean = () => true): ClubRecord[] {
    return [...this.#clubs.values()]
      .filter(keep)
      .sort((a, b) => (a.clubId < b.clubId ? -1 : a.clubId > b.clubId ? 1 : 0))
      .map((r) => structuredClone(r));
  }
}
