/** The lifecycle notes on the club state item (lambdas/state/lifecycle-notes.ts): merged, bounded, stored. */
import { describe, expect, it } from 'vitest';
import {
  addNotes,
  decodeNotes,
  encodeNotes,
  FAILURE_MAX_CHARS,
  isEmptyNotes,
  NOTES_MAX_CHARS,
} from '../../../lambdas/state/lifecycle-notes';

describe('lifecycle notes', () => {
  it('adds subjects once each and keeps the earliest instants', () => {
    // Act
    const notes = addNotes(addNotes({}, { members: ['1', '2'], visitsFromMs: 500 }), {
      members: ['2', '3'],
      prospects: ['9'],
      visitsFromMs: 700,
      paymentsFromMs: 100,
    });
    // Assess
    expect(notes).toEqual({
      members: ['1', '2', '3'],
      prospects: ['9'],
      visitsFromMs: 500,
      paymentsFromMs: 100,
    });
    expect(isEmptyNotes(addNotes({}, {}))).toBe(true);
  });

  it('becomes full past its bound, and stays full', () => {
    // Act
    const many = Array.from({ length: NOTES_MAX_CHARS }, (_, i) => String(i));
    const full = addNotes({ members: ['1'] }, { prospects: many });
    // Assess
    expect(full).toEqual({ full: true });
    expect(addNotes(full, { members: ['2'] })).toEqual({ full: true });
    expect(addNotes({ members: ['1'] }, { full: true })).toEqual({ full: true });
  });

  it('round-trips through its attribute, and reads anything unreadable as full (everything is read again)', () => {
    // Prepare
    const notes = { members: ['100042'], prospects: ['7'], visitsFromMs: 1.7e12, paymentsFromMs: 1.6e12 };
    // Act and assess
    expect(decodeNotes(encodeNotes(notes))).toEqual(notes);
    expect(decodeNotes(encodeNotes({ full: true }))).toEqual({ full: true });
    expect(decodeNotes(undefined)).toEqual({});
    for (const bad of ['{', '"x"', 'null', 42, '{"m":[1]}', '{"v":"soon"}'])
      expect(decodeNotes(bad)).toEqual({ full: true });
  });

  it('keeps since when evaluations fail and why, through full notes and its attribute', () => {
    // Prepare
    const first = { sinceMs: 1_000, lastMs: 1_000, attempts: 1, error: 'StoreError: too big' };
    const second = { sinceMs: 5_000, lastMs: 5_000, attempts: 1, error: `PublishError: ${'x'.repeat(400)}` };
    // Act
    const both = addNotes(addNotes({ members: ['1'] }, { failed: first }), { failed: second });
    const full = addNotes(both, { full: true });
    // Assess: the first failure's start, the latest's reason (cut), every attempt.
    expect(both.failed).toEqual({
      sinceMs: 1_000,
      lastMs: 5_000,
      attempts: 2,
      error: second.error.slice(0, FAILURE_MAX_CHARS),
    });
    expect(full).toEqual({ full: true, failed: both.failed });
    expect(decodeNotes(encodeNotes(both))).toEqual(both);
    expect(decodeNotes(encodeNotes(full))).toEqual(full);
    expect(isEmptyNotes({ failed: first })).toBe(false);
  });
});
