/**
 * Committed-row marks: what a state source's last completed scan left committed, kept in its cursor
 * (`Cursor.committedRows`) so that the next tail needs no snapshot read for a row that comes back
 * the same (docs/state.md, "Rows the last scan committed").
 *
 * A mark is the first 8 bytes of SHA-256 over the row's id and the hash of its tracked fields (the
 * hash its committed snapshot holds). The stored form is the marks' bytes, oldest first, as one
 * base64 string: 8 bytes a row, ~8 after the club item's gzip. A changed row is read unless its new
 * mark collides with one of the ≤ ~120 marks kept: 120 / 2^64 a change, ~3e-8 a month over 50,000
 * clubs of 90,000 changes each.
 *
 * The marks are a cache of the snapshots: dropping some (to keep the club item inside the write
 * unit it already costs) only makes the next poll read more.
 */
import { createHash } from 'node:crypto';
import type { Cursor } from './store';

/** Bytes of one mark. */
export const ROW_MARK_BYTES = 8;
/** DynamoDB bills writes per KB of the item. */
const WRITE_UNIT_BYTES = 1024;

/** The mark of a row whose committed snapshot has `hash` (base64, 12 chars). */
export function rowMark(id: string, hash: string): string {
  return createHash('sha256')
    .update(id)
    .update('\u0000')
    .update(hash)
    .digest()
    .subarray(0, ROW_MARK_BYTES)
    .toString('base64');
}

/** The stored form of marks, oldest first. */
export function encodeRowMarks(marks: readonly string[]): string {
  return Buffer.concat(marks.map((m) => Buffer.from(m, 'base64'))).toString('base64');
}

/**
 * The marks of a stored form, oldest first; undefined when it is not one (not base64 of whole
 * marks): the poll then reads every row's snapshot, as it would with no marks.
 */
export function decodeRowMarks(stored: unknown): string[] | undefined {
  if (typeof stored !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(stored)) return undefined;
  const bytes = Buffer.from(stored, 'base64');
  if (bytes.length % ROW_MARK_BYTES !== 0 || bytes.toString('base64') !== stored) return undefined;
  const marks: string[] = [];
  for (let at = 0; at < bytes.length; at += ROW_MARK_BYTES) {
    marks.push(bytes.subarray(at, at + ROW_MARK_BYTES).toString('base64'));
  }
  return marks;
}

/** The cursor without its marks (the same cursor when it has none). */
export function withoutCommittedRows(cursor: Cursor): Cursor {
  if (cursor.committedRows === undefined) return cursor;
  const { committedRows: _dropped, ...rest } = cursor;
  return rest;
}

/** Marks kept, over all cursors. */
function markCount(cursors: readonly Cursor[]): number {
  let n = 0;
  for (const c of cursors) n += decodeRowMarks(c.committedRows)?.length ?? 0;
  return n;
}

/** The cursors with each one's newest `share` of its marks (a cursor with none left drops the field). */
function keepShare(cursors: readonly Cursor[], share: number): Cursor[] {
  return cursors.map((c) => {
    const marks = decodeRowMarks(c.committedRows);
    if (!marks) return withoutCommittedRows(c);
    const keep = Math.floor(marks.length * share);
    if (keep === marks.length) return c;
    const rest = withoutCommittedRows(c);
    return keep === 0 ? rest : { ...rest, committedRows: encodeRowMarks(marks.slice(marks.length - keep)) };
  });
}

/**
 * The cursors with as many marks as the club item can hold without costing another write unit:
 * the item is `bytesOf(cursors)` bytes; marks fill at most the KB the item without them already
 * takes (1 KB for most clubs). The newest marks of each cursor are kept, the same share of each.
 */
export function fitCommittedRows(
  cursors: Cursor[],
  bytesOf: (cursors: readonly Cursor[]) => number,
): Cursor[] {
  if (markCount(cursors) === 0) return cursors;
  const bare = keepShare(cursors, 0);
  const limit = Math.max(1, Math.ceil(bytesOf(bare) / WRITE_UNIT_BYTES)) * WRITE_UNIT_BYTES;
  if (bytesOf(cursors) <= limit) return cursors;
  // Binary search on the share kept: the item grows with it.
  let fits = 0;
  let over = 1;
  for (let step = 0; step < 8; step++) {
    const mid = (fits + over) / 2;
    if (bytesOf(keepShare(cursors, mid)) <= limit) fits = mid;
    else over = mid;
  }
  return fits === 0 ? bare : keepShare(cursors, fits);
}
