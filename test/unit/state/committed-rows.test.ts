import { describe, expect, it } from 'vitest';
import {
  decodeRowMarks,
  encodeRowMarks,
  fitCommittedRows,
  ROW_MARK_BYTES,
  rowMark,
  withoutCommittedRows,
} from '../../../lambdas/state/committed-rows';
import { type Cursor, newCursor } from '../../../lambdas/state/store';

const marksOf = (n: number, prefix = 'M') =>
  Array.from({ length: n }, (_, i) => rowMark(`${prefix}${i}`, 'h'));
const cursorWith = (source: Cursor['source'], marks: string[]): Cursor => ({
  ...newCursor('club-1', source),
  committedRows: encodeRowMarks(marks),
});
/** A stand-in for the item's size: 100 bytes plus the marks' stored characters. */
const bytesOf = (cursors: readonly Cursor[]) =>
  100 + cursors.reduce((n, c) => n + (c.committedRows?.length ?? 0), 0);

describe('row marks', () => {
  it('a mark is 8 bytes of the id and the hash: another id or another hash is another mark', () => {
    // Act
    const mark = rowMark('M1', 'abc');
    // Assess
    expect(Buffer.from(mark, 'base64')).toHaveLength(ROW_MARK_BYTES);
    expect(rowMark('M1', 'abc')).toBe(mark);
    expect(rowMark('M2', 'abc')).not.toBe(mark);
    expect(rowMark('M1', 'abd')).not.toBe(mark);
    // The separator keeps ('M1', '2abc') apart from ('M12', 'abc').
    expect(rowMark('M1', '2abc')).not.toBe(rowMark('M12', 'abc'));
  });

  it('round-trips in order, and anything that is not whole marks in base64 reads as no marks', () => {
    // Prepare
    const marks = marksOf(5);
    // Act
    const stored = encodeRowMarks(marks);
    // Assess
    expect(decodeRowMarks(stored)).toEqual(marks);
    expect(decodeRowMarks(encodeRowMarks([]))).toEqual([]);
    for (const bad of [42, null, {}, 'not base64!', Buffer.alloc(12).toString('base64'), `${stored}A`]) {
      expect(decodeRowMarks(bad)).toBeUndefined();
    }
  });

  it('withoutCommittedRows drops the field and leaves a cursor without it as it is', () => {
    // Prepare
    const bare = newCursor('club-1', 'members');
    // Act
    const dropped = withoutCommittedRows(cursorWith('members', marksOf(2)));
    // Assess
    expect(dropped).not.toHaveProperty('committedRows');
    expect(withoutCommittedRows(bare)).toBe(bare);
  });
});

describe('fitCommittedRows', () => {
  it('keeps every mark when the item fits in its KB', () => {
    // Prepare
    const cursors = [cursorWith('members', marksOf(10))];
    // Act
    const fitted = fitCommittedRows(cursors, bytesOf);
    // Assess
    expect(fitted).toBe(cursors);
  });

  it('keeps the newest marks of each cursor, the same share of each, so the item stays in 1 KB', () => {
    // Prepare: 200 + 100 marks (~2,700 + ~1,350 chars)
    const members = marksOf(200, 'M');
    const prospects = marksOf(100, 'P');
    const cursors = [cursorWith('members', members), cursorWith('prospects', prospects)];
    // Act
    const fitted = fitCommittedRows(cursors, bytesOf);
    // Assess
    expect(bytesOf(fitted)).toBeLessThanOrEqual(1024);
    const keptMembers = decodeRowMarks(fitted[0]!.committedRows)!;
    const keptProspects = decodeRowMarks(fitted[1]!.committedRows)!;
    expect(keptMembers).toEqual(members.slice(members.length - keptMembers.length));
    expect(keptProspects).toEqual(prospects.slice(prospects.length - keptProspects.length));
    expect(keptMembers.length).toBeGreaterThan(0);
    expect(Math.abs(keptMembers.length / 200 - keptProspects.length / 100)).toBeLessThan(0.02);
    // Nearly full: one more mark each would not fit.
    expect(bytesOf(fitted)).toBeGreaterThan(1024 - 40);
  });

  it('fills the KB an item already costs without marks, and drops them all when none fits', () => {
    // Prepare: without marks the item is 1,100 bytes (two write units already)
    const big = (cursors: readonly Cursor[]) => bytesOf(cursors) + 1000;
    const cursors = [cursorWith('members', marksOf(200))];
    const noRoom = (cs: readonly Cursor[]) => (cs.some((c) => c.committedRows) ? 5000 : 1000);
    // Act
    const fitted = fitCommittedRows(cursors, big);
    const none = fitCommittedRows(cursors, noRoom);
    // Assess
    expect(big(fitted)).toBeLessThanOrEqual(2048);
    expect(decodeRowMarks(fitted[0]!.committedRows)!.length).toBeGreaterThan(60);
    expect(none[0]).not.toHaveProperty('committedRows');
  });
});
