/**
 * Fresh-read marks (docs/state.md, "Fresh reads after a write"): a source whose poll wrote seen
 * entries, a seen digest or snapshots carries a mark in its cursor (`stats.freshReads`: 1), written
 * with the cursor in the poll's closing write (no write of its own). The next poll of the source
 * reads its seen set, digest and snapshots strongly consistent, so no read of what decides "already
 * published?" or "what changed?" can miss the previous poll's writes; a poll of it that writes none
 * clears the mark, and the polls after it read eventually consistent again (half the units).
 *
 * A poll that stopped without its closing write could leave no mark: the club session then marks
 * every cursor (club-session.ts), as it drops their row marks.
 */
import type { Cursor } from './store';

const FRESH_READS = 'freshReads';

/** Whether the source's seen set, digest and snapshots must be read strongly consistent. */
export function needsFreshReads(cursor: Pick<Cursor, 'stats'>): boolean {
  return cursor.stats?.[FRESH_READS] === 1;
}

/** The cursor marked: the next poll of its source reads strongly consistent. */
export function withFreshReads<C extends Cursor>(cursor: C): C {
  if (needsFreshReads(cursor)) return cursor;
  return { ...cursor, stats: { ...cursor.stats, [FRESH_READS]: 1 } };
}

/** The cursor without the mark (its poll wrote nothing the next one must read fresh). */
export function withoutFreshReads<C extends Cursor>(cursor: C): C {
  if (!needsFreshReads(cursor)) return cursor;
  const { [FRESH_READS]: _mark, ...stats } = cursor.stats ?? {};
  return { ...cursor, stats };
}
