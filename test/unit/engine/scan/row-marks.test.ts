import { describe, expect, it } from 'vitest';
import { RowMarks } from '../../../../lambdas/engine/scan/row-marks';
import { decodeRowMarks, encodeRowMarks, rowMark } from '../../../../lambdas/state/committed-rows';

describe('RowMarks', () => {
  it('a row the stored marks name with the same hash is unchanged; another hash or row is not', () => {
    // Prepare
    const marks = new RowMarks(encodeRowMarks([rowMark('M1', 'h1')]));
    // Act, Assess
    expect(marks.unchanged('M1', 'h1')).toBe(true);
    expect(marks.unchanged('M1', 'h2')).toBe(false);
    expect(marks.unchanged('M2', 'h1')).toBe(false);
    expect(new RowMarks(undefined).unchanged('M1', 'h1')).toBe(false);
    expect(new RowMarks('garbage!').unchanged('M1', 'h1')).toBe(false);
  });

  it('a row this scan committed is judged by what it committed, not by the stored marks', () => {
    // Prepare: stored M1=h1; this scan committed M1=h2 (it changed)
    const marks = new RowMarks(encodeRowMarks([rowMark('M1', 'h1')]));
    marks.committed('M1', 'h2');
    // Act, Assess: M1 back at h1 must be read (the snapshot holds h2)
    expect(marks.unchanged('M1', 'h1')).toBe(false);
    expect(marks.unchanged('M1', 'h2')).toBe(true);
  });

  it('stores the rows it committed, newest last, a row once with its last hash', () => {
    // Prepare
    const marks = new RowMarks(undefined);
    // Act
    marks.committed('M1', 'a');
    marks.committed('M2', 'a');
    marks.committed('M1', 'b');
    // Assess
    expect(decodeRowMarks(marks.stored())).toEqual([rowMark('M2', 'a'), rowMark('M1', 'b')]);
    expect(new RowMarks(undefined).stored()).toBeUndefined();
  });

  it('once it forgets rows of its scan, the stored marks are no longer trusted', () => {
    // Prepare: M0 stored; the scan commits M0 at h2, then over a thousand more rows
    const marks = new RowMarks(encodeRowMarks([rowMark('M0', 'h1'), rowMark('X', 'h')]));
    marks.committed('M0', 'h2');
    for (let i = 1; i <= 1100; i++) marks.committed(`M${i}`, 'h');
    // Act, Assess: M0 was forgotten; the stored M0=h1 would say unchanged, and must not
    expect(marks.unchanged('M0', 'h1')).toBe(false);
    expect(marks.unchanged('X', 'h')).toBe(false);
    expect(marks.unchanged('M1100', 'h')).toBe(true);
    expect(decodeRowMarks(marks.stored())).toHaveLength(256);
  });
});
