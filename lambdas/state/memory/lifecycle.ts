/** LifecycleStore in process memory: the encoded document and its version per club. */
import { clubPk } from '../keys';
import {
  decodeLifecycle,
  encodeLifecycle,
  LifecycleConflictError,
  type LifecycleStore,
  type StoredLifecycle,
} from '../lifecycle-store';

export class MemoryLifecycleStore implements LifecycleStore {
  private readonly items = new Map<string, { bytes: Uint8Array; version: number }>();

  async getLifecycle(clubId: string): Promise<StoredLifecycle | undefined> {
    const item = this.items.get(clubPk(clubId));
    return item ? { doc: decodeLifecycle(clubId, item.bytes), version: item.version } : undefined;
  }

  async putLifecycle(clubId: string, doc: unknown, expectedVersion: number): Promise<number> {
    const bytes = encodeLifecycle(clubId, doc, expectedVersion);
    const key = clubPk(clubId);
    if ((this.items.get(key)?.version ?? 0) !== expectedVersion)
      throw new LifecycleConflictError(clubId, expectedVersion);
    this.items.set(key, { bytes, version: expectedVersion + 1 });
    return expectedVersion + 1;
  }
}
