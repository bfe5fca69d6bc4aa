/** Heavy club polls, a few at a time per process (lambdas/engine/club-poll/heavy-polls.ts). */
import { describe, expect, it } from 'vitest';
import { isHeavyPoll } from '../../../lambdas/engine/club-poll/heavy-polls';
import { type Cursor, newCursor } from '../../../lambdas/state/store';

const baselined = (source: Cursor['source']): Cursor => ({ ...newCursor('c1', source), baselineDone: true });
const notes = (full: boolean) => ({ lifecycleNotes: () => (full ? { full: true as const } : {}) });

describe('a heavy poll', () => {
  it('is a first poll of a source, a backfill, or a lifecycle that reads everything (when on)', () => {
    const cursors = [baselined('visits'), baselined('members')];
    const on = (full: boolean) => ({ on: true, session: notes(full) });
    expect(isHeavyPoll(['visits', 'members'], cursors, on(false), false)).toBe(false);
    expect(isHeavyPoll(['visits', 'prospects'], cursors, on(false), false)).toBe(true);
    expect(isHeavyPoll(['visits'], [{ ...newCursor('c1', 'visits') }], on(false), false)).toBe(true);
    expect(isHeavyPoll(['visits'], cursors, on(false), true)).toBe(true);
    expect(isHeavyPoll(['visits'], cursors, on(true), false)).toBe(true);
    // lifecycle events off: the notes stay `full` and nothing reads them
    expect(isHeavyPoll(['visits'], cursors, { on: false, session: notes(true) }, false)).toBe(false);
  });
});
