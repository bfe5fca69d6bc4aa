/** LifecycleStore in process memory: the encoded documents (base, delta) and their versions per club. */
import { clubPk } from '../keys';
import {
  encodeLifecycle,
  LifecycleConflictError,
  type LifecyclePart,
  type LifecycleStore,
  lifecycleSk,
  type StoredLifecycle,
  storedLifecycle,
} from '../lifecycle-store';

export class MemoryLifecycleStore implements LifecycleStore {
  private readonly items = new Map<string, { bytes: Uint8Array; version: number }>();

  async getLifecycle(clubId: string, part: LifecyclePart = 'base'): Promise<StoredLifecycle | undefined> {
    const item = this.items.get(`${clubPk(clubId)}|${lifecycleSk(part)}`);
    return item ? storedLifecycle(clubId, item.bytes, item.version) : undefined;
  }

  async putLifecycle(
    clubId: string,
    doc: unknown,
    expectedVersion: number,
    part: LifecyclePart = 'base',
  ): Promise<number> {
    const bytes = encodeLifecycle(clubId, doc, expectedVersion);
    const key = `${clubPk(clubId)}|${lifecycleSk(part)}`;
    if ((this.items.get(key)?.version ?? 0) !== expectedVersion)
      throw new LifecycleConflictError(clubId, expectedVersion);
    this.items.set(key, { bytes, version: expectedVersion + 1 });
    return expectedVersion + 1;
  }
}
