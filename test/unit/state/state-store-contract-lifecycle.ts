/**
 * The StateStore contract's lifecycle documents: version-conditioned puts, base and delta kept apart
 * with their own versions, a document over one item stored in pieces and read whole.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { LifecycleConflictError } from '../../../lambdas/state/lifecycle-items';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import { StoreError } from '../../../lambdas/state/store';
import { CLUB, freshStore, OTHER_CLUB, type StoreFactory } from './state-store-contract-support';

export function describeLifecycleDocumentContract(makeStore: StoreFactory): void {
  describe('lifecycle document', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('puts with a version condition, reads back what was put, keeps clubs apart', async () => {
      // Prepare
      const doc = {
        version: 1,
        members: { '100042': { lastVisitAt: '2026-06-01T08:00:00' } },
        n: [1, 2.5, null],
      };
      // Act
      const absent = await store.parts.lifecycle.getLifecycle(CLUB);
      const v1 = await store.parts.lifecycle.putLifecycle(CLUB, doc, 0);
      const v2 = await store.parts.lifecycle.putLifecycle(CLUB, { ...doc, n: [] }, 1);
      // Assess
      await expect(store.parts.lifecycle.putLifecycle(CLUB, doc, 1)).rejects.toBeInstanceOf(
        LifecycleConflictError,
      );
      await expect(store.parts.lifecycle.putLifecycle(CLUB, doc, 0)).rejects.toBeInstanceOf(
        LifecycleConflictError,
      );
      expect(absent).toBeUndefined();
      expect([v1, v2]).toEqual([1, 2]);
      expect(await store.parts.lifecycle.getLifecycle(CLUB)).toEqual({
        doc: { ...doc, n: [] },
        version: 2,
      });
      expect(await store.parts.lifecycle.getLifecycle(OTHER_CLUB)).toBeUndefined();
    });

    it('keeps the base and the delta apart, each with its own version', async () => {
      // Act
      await store.parts.lifecycle.putLifecycle(CLUB, { base: 1 }, 0);
      await store.parts.lifecycle.putLifecycle(CLUB, { base: 2 }, 1, 'base');
      const delta = await store.parts.lifecycle.putLifecycle(CLUB, { delta: 1 }, 0, 'delta');
      // Assess
      expect(delta).toBe(1);
      await expect(store.parts.lifecycle.putLifecycle(CLUB, { delta: 2 }, 2, 'delta')).rejects.toBeInstanceOf(
        LifecycleConflictError,
      );
      expect(await store.parts.lifecycle.getLifecycle(CLUB)).toEqual({ doc: { base: 2 }, version: 2 });
      expect(await store.parts.lifecycle.getLifecycle(CLUB, 'delta')).toEqual({
        doc: { delta: 1 },
        version: 1,
      });
      expect(await store.parts.lifecycle.getLifecycle(OTHER_CLUB, 'delta')).toBeUndefined();
    });

    it('stores a document over one item in pieces and reads it whole; refuses one not JSON', async () => {
      // Prepare: random text does not compress: about 900 KB gzipped, three items.
      const big = { noise: randomBytes(900_000).toString('base64') };
      // Act
      await store.parts.lifecycle.putLifecycle(CLUB, big, 0);
      const first = await store.parts.lifecycle.getLifecycle(CLUB);
      await store.parts.lifecycle.putLifecycle(CLUB, { ...big, more: 1 }, 1);
      const second = await store.parts.lifecycle.getLifecycle(CLUB);
      await store.parts.lifecycle.putLifecycle(CLUB, { small: true }, 2);
      // Assess
      expect(first).toEqual({ doc: big, version: 1 });
      expect(second).toEqual({ doc: { ...big, more: 1 }, version: 2 });
      expect(await store.parts.lifecycle.getLifecycle(CLUB)).toEqual({ doc: { small: true }, version: 3 });
      await expect(store.parts.lifecycle.putLifecycle(OTHER_CLUB, undefined, 0)).rejects.toBeInstanceOf(
        StoreError,
      );
      expect(await store.parts.lifecycle.getLifecycle(OTHER_CLUB)).toBeUndefined();
    });
  });
}
