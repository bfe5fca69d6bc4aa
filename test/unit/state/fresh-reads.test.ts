/**
 * Fresh-read marks (state/fresh-reads.ts): a poll that stopped without its closing write could
 * leave no mark for what it wrote, so the next session marks every cursor of the club.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../lambdas/state';
import { needsFreshReads, withFreshReads, withoutFreshReads } from '../../../lambdas/state/fresh-reads';
import { newCursor } from '../../../lambdas/state/store';
import { seedCursor } from '../../support/state-seeds';

const T0 = Date.parse('2026-03-10T12:00:00.000Z');

async function clubWithTwoCursors() {
  const store = new MemoryStateStore();
  await seedCursor(store, { ...newCursor('club-1', 'visits'), baselineDone: true, stats: { lastPages: 1 } });
  await seedCursor(store, newCursor('club-1', 'members'));
  return store;
}

describe('fresh-read marks', () => {
  it('are put and taken away in stats, the other stats kept', () => {
    const cursor = { ...newCursor('club-1', 'visits'), stats: { lastPages: 2 } };
    const marked = withFreshReads(cursor);
    expect(needsFreshReads(cursor)).toBe(false);
    expect(marked.stats).toEqual({ lastPages: 2, freshReads: 1 });
    expect(withoutFreshReads(marked).stats).toEqual({ lastPages: 2 });
    expect(withFreshReads(marked)).toBe(marked);
  });

  it('mark every cursor after a poll that stopped without its closing write, in the store too', async () => {
    // Prepare: a poll takes the lease and dies
    const store = await clubWithTwoCursors();
    expect(await store.openClub('club-1', 'dead', 60_000, T0)).toBeDefined();

    // Act: the next poll, after the lease expired
    const session = await store.openClub('club-1', 'next', 60_000, T0 + 120_000);
    const cursors = await session!.listCursors();
    await session!.close();

    // Assess
    expect(cursors.map((c) => [c.source, needsFreshReads(c)])).toEqual([
      ['members', true],
      ['visits', true],
    ]);
    expect((await store.view('club-1').listCursors()).every(needsFreshReads)).toBe(true);
  });

  it('mark nothing after a clean stop', async () => {
    const store = await clubWithTwoCursors();
    const session = await store.openClub('club-1', 'next', 60_000, T0);
    expect((await session!.listCursors()).some(needsFreshReads)).toBe(false);
  });
});
