/**
 * The StateStore contract's club state item (lease, cursors and counter in one): sessions exclusive
 * to one poller, what a session writes on close and on checkpoint (nothing once its lease is lost),
 * writes outside a poll only in a session of their own, the lifecycle hour and notes kept with the
 * state, many clubs' states read at once.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import { ConcurrentModificationError, newCursor, StoreError } from '../../../lambdas/state/store';
import { seedCursor, seedQuota } from '../../support/state-seeds';
import { CLUB, freshStore, OTHER_CLUB, type StoreFactory, T0 } from './state-store-contract-support';

export function describeClubStateContract(makeStore: StoreFactory): void {
  describe('the club state item: lease, cursors and counter in one', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('gives a contended club to exactly one of two pollers', async () => {
      // Act
      const [a, b] = await Promise.all([
        store.openClub(CLUB, 'owner-a', 60_000, T0),
        store.openClub(CLUB, 'owner-b', 60_000, T0),
      ]);

      // Assess
      expect([a, b].filter(Boolean)).toHaveLength(1);
    });

    it('refuses a held club to another owner, opens it again for its holder, and for anyone once expired', async () => {
      // Prepare
      expect(await store.openClub(CLUB, 'owner-a', 60_000, T0)).toBeDefined();

      // Act / Assess
      expect(await store.openClub(CLUB, 'owner-b', 60_000, T0 + 59_999)).toBeUndefined();
      expect(await store.openClub(CLUB, 'owner-a', 60_000, T0 + 1_000)).toBeDefined();
      expect(await store.openClub(CLUB, 'owner-b', 60_000, T0 + 61_000)).toBeDefined();
      expect(await store.openClub(OTHER_CLUB, 'owner-c', 60_000, T0)).toBeDefined();
    });

    it('writes what the session changed when it closes, in one item the next poll reads', async () => {
      // Prepare
      const first = await store.openClub(CLUB, 'owner-a', 60_000, T0);
      const visits = await first!.getCursor('visits');
      await first!.putCursor({ ...visits, watermark: '2025-03-01T00:00:00.000Z', baselineDone: true });
      await first!.addQuotaUsage('2025-03', 7);
      // Not written before the close: a reader outside the session sees the stored state.
      expect((await store.view(CLUB).getCursor('visits')).version).toBe(0);

      // Act
      await first!.close();
      const second = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1);

      // Assess
      const read = await second!.getCursor('visits');
      expect([read.version, read.watermark, read.baselineDone]).toEqual([
        1,
        '2025-03-01T00:00:00.000Z',
        true,
      ]);
      expect(await second!.getQuotaUsage('2025-03')).toBe(7);
      expect(await second!.addQuotaUsage('2025-03', 3)).toBe(10);
      await second!.close();
      expect(await store.view(CLUB).getQuotaUsage('2025-03')).toBe(10);
      expect(await store.view(CLUB).getQuotaUsage('2025-04')).toBe(0);
    });

    it('a checkpoint writes and keeps the lease; a session that lost its lease writes nothing', async () => {
      // Prepare
      const a = await store.openClub(CLUB, 'owner-a', 1_000, T0);
      const cursor = await a!.getCursor('members');
      await a!.putCursor({ ...cursor, watermark: 'first' });

      // Act
      await a!.checkpoint();
      const held = await store.openClub(CLUB, 'owner-b', 1_000, T0 + 500);
      const b = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1_000); // a's lease expired
      await a!.putCursor({ ...(await a!.getCursor('members')), watermark: 'lost' });

      // Assess
      expect(held).toBeUndefined();
      expect((await store.view(CLUB).getCursor('members')).watermark).toBe('first');
      await expect(a!.close()).rejects.toBeInstanceOf(StoreError);
      expect((await b!.getCursor('members')).watermark).toBe('first');
    });

    it('rejects a stale cursor version inside a session, and serves nothing once closed', async () => {
      // Prepare
      const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);
      const fresh = await session!.getCursor('visits');
      await session!.putCursor(fresh);

      // Act / Assess
      await expect(session!.putCursor(fresh)).rejects.toBeInstanceOf(ConcurrentModificationError);
      await session!.close();
      await expect(session!.getCursor('visits')).rejects.toBeInstanceOf(StoreError);
    });

    it('writes outside a poll only in a session of their own: none while a poll holds the club', async () => {
      // Prepare
      const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);

      // Act / Assess
      expect(await store.openClub(CLUB, 'cli', 60_000, T0 + 1)).toBeUndefined();
      const view = store.view(CLUB) as unknown as Record<string, unknown>;
      expect(view.putCursor).toBeUndefined();
      await expect(
        (view.putSeen as (...a: unknown[]) => Promise<void>)('visits', ['a'], 2_000),
      ).rejects.toBeInstanceOf(StoreError);
      await session!.close();
      const written = await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'w' });
      expect(written.version).toBe(1);
    });

    it("keeps the hour of the club's lifecycle evaluation with the session's state, through other sessions' writes", async () => {
      // Prepare
      const first = await store.openClub(CLUB, 'owner-a', 60_000, T0);
      expect(first!.lifecycleHour()).toBeUndefined();

      // Act
      first!.markLifecycleHour(493_000);
      await first!.close();
      await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'w' }); // a write outside a poll
      const second = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1);

      // Assess
      expect(second!.lifecycleHour()).toBe(493_000);
      expect(() => second!.markLifecycleHour(-1)).toThrow(StoreError);
      expect(() => second!.markLifecycleHour(1.5)).toThrow(StoreError);
      second!.markLifecycleHour(493_000); // unchanged: nothing to write
      await second!.close();
      expect((await store.view(CLUB).getCursor('visits')).version).toBe(1);
    });

    it('keeps the lifecycle notes with the state, and marks them full after a poll that stopped before its close', async () => {
      // Prepare
      const first = await store.openClub(CLUB, 'owner-a', 60_000, T0);
      expect(first!.lifecycleNotes()).toEqual({});

      // Act: a poll notes and closes; the next notes more and stops without its close.
      first!.noteLifecycle({ members: ['100042'], visitsFromMs: T0 - 5_000 });
      first!.noteLifecycle({ members: ['100042', '7'], visitsFromMs: T0 - 9_000, paymentsFromMs: T0 });
      await first!.close();
      const second = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1);
      const carried = second!.lifecycleNotes();
      second!.clearLifecycleNotes();
      second!.noteLifecycle({ prospects: ['55'] });
      await second!.checkpoint();
      const third = await store.openClub(CLUB, 'owner-c', 60_000, T0 + 120_000); // the lease expired
      const afterStop = third!.lifecycleNotes();
      await third!.close();
      const fourth = await store.openClub(CLUB, 'owner-d', 60_000, T0 + 200_000);

      // Assess
      expect(carried).toEqual({
        members: ['100042', '7'],
        visitsFromMs: T0 - 9_000,
        paymentsFromMs: T0,
      });
      expect(afterStop).toEqual({ full: true });
      expect(fourth!.lifecycleNotes()).toEqual({ full: true }); // written by the close
      fourth!.clearLifecycleNotes();
      await fourth!.close();
      const fifth = await store.openClub(CLUB, 'owner-e', 60_000, T0 + 300_000);
      expect(fifth!.lifecycleNotes()).toEqual({});
      await fifth!.close();
    });

    it('a session that changed nothing only releases the club', async () => {
      // Prepare
      await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'w' });
      const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);

      // Act
      await session!.close();

      // Assess: released, and the stored cursor untouched
      expect(await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1)).toBeDefined();
      expect((await store.view(CLUB).getCursor('visits')).version).toBe(1);
    });

    it("reads many clubs' cursors and counters at once, beyond one batch call (>100)", async () => {
      // Prepare
      const ids = Array.from({ length: 130 }, (_, i) => `club-${i}`);
      for (const id of ids.slice(0, 120)) {
        await seedCursor(store, { ...newCursor(id, 'visits'), watermark: id });
        await seedQuota(store, id, '2025-03', 2);
      }

      // Act
      const states = await store.readClubStates(ids, '2025-03');

      // Assess
      expect(states.size).toBe(130);
      expect(states.get('club-7')!.cursors.map((c) => c.watermark)).toEqual(['club-7']);
      expect(states.get('club-7')!.quotaUsed).toBe(2);
      expect(states.get('club-125')).toEqual({ cursors: [], quotaUsed: 0 });
      expect((await store.readClubStates(['club-7'], '2025-04')).get('club-7')!.quotaUsed).toBe(0);
    });

    it('rejects a non-positive ttl, an empty owner and a forged club id', async () => {
      await expect(store.openClub(CLUB, 'owner-a', 0, T0)).rejects.toBeInstanceOf(StoreError);
      await expect(store.openClub(CLUB, '', 1_000, T0)).rejects.toBeInstanceOf(StoreError);
      await expect(store.openClub('club#2', 'owner-a', 1_000, T0)).rejects.toBeInstanceOf(StoreError);
      await expect(store.readClubStates([CLUB], '2025-3')).rejects.toBeInstanceOf(StoreError);
    });
  });
}
