/**
 * The StateStore contract's per-key seen items: expiring seen fingerprints (filtered on read, batched
 * beyond one call's limit, kept apart by club and source) and the seen digest of a source (replaced
 * on put, read until it expires, refused empty or oversized).
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import { type SourceName, StoreError } from '../../../lambdas/state/store';
import {
  CLUB,
  fingerprints,
  freshStore,
  OTHER_CLUB,
  type StoreFactory,
  T0,
} from './state-store-contract-support';

export function describeSeenFingerprintContract(makeStore: StoreFactory): void {
  describe('seen fingerprints', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('reports exactly the stored, unexpired fingerprints among those asked', async () => {
      // Prepare
      await store.parts.seen.putSeen(CLUB, 'visits', ['a', 'b', 'c'], 2_000);

      // Act
      const seen = await store.parts.seen.filterSeen(CLUB, 'visits', ['a', 'c', 'd', 'a'], 1_000);

      // Assess
      expect([...seen].sort()).toEqual(['a', 'c']);
      expect((await store.parts.seen.filterSeen(CLUB, 'visits', [], 1_000)).size).toBe(0);
    });

    it('filters expired fingerprints on read (TTL deletes late or never)', async () => {
      // Prepare
      await store.parts.seen.putSeen(CLUB, 'paymentHistory', ['p1', 'p2'], 1_000);
      await store.parts.seen.putSeen(CLUB, 'paymentHistory', ['p2'], 5_000);

      // Act
      const before = await store.parts.seen.filterSeen(CLUB, 'paymentHistory', ['p1', 'p2'], 999);
      const atExpiry = await store.parts.seen.filterSeen(CLUB, 'paymentHistory', ['p1', 'p2'], 1_000);

      // Assess
      expect([...before].sort()).toEqual(['p1', 'p2']);
      expect([...atExpiry]).toEqual(['p2']);
    });

    it('handles more keys than one batch call takes (>25 writes, >100 reads)', async () => {
      // Prepare
      const stored = fingerprints('v', 260);
      const unknown = fingerprints('x', 150);
      await store.parts.seen.putSeen(CLUB, 'visits', [...stored, ...stored.slice(0, 30)], 10_000);

      // Act
      const seen = await store.parts.seen.filterSeen(CLUB, 'visits', [...unknown, ...stored], 1_000);

      // Assess
      expect(seen.size).toBe(260);
      expect([...seen].sort()).toEqual(stored);
    });

    it('keeps sources and clubs apart', async () => {
      // Prepare
      await store.parts.seen.putSeen(CLUB, 'visits', ['k'], 10_000);

      // Act / Assess
      expect((await store.parts.seen.filterSeen(CLUB, 'posTransactions', ['k'], 1)).size).toBe(0);
      expect((await store.parts.seen.filterSeen(OTHER_CLUB, 'visits', ['k'], 1)).size).toBe(0);
      expect((await store.parts.seen.filterSeen(CLUB, 'visits', ['k'], 1)).size).toBe(1);
    });

    it('rejects an empty fingerprint and one longer than a sort key may be', async () => {
      await expect(store.parts.seen.putSeen(CLUB, 'visits', [''], 10)).rejects.toBeInstanceOf(StoreError);
      await expect(store.parts.seen.filterSeen(CLUB, 'visits', ['x'.repeat(1025)], 1)).rejects.toBeInstanceOf(
        StoreError,
      );
    });
  });
}

export function describeSeenDigestContract(makeStore: StoreFactory): void {
  describe('seen digest', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    it('replaces the digest on put, reads it back until it expires, keeps clubs and sources apart', async () => {
      // Prepare
      const first = Uint8Array.from([1, 2, 3]);
      const second = Uint8Array.from(randomBytes(900));
      const nowSec = Math.floor(T0 / 1000);
      // Act
      const absent = await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec);
      await store.parts.seen.putSeenDigest(CLUB, 'disbursements', first, nowSec + 60);
      await store.parts.seen.putSeenDigest(CLUB, 'disbursements', second, nowSec + 60);
      await store.parts.seen.putSeenDigest(CLUB, 'paymentHistory', first, nowSec + 60);
      // Assess
      expect(absent).toBeUndefined();
      expect(Buffer.from((await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec))!)).toEqual(
        Buffer.from(second),
      );
      expect(Buffer.from((await store.parts.seen.getSeenDigest(CLUB, 'paymentHistory', nowSec))!)).toEqual(
        Buffer.from(first),
      );
      expect(await store.parts.seen.getSeenDigest(OTHER_CLUB, 'disbursements', nowSec)).toBeUndefined();
      expect(await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec + 60)).toBeUndefined();
    });

    it('refuses an empty or oversized digest and an unknown source, writing nothing', async () => {
      // Act and assess
      const nowSec = Math.floor(T0 / 1000);
      await expect(
        store.parts.seen.putSeenDigest(CLUB, 'disbursements', new Uint8Array(0), nowSec + 60),
      ).rejects.toBeInstanceOf(StoreError);
      await expect(
        store.parts.seen.putSeenDigest(CLUB, 'disbursements', new Uint8Array(17 * 1024), nowSec + 60),
      ).rejects.toBeInstanceOf(StoreError);
      await expect(
        store.parts.seen.putSeenDigest(CLUB, 'nope' as SourceName, Uint8Array.from([1]), nowSec + 60),
      ).rejects.toBeInstanceOf(StoreError);
      expect(await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec)).toBeUndefined();
    });
  });
}
