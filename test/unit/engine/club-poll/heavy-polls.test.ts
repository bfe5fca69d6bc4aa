/** Heavy club polls, a few at a time per process (lambdas/engine/club-poll/heavy-polls.ts). */
import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../../lambdas/clubs/club-config';
import { isHeavyPoll, lifecycleReadsAll } from '../../../../lambdas/engine/club-poll/heavy-polls';
import { type Cursor, newCursor } from '../../../../lambdas/state/store';

const baselined = (source: Cursor['source']): Cursor => ({ ...newCursor('c1', source), baselineDone: true });
const CLUB = { clubId: 'c1', enabled: true } as ClubConfig;
const notes = (full: boolean) => ({ lifecycleNotes: () => (full ? { full: true as const } : {}) });

describe('a heavy poll', () => {
  it('is a first poll of a source, a backfill, or a lifecycle that reads everything (when on)', () => {
    const cursors = [baselined('visits'), baselined('members')];
    const also = (backfill: boolean, full: boolean) => ({
      backfill,
      lifecycleReadsAll: lifecycleReadsAll(CLUB, notes(full)),
    });
    expect(isHeavyPoll(['visits', 'members'], cursors, also(false, false))).toBe(false);
    expect(isHeavyPoll(['visits', 'prospects'], cursors, also(false, false))).toBe(true);
    expect(isHeavyPoll(['visits'], [{ ...newCursor('c1', 'visits') }], also(false, false))).toBe(true);
    expect(isHeavyPoll(['visits'], cursors, also(true, false))).toBe(true);
    expect(isHeavyPoll(['visits'], cursors, also(false, true))).toBe(true);
    // lifecycle events off: the notes stay `full` and nothing reads them
    const off = { ...CLUB, lifecycle: { enabled: false } } as ClubConfig;
    expect(
      isHeavyPoll(['visits'], cursors, {
        backfill: false,
        lifecycleReadsAll: lifecycleReadsAll(off, notes(true)),
      }),
    ).toBe(false);
  });
});
