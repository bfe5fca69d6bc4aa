/**
 * Which facts the first evaluation passed silently (lambdas/lifecycle/baseline-marks.ts),
 * kept in the base: all of a first evaluation's marks, only those still recorded after a rebase,
 * none for a base of an earlier release; a damaged set is read as none.
 */
import { describe, expect, it } from 'vitest';
import { silentMarksIn, silentMarksOf, stillSilent } from '../../../lambdas/lifecycle/baseline-marks';
import type { LifecycleDoc } from '../../../lambdas/lifecycle/evaluate';
import { keepLifecycle, readKeptLifecycle } from '../../../lambdas/lifecycle/lifecycle-keep';
import { MemoryStateStore } from '../../../lambdas/state';
import type { ClubSession } from '../../../lambdas/state/state-store';
import { openSession } from '../../support/state-seeds';

const CLUB = 'club-1';
const life = (members: LifecycleDoc['members'], prospects: LifecycleDoc['prospects'] = {}): LifecycleDoc => ({
  version: 1,
  trackedSince: '2026-03-01T00:00:00',
  trackedSinceMs: 1_000,
  members,
  prospects,
});
const VIEW = { members: {}, prospects: {} };
const keep = (store: ClubSession, nowMs: number) => ({
  store,
  clubId: CLUB,
  nowMs,
  hour: nowMs,
  zone: 'UTC',
  sink: { publish: async () => {} },
});

const BASELINE = life(
  {
    '1': { firstVisitOf: '2026-02-20T00:00:00', expiring: ['expiry|2026-03-02T00:00:00'] },
    '2': { lastVisitAt: '2026-02-28T10:00:00', lapse: { from: 'x', lastVisitAt: null, announced: false } },
  },
  { '9': ['2026-03-01T12:00:00'] },
);

describe('the silent marks of the first evaluation', () => {
  it('are every mark of its document, a lapse aside (it says so itself)', () => {
    expect(silentMarksOf(BASELINE)).toEqual({
      members: { '1': ['2026-02-20T00:00:00', 'expiry|2026-03-02T00:00:00'] },
      prospects: { '9': ['2026-03-01T12:00:00'] },
    });
  });

  it('keep only the marks still recorded', () => {
    // Prepare: the expiry passed, a new minimum-term mark was announced, the prospect's end passed
    const later = life({
      '1': { firstVisitOf: '2026-02-20T00:00:00', expiring: ['minimumTerm|2026-03-20T00:00:00'] },
    });
    // Act
    const kept = stillSilent(silentMarksOf(BASELINE), later);
    // Assess
    expect(kept).toEqual({ members: { '1': ['2026-02-20T00:00:00'] }, prospects: {} });
  });

  it('are written with the first base, carried by a rebase, never invented for a base without them', async () => {
    // Prepare
    const store = await openSession(new MemoryStateStore(), CLUB);
    // Act: the first evaluation, then a rebase after the expiry passed and a new one was announced
    await keepLifecycle(keep(store, 10), undefined, { life: BASELINE, view: VIEW }, [], true);
    const first = await readKeptLifecycle(store, CLUB);
    const announced = life({
      '1': { firstVisitOf: '2026-02-20T00:00:00', expiring: ['expiry|2026-03-30T00:00:00'] },
    });
    await keepLifecycle(keep(store, 20), first, { life: announced, view: VIEW }, [], true);
    const rebased = await readKeptLifecycle(store, CLUB);
    // A base of an earlier release (no marks), rebased
    const oldStore = new MemoryStateStore();
    await oldStore.parts.lifecycle.putLifecycle(
      CLUB,
      { ...BASELINE, view: VIEW, writtenAtMs: 10 },
      0,
      'base',
    );
    const old = await openSession(oldStore, CLUB);
    await keepLifecycle(
      keep(old, 20),
      await readKeptLifecycle(old, CLUB),
      { life: announced, view: VIEW },
      [],
      true,
    );
    // Assess
    expect(first?.silent).toEqual(silentMarksOf(BASELINE));
    expect(rebased?.silent).toEqual({ members: { '1': ['2026-02-20T00:00:00'] }, prospects: {} });
    expect((await readKeptLifecycle(old, CLUB))?.silent).toBeUndefined();
  });

  it('a damaged set is read as none (explain then says it does not know), never thrown', () => {
    for (const stored of [
      undefined,
      null,
      3,
      'x',
      [],
      { members: {} },
      { members: { '1': [2] }, prospects: {} },
    ])
      expect(silentMarksIn(stored), JSON.stringify(stored)).toBeUndefined();
    expect(silentMarksIn({ members: { '1': ['a'] }, prospects: {} })).toEqual({
      members: { '1': ['a'] },
      prospects: {},
    });
  });
});
