/**
 * The StateStore contract's versioned cursors: a fresh version-0 cursor when none is stored, every
 * field read back, the version advanced on each write and a stale or concurrent write refused,
 * copies returned, a club's cursors listed, forged club ids and unknown sources refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import {
  ConcurrentModificationError,
  type Cursor,
  newCursor,
  StoreError,
} from '../../../lambdas/state/store';
import { seedCursor, seedQuota } from '../../support/state-seeds';
import { CLUB, freshStore, OTHER_CLUB, type StoreFactory, T0 } from './state-store-contract-support';

export function describeCursorContract(makeStore: StoreFactory): void {
  describe('cursors', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('returns a fresh version-0 cursor when none is stored', async () => {
      // Act
      const cursor = await store.view(CLUB).getCursor('visits');

      // Assess
      expect(cursor).toEqual(newCursor(CLUB, 'visits'));
      expect(cursor.version).toBe(0);
      expect(cursor.baselineDone).toBe(false);
    });

    it('stores a new cursor at version 1 and reads every field back', async () => {
      // Prepare
      const cursor: Cursor = {
        ...newCursor(CLUB, 'paymentHistory'),
        watermark: '2025-03-01T10:00:00.000Z',
        baselineDone: true,
        backfillFrom: '2025-01-01T00:00:00',
        scan: {
          fromdate: '2025-02-28T10:00:00',
          nextOffset: 1500,
          startedAt: '2025-03-01T10:01:00.000Z',
          maxRecordTime: '2025-03-01T09:59:59.000Z',
          pages: 3,
          records: 1500,
        },
        health: {
          consecutiveFailures: 2,
          lastPollAt: '2025-03-01T10:01:00.000Z',
          lastError: { kind: 'unavailable', message: 'HTTP 503', at: '2025-03-01T10:01:05.000Z' },
          nextDueAt: '2025-03-01T10:02:00.000Z',
        },
        stats: { published: 12, quarantined: 1 },
      };

      // Act
      const written = await seedCursor(store, cursor);
      const read = await store.view(CLUB).getCursor('paymentHistory');

      // Assess
      expect(written).toEqual({ ...cursor, version: 1 });
      expect(read).toEqual({ ...cursor, version: 1 });
      expect(cursor.version).toBe(0); // the argument is not mutated
    });

    it('drops undefined fields instead of storing them', async () => {
      // Act
      await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: undefined, scan: undefined });
      const read = await store.view(CLUB).getCursor('visits');

      // Assess
      expect(Object.keys(read)).not.toContain('watermark');
      expect(Object.keys(read)).not.toContain('scan');
      expect(read.version).toBe(1);
    });

    it('advances the version on each write and rejects a write from a stale version', async () => {
      // Prepare
      const v1 = await seedCursor(store, {
        ...newCursor(CLUB, 'visits'),
        watermark: '2025-03-01T00:00:00Z',
      });
      const v2 = await seedCursor(store, { ...v1, watermark: '2025-03-02T00:00:00Z' });

      // Act
      const stale = seedCursor(store, { ...v1, watermark: '2025-03-09T00:00:00Z' });

      // Assess
      expect(v2.version).toBe(2);
      await expect(stale).rejects.toBeInstanceOf(ConcurrentModificationError);
      const read = await store.view(CLUB).getCursor('visits');
      expect(read.version).toBe(2);
      expect(read.watermark).toBe('2025-03-02T00:00:00Z');
    });

    it('rejects a version-0 write when a cursor already exists', async () => {
      // Prepare
      await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'first' });

      // Act
      const second = seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'second' });

      // Assess
      const error = await second.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConcurrentModificationError);
      expect(error).toMatchObject({ clubId: CLUB, source: 'visits', expectedVersion: 0 });
      expect((await store.view(CLUB).getCursor('visits')).watermark).toBe('first');
    });

    it('lets exactly one of two concurrent writers in a session win, on creation and on update', async () => {
      const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);
      for (const start of [0, 1]) {
        // Prepare
        const source = start === 0 ? 'members' : 'prospects';
        let base = newCursor(CLUB, source);
        if (start === 1) base = await session!.putCursor(base);

        // Act
        const results = await Promise.allSettled([
          session!.putCursor({ ...base, watermark: 'writer-a' }),
          session!.putCursor({ ...base, watermark: 'writer-b' }),
        ]);

        // Assess
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r) => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentModificationError);
        const winner = (won[0] as PromiseFulfilledResult<Cursor>).value;
        const read = await session!.getCursor(source);
        expect(read.version).toBe(start + 1);
        expect(read.watermark).toBe(winner.watermark);
      }
      await session!.close();
      expect((await store.view(CLUB).getCursor('prospects')).version).toBe(2);
    });

    it('returns copies: mutating a read cursor does not change the stored one', async () => {
      // Prepare
      await seedCursor(store, { ...newCursor(CLUB, 'visits'), stats: { n: 1 } });
      const read = await store.view(CLUB).getCursor('visits');

      // Act
      read.health.consecutiveFailures = 99;
      (read.stats as Record<string, number>).n = 42;

      // Assess
      const again = await store.view(CLUB).getCursor('visits');
      expect(again.health.consecutiveFailures).toBe(0);
      expect(again.stats).toEqual({ n: 1 });
    });

    it('lists the stored cursors of one club only, by source name, ignoring leases and quota', async () => {
      // Prepare
      await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'v' });
      await seedCursor(store, { ...newCursor(CLUB, 'members'), watermark: 'm' });
      await seedCursor(store, { ...newCursor(OTHER_CLUB, 'prospects'), watermark: 'p' });
      await seedQuota(store, CLUB, '2025-03', 3);
      await store.openClub(CLUB, 'owner-a', 60_000, T0); // a poll holding the club: reads still work

      // Act
      const listed = await store.view(CLUB).listCursors();

      // Assess
      expect(listed.map((c) => [c.source, c.watermark, c.version])).toEqual([
        ['members', 'm', 1],
        ['visits', 'v', 1],
      ]);
      expect(await store.view('club-without-state').listCursors()).toEqual([]);
    });

    it('rejects club ids that could forge another key, and unknown sources', async () => {
      expect(() => store.view('club#1')).toThrow(StoreError);
      expect(() => store.view('')).toThrow(StoreError);
      await expect(store.view(CLUB).getCursor('nope' as 'visits')).rejects.toBeInstanceOf(StoreError);
    });
  });
}
