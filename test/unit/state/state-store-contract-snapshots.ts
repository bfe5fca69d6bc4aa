/**
 * The StateStore contract's record snapshots: exact round trips of nested fields, batched reads and
 * writes, listing a club and kind across Query pages, last write wins, values that cannot be stored
 * exactly refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import { type Snapshot, StoreError } from '../../../lambdas/state/store';
import { CLUB, freshStore, OTHER_CLUB, type StoreFactory } from './state-store-contract-support';

function snapshot(id: string, hash: string, fields: Record<string, unknown> = {}): Snapshot {
  return { id, hash, fields, updatedAt: '2025-03-01T00:00:00.000Z' };
}

export function describeSnapshotContract(makeStore: StoreFactory): void {
  describe('snapshots', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('round-trips nested fields exactly', async () => {
      // Prepare
      const fields = {
        MemberId: '9007199254740993',
        FirstName: 'Zoë',
        Status: 'Current',
        Email: '',
        OptOutEmail: false,
        Balance: -12.5,
        Count: 0,
        Address: { Line1: '1 Main St', Suburb: null, Geo: { lat: -33.87, lng: 151.21 } },
        Tags: ['a', 1, true, null, { deep: ['x'] }],
        Empty: {},
        EmptyList: [],
      };

      // Act
      await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('9007199254740993', 'h1', fields)]);
      const read = await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['9007199254740993', '404']);

      // Assess
      expect([...read.keys()]).toEqual(['9007199254740993']);
      expect(read.get('9007199254740993')).toEqual(snapshot('9007199254740993', 'h1', fields));
    });

    it('reads and writes more snapshots than one batch call takes', async () => {
      // Prepare
      const snapshots = Array.from({ length: 230 }, (_, i) => snapshot(String(1000 + i), `h${i}`, { i }));
      await store.parts.snapshots.putSnapshots(CLUB, 'PROSPECT', snapshots);

      // Act
      const ids = [...snapshots.map((s) => s.id), '1', '2'];
      const read = await store.parts.snapshots.getSnapshots(CLUB, 'PROSPECT', ids);

      // Assess
      expect(read.size).toBe(230);
      expect(read.get('1229')).toEqual(snapshot('1229', 'h229', { i: 229 }));
      expect(read.has('1')).toBe(false);
    });

    it('lists every snapshot of a club and kind, odd record numbers included, across Query pages', async () => {
      // Prepare: more than one page of items (1 MB a Query page) and an id that is not its own key.
      const padding = 'x'.repeat(4000);
      const many = Array.from({ length: 300 }, (_, i) => snapshot(String(5000 + i), `h${i}`, { i, padding }));
      const odd = snapshot('~h~looks encoded', 'odd', { odd: true });
      await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [...many, odd]);
      await store.parts.snapshots.putSnapshots(CLUB, 'PROSPECT', [snapshot('5000', 'p', {})]);
      await store.parts.snapshots.putSnapshots(OTHER_CLUB, 'MEMBER', [snapshot('1', 'o', {})]);

      // Act
      const listed = await store.parts.snapshots.listSnapshots(CLUB, 'MEMBER');

      // Assess
      expect(listed.size).toBe(301);
      expect(listed.get('5299')).toEqual(snapshot('5299', 'h299', { i: 299, padding }));
      expect(listed.get('~h~looks encoded')).toEqual(odd);
      expect((await store.parts.snapshots.listSnapshots(OTHER_CLUB, 'PROSPECT')).size).toBe(0);
      // Strongly consistent on request (the lifecycle evaluation's read), with the same answer.
      expect(await store.parts.snapshots.listSnapshots(CLUB, 'MEMBER', { consistentRead: true })).toEqual(
        listed,
      );
      const some = await store.parts.snapshots.getSnapshots(
        CLUB,
        'MEMBER',
        ['5001', '~h~looks encoded', 'absent'],
        {
          consistentRead: true,
        },
      );
      expect([...some.keys()].sort()).toEqual(['5001', '~h~looks encoded']);
      expect(some.get('5001')).toEqual(listed.get('5001'));
    });

    it('replaces on put, last one wins within a call, and keeps kinds and clubs apart', async () => {
      // Prepare
      await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('7', 'old', { a: 1, b: 2 })]);

      // Act
      await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [
        snapshot('7', 'mid', { a: 2 }),
        snapshot('7', 'new', { a: 3 }),
      ]);

      // Assess
      expect((await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['7'])).get('7')).toEqual(
        snapshot('7', 'new', { a: 3 }),
      );
      expect((await store.parts.snapshots.getSnapshots(CLUB, 'PROSPECT', ['7'])).size).toBe(0);
      expect((await store.parts.snapshots.getSnapshots(OTHER_CLUB, 'MEMBER', ['7'])).size).toBe(0);
    });

    it('drops undefined fields and refuses values that cannot be stored exactly', async () => {
      // Act
      await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [
        snapshot('8', 'h', { kept: 1, gone: undefined, n: { x: undefined } }),
      ]);

      // Assess
      expect((await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['8'])).get('8')?.fields).toEqual({
        kept: 1,
        n: {},
      });
      await expect(
        store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('9', 'h', { bad: Number.NaN })]),
      ).rejects.toThrow(StoreError);
      await expect(
        store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('9', 'h', { big: 2 ** 60 })]),
      ).rejects.toBeInstanceOf(StoreError);
      expect((await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['9'])).size).toBe(0);
    });
  });
}
