/**
 * LifecycleStore on the item table (item-table.ts), laid out as lifecycle-store.ts says: the pieces
 * of a large document written first (batchWrite), then its head with a version condition (one
 * conditional put, which returns the head it replaced); the replaced head's pieces deleted after,
 * or, when the condition did not hold, the write's own. Read: the head (strongly consistent), then
 * its pieces in one batch.
 */
import { logger } from '../common/logger';
import type { ItemTable } from './item-table';
import { clubPk } from './keys';
import {
  gzipLifecycle,
  LifecycleConflictError,
  type LifecyclePart,
  type LifecycleStore,
  lifecycleItems,
  lifecycleSk,
  pieceKeys,
  type StoredLifecycle,
  storedLifecycle,
} from './lifecycle-store';
import { StoreError } from './store-errors';

export class LifecycleItemStore implements LifecycleStore {
  constructor(private readonly table: ItemTable) {}

  async getLifecycle(clubId: string, part: LifecyclePart = 'base'): Promise<StoredLifecycle | undefined> {
    const pk = clubPk(clubId);
    const item = await this.table.get({ pk, sk: lifecycleSk(part) }, { consistent: true });
    if (!item) return undefined;
    if (typeof item.v !== 'number' || item.d === undefined)
      throw new StoreError(`lifecycle ${part} item of ${clubId} has no document or version`);
    const head: { v: number; d?: unknown; n?: unknown; w?: unknown } = { ...item, v: item.v };
    const keys = pieceKeys(part, head).map((sk) => ({ pk, sk }));
    const found = keys.length > 0 ? await this.table.batchGet(keys, { consistent: true }) : [];
    return storedLifecycle(clubId, part, head, new Map(found.map((p) => [String(p.sk), p])));
  }

  async putLifecycle(
    clubId: string,
    doc: unknown,
    expectedVersion: number,
    part: LifecyclePart = 'base',
  ): Promise<number> {
    const { head, pieces } = lifecycleItems(
      clubId,
      part,
      await gzipLifecycle(clubId, doc, part),
      expectedVersion,
    );
    const pk = clubPk(clubId);
    if (pieces.length > 0) await this.table.batchWrite(pieces.map((p) => ({ pk, ...p })));
    const put = await this.table.put(
      { pk, sk: lifecycleSk(part), ...head },
      expectedVersion === 0 ? { absent: true } : { equals: { name: 'v', value: expectedVersion } },
    );
    if (!put.applied) {
      await this.deletePieces(
        clubId,
        pieces.map((p) => p.sk),
      );
      throw new LifecycleConflictError(clubId, expectedVersion);
    }
    await this.deletePieces(clubId, pieceKeys(part, put.old));
    return head.v;
  }

  /** Deletes pieces no head names; one that stays is only unused bytes (logged, never an error). */
  private async deletePieces(clubId: string, sks: readonly string[]): Promise<void> {
    if (sks.length === 0) return;
    const pk = clubPk(clubId);
    try {
      await this.table.batchDelete(sks.map((sk) => ({ pk, sk })));
    } catch (err) {
      logger.warn('lifecycle pieces of a replaced document not deleted: unused bytes stay', { clubId, err });
    }
  }
}
