/** LifecycleStore in process memory: each document's head and pieces as ../lifecycle-store.ts lays them out. */
import { clubPk } from '../keys';
import {
  gzipLifecycle,
  LifecycleConflictError,
  type LifecycleItems,
  type LifecyclePart,
  type LifecycleStore,
  lifecycleItems,
  lifecycleSk,
  pieceKeys,
  type StoredLifecycle,
  storedLifecycle,
} from '../lifecycle-store';

type Piece = LifecycleItems['pieces'][number];

export class MemoryLifecycleStore implements LifecycleStore {
  /** By partition key: the heads and the pieces, by sort key. */
  private readonly clubs = new Map<
    string,
    { heads: Map<string, LifecycleItems['head']>; pieces: Map<string, Piece> }
  >();

  private club(clubId: string) {
    const pk = clubPk(clubId);
    let items = this.clubs.get(pk);
    if (!items) {
      items = { heads: new Map(), pieces: new Map() };
      this.clubs.set(pk, items);
    }
    return items;
  }

  async getLifecycle(clubId: string, part: LifecyclePart = 'base'): Promise<StoredLifecycle | undefined> {
    const { heads, pieces } = this.club(clubId);
    const head = heads.get(lifecycleSk(part));
    return head ? storedLifecycle(clubId, part, head, pieces) : undefined;
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
    const items = this.club(clubId);
    for (const p of pieces) items.pieces.set(p.sk, p);
    const old = items.heads.get(lifecycleSk(part));
    if ((old?.v ?? 0) !== expectedVersion) {
      for (const p of pieces) items.pieces.delete(p.sk);
      throw new LifecycleConflictError(clubId, expectedVersion);
    }
    items.heads.set(lifecycleSk(part), head);
    for (const sk of pieceKeys(part, old)) items.pieces.delete(sk);
    return head.v;
  }

  /** The number of items stored for the club (heads and pieces): what a test sees of the garbage. */
  itemCount(clubId: string): number {
    const { heads, pieces } = this.club(clubId);
    return heads.size + pieces.size;
  }
}
