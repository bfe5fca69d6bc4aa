/**
 * What the lifecycle evaluation keeps (lambdas/lifecycle/lifecycle-keep.ts): the base and
 * the delta written in an order a stop anywhere survives, read back merged. On the memory store
 * (the adapters' parts are in the state store contract).
 */
import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import type { LifecycleDoc, LifecycleFact } from '../../../lambdas/lifecycle/evaluate';
import { lifecycleEvent } from '../../../lambdas/lifecycle/lifecycle-events';
import {
  keepLifecycle,
  readKeptLifecycle,
  UnreadableLifecycleBaseError,
} from '../../../lambdas/lifecycle/lifecycle-keep';
import { MemoryStateStore } from '../../../lambdas/state';
import type { ClubLifecycle } from '../../../lambdas/state/state-store';

const CLUB = 'club-1';
const NOTHING = { events: [], facts: [], nowMs: 0 };
const FACT: LifecycleFact = {
  member: '1',
  fact: 'firstVisit',
  found: { membershipStartDate: '2026-03-01T00:00:00', visitedAt: '2026-03-02T06:00:00' },
  occurredAtMs: Date.parse('2026-03-02T06:00:00Z'),
};
/** The eventId the keep publishes FACT under (it derives from the fact, not the evaluation). */
const FACT_ID = lifecycleEvent({ clubId: CLUB, zone: 'UTC', nowMs: 0 }, FACT).detail.eventId;
const idsOf = (events: readonly BridgeEvent[]) => events.map((e) => e.detail.eventId);
const life = (members: LifecycleDoc['members'], prospects: LifecycleDoc['prospects'] = {}): LifecycleDoc => ({
  version: 1,
  trackedSince: '2026-03-01T00:00:00',
  trackedSinceMs: 1_000,
  members,
  prospects,
});
const view = (status: string) => ({
  members: { '1': { status }, '2': { status: 'Active' } },
  prospects: { '9': { status: 'OnTrial', trialEndDate: '2026-03-09T00:00:00' } },
});

function rig() {
  const memory = new MemoryStateStore();
  const published: string[][] = [];
  const writes: string[] = [];
  /** The club's lifecycle documents as a session serves them, the writes counted by part. */
  const counted: Pick<ClubLifecycle, 'getLifecycle' | 'putLifecycle'> = {
    getLifecycle: (part) => memory.parts.lifecycle.getLifecycle(CLUB, part),
    putLifecycle: (doc, version, part) => {
      writes.push(part ?? 'base');
      return memory.parts.lifecycle.putLifecycle(CLUB, doc, version, part);
    },
  };
  const keep = (
    nowMs: number,
    hour: number,
    publish = async (events: readonly BridgeEvent[]) => void published.push(idsOf(events)),
  ) => ({ store: counted, clubId: CLUB, zone: 'UTC', nowMs, hour, sink: { publish } });
  return { store: counted, published, writes, keep };
}

describe('the kept lifecycle state', () => {
  it('writes the base first, then only what differs from it, and nothing when that did not change', async () => {
    // Prepare
    const { store, writes, keep } = rig();
    await keepLifecycle(
      keep(10, 1),
      undefined,
      { life: life({ '1': { lastVisitAt: 'a' } }), view: view('Active') },
      [],
      true,
    );
    const kept1 = await readKeptLifecycle(store, CLUB, 1);

    // Act: a later visit alone; then a lapse and a status change; then the same again.
    await keepLifecycle(
      keep(20, 2),
      kept1,
      { life: life({ '1': { lastVisitAt: 'b' } }), view: view('Active') },
      [],
      false,
    );
    const lapsed = life({
      '1': { lastVisitAt: 'b', lapse: { from: 'b', lastVisitAt: 'b', announced: false } },
    });
    await keepLifecycle(keep(30, 3), kept1, { life: lapsed, view: view('Frozen') }, [], false);
    const kept3 = await readKeptLifecycle(store, CLUB, 3);
    await keepLifecycle(keep(40, 4), kept3, { life: lapsed, view: view('Frozen') }, [], false);

    // Assess
    expect(writes).toEqual(['base', 'delta']);
    expect(kept3).toMatchObject({ baseWrittenAtMs: 10, writtenAtMs: 30, deltaSize: 2, pending: NOTHING });
    expect(kept3?.members['1']?.lapse).toEqual({ from: 'b', lastVisitAt: 'b', announced: false });
    expect(kept3?.view?.members['1']).toEqual({ status: 'Frozen' });
    expect(kept3?.view?.prospects['9']).toEqual(view('x').prospects['9']);
  });

  it('keeps the start of the visit history the first evaluation read, through a delta and a rebase', async () => {
    // Prepare: a first evaluation that read the visit history from two days before tracking.
    const { store, keep } = rig();
    const first = { ...life({ '1': { lastVisitAt: 'a' } }), seenFrom: '2026-02-27T00:00:00' };
    await keepLifecycle(keep(10, 1), undefined, { life: first, view: view('Active') }, [], true);

    // Act: read back; a delta; a rebase of what an evaluation makes of the kept document.
    const kept1 = await readKeptLifecycle(store, CLUB, 1);
    const later = { ...first, members: { '1': { lastVisitAt: 'a', firstVisitOf: 'a' } } };
    await keepLifecycle(keep(20, 2), kept1, { life: later, view: view('Active') }, [], false);
    const kept2 = await readKeptLifecycle(store, CLUB, 2);
    const { seenFrom: _dropped, ...withoutHistory } = later;
    const again = kept2?.seenFrom ? { ...withoutHistory, seenFrom: kept2.seenFrom } : withoutHistory;
    await keepLifecycle(keep(30, 3), kept2, { life: again, view: view('Active') }, [], true);
    const kept3 = await readKeptLifecycle(store, CLUB, 3);

    // Assess
    expect([kept1?.seenFrom, kept2?.seenFrom, kept3?.seenFrom]).toEqual([
      '2026-02-27T00:00:00',
      '2026-02-27T00:00:00',
      '2026-02-27T00:00:00',
    ]);
  });

  it('keeps new facts pending until the club records the hour that published them', async () => {
    // Prepare
    const { store, published, keep } = rig();
    await keepLifecycle(keep(10, 1), undefined, { life: life({}), view: view('Active') }, [], true);
    const kept = await readKeptLifecycle(store, CLUB, 1);
    const next = { life: life({ '1': { firstVisitOf: 's' } }), view: view('Active') };

    // Act: the publish fails after the delta holds the facts
    const failing = keep(20, 2, async () => Promise.reject(new Error('bus down')));
    await expect(keepLifecycle(failing, kept, next, [FACT], false)).rejects.toThrow('bus down');
    const notYet = await readKeptLifecycle(store, CLUB, 1);
    await keepLifecycle(keep(21, 2), notYet, next, [FACT], false);

    // Assess
    expect(notYet?.pending).toEqual({ events: [], facts: [FACT], nowMs: 20 });
    expect(notYet?.members['1']).toEqual({ firstVisitOf: 's' });
    expect(published).toEqual([[FACT_ID]]);
    expect((await readKeptLifecycle(store, CLUB, 2))?.pending).toEqual(NOTHING); // hour 2 recorded
    // It was not: the facts are published again as of the evaluation that found them (now 21).
    expect((await readKeptLifecycle(store, CLUB, 1))?.pending).toEqual({
      events: [],
      facts: [FACT],
      nowMs: 21,
    });
  });

  it('rebases after publishing and empties the delta; a delta of an earlier base is ignored', async () => {
    // Prepare
    const { store, published, writes, keep } = rig();
    await keepLifecycle(keep(10, 1), undefined, { life: life({}), view: view('Active') }, [], true);
    const kept = await readKeptLifecycle(store, CLUB, 1);
    const next = { life: life({ '1': { firstVisitOf: 's' } }), view: view('Gone') };

    // Act
    await keepLifecycle(keep(20, 2), kept, next, [FACT], true);
    const rebased = await readKeptLifecycle(store, CLUB, 1);
    // A stale delta (written for the first base) put back over the emptied one:
    const stale = await store.getLifecycle('delta');
    await store.putLifecycle(
      { ...(stale?.doc as object), baseVersion: 1, pending: ['old'] },
      stale!.version,
      'delta',
    );
    const ignoring = await readKeptLifecycle(store, CLUB, 1);

    // Assess
    expect(writes).toEqual(['base', 'delta', 'base', 'delta', 'delta']);
    expect(published).toEqual([[FACT_ID]]);
    expect(rebased).toMatchObject({ baseWrittenAtMs: 20, deltaSize: 0, pending: NOTHING });
    expect(rebased?.members['1']).toEqual({ firstVisitOf: 's' });
    expect(ignoring).toMatchObject({ deltaSize: 0, pending: NOTHING });
    expect(ignoring?.view?.members['1']).toEqual({ status: 'Gone' });
  });

  it('ignores a delta it cannot read, and the rebase that follows replaces it', async () => {
    // Prepare
    const { store, keep } = rig();
    await keepLifecycle(keep(10, 1), undefined, { life: life({}), view: view('Active') }, [], true);
    await store.putLifecycle({ delta: 2, members: 'not entries' }, 0, 'delta');

    // Act
    const unreadable = await readKeptLifecycle(store, CLUB, 1);
    await keepLifecycle(keep(20, 2), unreadable, { life: life({}), view: view('Frozen') }, [], true);
    const after = await readKeptLifecycle(store, CLUB, 2);

    // Assess
    expect(unreadable).toMatchObject({ deltaUnreadable: true, deltaSize: 0, pending: NOTHING });
    expect(unreadable?.view?.members['1']).toEqual({ status: 'Active' });
    expect(after).not.toHaveProperty('deltaUnreadable');
    expect(after?.view?.members['1']).toEqual({ status: 'Frozen' });
  });

  it('a base it cannot read says so with the versions; a silent first evaluation kept with them replaces it', async () => {
    // Prepare: a base and a delta, then a base of a later release.
    const { store, keep } = rig();
    await keepLifecycle(keep(10, 1), undefined, { life: life({}), view: view('Active') }, [], true);
    const kept = await readKeptLifecycle(store, CLUB, 1);
    await keepLifecycle(keep(15, 2), kept, { life: life({}), view: view('Frozen') }, [], false);
    await store.putLifecycle({ version: 2, members: 'elsewhere' }, 1, 'base');

    // Act
    const failure = await readKeptLifecycle(store, CLUB, 2).catch((err: unknown) => err);
    const versions = (failure as UnreadableLifecycleBaseError).versions;
    await keepLifecycle(keep(20, 3), undefined, { life: life({}), view: view('Active') }, [], true, versions);
    const after = await readKeptLifecycle(store, CLUB, 3);

    // Assess
    expect(failure).toBeInstanceOf(UnreadableLifecycleBaseError);
    expect(versions).toEqual({ base: 2, delta: 1 });
    expect(after).toMatchObject({ deltaSize: 0, pending: NOTHING });
    expect(after?.stored.baseVersion).toBe(3);
    expect(after?.view?.members['1']).toEqual({ status: 'Active' });
  });
});
