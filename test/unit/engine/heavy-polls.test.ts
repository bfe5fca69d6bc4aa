/** Heavy club polls, a few at a time per process (lambdas/engine/club-poll/heavy-polls.ts). */
import { describe, expect, it } from 'vitest';
import { isHeavyPoll, PollSlots } from '../../../lambdas/engine/club-poll/heavy-polls';
import { type Cursor, newCursor } from '../../../lambdas/state/store';

const baselined = (source: Cursor['source']): Cursor => ({ ...newCursor('c1', source), baselineDone: true });
const notes = (full: boolean) => ({ lifecycleNotes: () => (full ? { full: true as const } : {}) });

describe('poll slots', () => {
  it('give a free slot at once, make the next wait for a release, and answer undefined at the deadline', async () => {
    // Prepare
    const slots = new PollSlots(1);
    const first = await slots.acquire(Date.now() + 1_000);
    let secondGot = false;
    const second = slots.acquire(Date.now() + 5_000).then((release) => {
      secondGot = true;
      return release;
    });

    // Act: a third gives up at its deadline while the second waits
    const third = await slots.acquire(Date.now() + 20);
    await Promise.resolve();

    // Assess
    expect(third).toBeUndefined();
    expect(secondGot).toBe(false);
    first?.();
    first?.();
    (await second)?.();
    expect(secondGot).toBe(true);
    expect(slots.free).toBe(1);
  });
});

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
