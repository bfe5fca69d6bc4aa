/**
 * The StateStore contract's monthly quota counters: per month and club, never losing a count among
 * concurrent adds, malformed months and counts refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import { StoreError } from '../../../lambdas/state/store';
import { seedQuota } from '../../support/state-seeds';
import { CLUB, freshStore, OTHER_CLUB, type StoreFactory } from './state-store-contract-support';

export function describeQuotaContract(makeStore: StoreFactory): void {
  describe('quota', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('adds and reads a monthly counter, per month and club', async () => {
      // Act
      const zero = await store.view(CLUB).getQuotaUsage('2025-03');
      const first = await seedQuota(store, CLUB, '2025-03', 5);
      const second = await seedQuota(store, CLUB, '2025-03', 7);

      // Assess
      expect([zero, first, second]).toEqual([0, 5, 12]);
      expect(await store.view(CLUB).getQuotaUsage('2025-03')).toBe(12);
      expect(await store.view(CLUB).getQuotaUsage('2025-04')).toBe(0);
      expect(await store.view(OTHER_CLUB).getQuotaUsage('2025-03')).toBe(0);
    });

    it('never loses a count among 20 concurrent adds outside a poll (each is counted or refused)', async () => {
      // Prepare
      const amounts = Array.from({ length: 20 }, (_, i) => i + 1);

      // Act
      const results = await Promise.allSettled(amounts.map((n) => seedQuota(store, CLUB, '2025-03', n)));

      // Assess: the stored total is exactly the sum of the adds that said they counted
      const counted = amounts.filter((_, i) => results[i]!.status === 'fulfilled');
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreError);
      expect(counted.length).toBeGreaterThan(0);
      expect(await store.view(CLUB).getQuotaUsage('2025-03')).toBe(counted.reduce((a, b) => a + b, 0));
    });

    it('rejects a malformed month and a negative or fractional count', async () => {
      await expect(seedQuota(store, CLUB, '2025-3', 1)).rejects.toBeInstanceOf(StoreError);
      await expect(store.view(CLUB).getQuotaUsage('2025-13')).rejects.toBeInstanceOf(StoreError);
      await expect(seedQuota(store, CLUB, '2025-03', -1)).rejects.toBeInstanceOf(StoreError);
      await expect(seedQuota(store, CLUB, '2025-03', 1.5)).rejects.toBeInstanceOf(StoreError);
    });
  });
}
