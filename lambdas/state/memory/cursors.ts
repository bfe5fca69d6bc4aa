/** CursorStore in process memory: versioned writes checked and applied in one synchronous step. */
import { CURSOR_SK_PREFIX, clubPk, cursorKey } from '../keys';
import {
  ConcurrentModificationError,
  type Cursor,
  type CursorStore,
  newCursor,
  type SourceName,
} from '../store';
import { copyOf, storableCursor } from '../stored-values';
import { compareUtf8, partitionOf } from './partitions';

export class MemoryCursorStore implements CursorStore {
  /** Partition key -> sort key -> cursor. */
  private readonly items = new Map<string, Map<string, Cursor>>();

  async getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    const key = cursorKey(clubId, source);
    const stored = this.items.get(key.pk)?.get(key.sk);
    return stored ? copyOf(stored) : newCursor(clubId, source);
  }

  async listCursors(clubId: string): Promise<Cursor[]> {
    const partition = this.items.get(clubPk(clubId));
    if (!partition) return [];
    return [...partition.entries()]
      .filter(([sk]) => sk.startsWith(CURSOR_SK_PREFIX))
      .sort(([a], [b]) => compareUtf8(a, b))
      .map(([, cursor]) => copyOf(cursor));
  }

  async putCursor(cursor: Cursor): Promise<Cursor> {
    const key = cursorKey(cursor.clubId, cursor.source);
    const stored = storableCursor(cursor, cursor.version + 1);
    const partition = partitionOf(this.items, key.pk);
    const current = partition.get(key.sk);
    const matches = cursor.version === 0 ? current === undefined : current?.version === cursor.version;
    if (!matches) throw new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version);
    partition.set(key.sk, stored);
    return copyOf(stored);
  }
}
