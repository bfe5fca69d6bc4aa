/**
 * The StateStore contract's time-ordered seen set: ranges from `fromAt` inclusive to `toAt`
 * exclusive, expiry filtered on read, idempotent puts, batched writes and reads past a 1 MB Query
 * page, the one sortable `at` format, and what an entry carries besides its fingerprint (group and
 * value, memo, announced mark), refused whole when any entry is invalid.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import { type SeenAt, StoreError } from '../../../lambdas/state/store';
import {
  CLUB,
  fingerprints,
  freshStore,
  OTHER_CLUB,
  type StoreFactory,
  T0,
} from './state-store-contract-support';

export function describeSeenAtContract(makeStore: StoreFactory): void {
  describe('time-ordered seen set', () => {
    let store: BridgeStateStore;

    beforeEach(async () => {
      ({ store } = await freshStore(makeStore));
    });

    const at = (ms: number) => new Date(T0 + ms).toISOString();
    const entry = (fingerprint: string, ms: number): SeenAt => ({ fingerprint, at: at(ms) });
    const sorted = (set: Set<string>) => [...set].sort();

    it('reads from `fromAt` inclusive to `toAt` exclusive, to the end without `toAt`', async () => {
      // Prepare: entries a millisecond either side of both bounds, and exactly on them
      const from = 60_000;
      const to = 120_000;
      await store.parts.seen.putSeenAt(
        CLUB,
        'visits',
        [
          entry('before-from', from - 1),
          entry('at-from', from),
          entry('after-from', from + 1),
          entry('before-to', to - 1),
          entry('at-to', to),
          entry('after-to', to + 1),
        ],
        10_000,
      );

      // Act
      const bounded = await store.parts.seen.seenSince(CLUB, 'visits', at(from), 1_000, { toAt: at(to) });
      const open = await store.parts.seen.seenSince(CLUB, 'visits', at(from), 1_000);
      const all = await store.parts.seen.seenSince(CLUB, 'visits', at(-86_400_000), 1_000, {
        consistentRead: true,
      });

      // Assess
      expect(sorted(bounded)).toEqual(['after-from', 'at-from', 'before-to']);
      expect(sorted(open)).toEqual(['after-from', 'after-to', 'at-from', 'at-to', 'before-to']);
      expect(all.size).toBe(6);
    });

    it('returns nothing for an empty range (toAt at or before fromAt)', async () => {
      // Prepare
      await store.parts.seen.putSeenAt(CLUB, 'visits', [entry('k', 0), entry('l', 1)], 10_000);

      // Act / Assess
      expect((await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000, { toAt: at(0) })).size).toBe(0);
      expect((await store.parts.seen.seenSince(CLUB, 'visits', at(1), 1_000, { toAt: at(0) })).size).toBe(0);
      expect([...(await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000, { toAt: at(1) }))]).toEqual([
        'k',
      ]);
    });

    it('filters expired entries on read (TTL deletes late or never)', async () => {
      // Prepare
      await store.parts.seen.putSeenAt(CLUB, 'paymentHistory', [entry('p1', 0), entry('p2', 1)], 1_000);
      await store.parts.seen.putSeenAt(CLUB, 'paymentHistory', [entry('p2', 1)], 5_000);

      // Act
      const before = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 999);
      const atExpiry = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 1_000);
      const later = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 5_000);

      // Assess
      expect(sorted(before)).toEqual(['p1', 'p2']);
      expect([...atExpiry]).toEqual(['p2']);
      expect(later.size).toBe(0);
    });

    it('is idempotent: re-putting an entry, also twice in one call, stores it once', async () => {
      // Prepare
      const entries = [entry('a', 0), entry('b', 5), entry('a', 0)];
      await store.parts.seen.putSeenAt(CLUB, 'visits', entries, 10_000);

      // Act
      await store.parts.seen.putSeenAt(CLUB, 'visits', entries, 10_000);
      const seen = await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000);

      // Assess
      expect(sorted(seen)).toEqual(['a', 'b']);
      expect([...(await store.parts.seen.seenSince(CLUB, 'visits', at(1), 1_000))]).toEqual(['b']);
      await expect(store.parts.seen.putSeenAt(CLUB, 'visits', [], 10_000)).resolves.toBeUndefined();
    });

    it('files a fingerprint under each of its instants and keeps them apart by time', async () => {
      // Prepare
      await store.parts.seen.putSeenAt(CLUB, 'visits', [entry('moved', 0), entry('moved', 60_000)], 10_000);

      // Act
      const early = await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000, { toAt: at(1) });
      const late = await store.parts.seen.seenSince(CLUB, 'visits', at(1), 1_000);

      // Assess
      expect([...early]).toEqual(['moved']);
      expect([...late]).toEqual(['moved']);
    });

    it('keeps clubs, sources and the per-key seen set apart', async () => {
      // Prepare
      await store.parts.seen.putSeenAt(CLUB, 'visits', [entry('k', 0)], 10_000);
      await store.parts.seen.putSeen(CLUB, 'visits', ['per-key'], 10_000);

      // Act / Assess
      expect((await store.parts.seen.seenSince(CLUB, 'posTransactions', at(0), 1)).size).toBe(0);
      expect((await store.parts.seen.seenSince(OTHER_CLUB, 'visits', at(0), 1)).size).toBe(0);
      expect([...(await store.parts.seen.seenSince(CLUB, 'visits', at(-1), 1))]).toEqual(['k']);
      expect((await store.parts.seen.filterSeen(CLUB, 'visits', ['k'], 1)).size).toBe(0);
    });

    it('writes more entries than one batch call takes (>25) and reads them all back', async () => {
      // Prepare
      const stored = fingerprints('v', 260);
      const entries = stored.map((fp, i) => entry(fp, i * 1_000));

      // Act
      await store.parts.seen.putSeenAt(CLUB, 'visits', [...entries, ...entries.slice(0, 30)], 10_000);
      const seen = await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000);
      const lastHundred = await store.parts.seen.seenSince(CLUB, 'visits', at(160_000), 1_000);

      // Assess
      expect(sorted(seen)).toEqual(stored);
      expect(sorted(lastHundred)).toEqual(stored.slice(160));
    });

    it('reads a range larger than one 1 MB Query page to its end', async () => {
      // Prepare: 1,300 items of about 1 KB (900-character fingerprints) are 1.3 MB
      const stored = fingerprints('big', 1_300).map((fp) => fp + 'x'.repeat(900 - fp.length));
      await store.parts.seen.putSeenAt(
        CLUB,
        'classAttendance',
        stored.map((fp, i) => entry(fp, i)),
        10_000,
      );

      // Act
      const eventual = await store.parts.seen.seenSince(CLUB, 'classAttendance', at(0), 1_000);
      const strong = await store.parts.seen.seenSince(CLUB, 'classAttendance', at(0), 1_000, {
        consistentRead: true,
      });
      const tail = await store.parts.seen.seenSince(CLUB, 'classAttendance', at(1_250), 1_000, {
        toAt: at(1_300),
      });

      // Assess
      expect(eventual.size).toBe(1_300);
      expect(sorted(eventual)).toEqual(stored);
      expect(strong).toEqual(eventual);
      expect(sorted(tail)).toEqual(stored.slice(1_250));
    });

    it('rejects an `at` not in the one sortable format, an empty or oversized fingerprint', async () => {
      // Prepare
      const good = entry('ok', 0);
      const badAts = [
        '2025-03-01T00:00:00Z',
        '2025-03-01T00:00:00.000+00:00',
        '2025-03-01 00:00:00.000Z',
        '2025-03-01T00:00:00.0000Z',
        '2025-03-01',
        '',
      ];

      // Act / Assess
      for (const bad of badAts) {
        await expect(
          store.parts.seen.putSeenAt(CLUB, 'visits', [good, { fingerprint: 'x', at: bad }], 10),
        ).rejects.toThrow(StoreError);
        await expect(store.parts.seen.seenSince(CLUB, 'visits', bad, 1)).rejects.toBeInstanceOf(StoreError);
        await expect(
          store.parts.seen.seenSince(CLUB, 'visits', good.at, 1, { toAt: bad }),
        ).rejects.toBeInstanceOf(StoreError);
      }
      await expect(
        store.parts.seen.putSeenAt(CLUB, 'visits', [{ fingerprint: '', at: good.at }], 10),
      ).rejects.toBeInstanceOf(StoreError);
      await expect(
        store.parts.seen.putSeenAt(CLUB, 'visits', [{ fingerprint: 'x'.repeat(1_000), at: good.at }], 10),
      ).rejects.toBeInstanceOf(StoreError);
      await expect(store.parts.seen.seenSince('club#1', 'visits', good.at, 1)).rejects.toBeInstanceOf(
        StoreError,
      );
      await expect(store.parts.seen.seenSince(CLUB, 'visits', good.at, Number.NaN)).rejects.toBeInstanceOf(
        StoreError,
      );
      // a rejected call wrote nothing, not even its valid entries
      expect((await store.parts.seen.seenSince(CLUB, 'visits', at(-1), 1)).size).toBe(0);
    });

    it("keeps an entry's group and value, returned by seenEntriesSince in key order with the same range and expiry", async () => {
      // Prepare: two responses of one payment under the same instant, an entry without a group,
      // one outside the range and one expired.
      await store.parts.seen.putSeenAt(
        CLUB,
        'paymentHistory',
        [
          { fingerprint: 'fp-approved', at: at(10), group: 'g-1', value: 'Approved' },
          {
            fingerprint: 'fp-dishonoured',
            at: at(10),
            group: 'g-1',
            value: 'Dishonoured - Refer to Customer',
          },
          { fingerprint: 'fp-plain', at: at(20) },
          { fingerprint: 'fp-later', at: at(99), group: 'g-2', value: 'Approved' },
        ],
        10_000,
      );
      await store.parts.seen.putSeenAt(
        CLUB,
        'paymentHistory',
        [{ fingerprint: 'fp-old', at: at(15), group: 'g-3', value: 'x' }],
        500,
      );

      // Act
      const entries = await store.parts.seen.seenEntriesSince(CLUB, 'paymentHistory', at(0), 1_000, {
        toAt: at(99),
      });
      const fingerprintsOnly = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 1_000, {
        toAt: at(99),
      });

      // Assess
      expect(entries).toEqual([
        { fingerprint: 'fp-approved', at: at(10), group: 'g-1', value: 'Approved' },
        {
          fingerprint: 'fp-dishonoured',
          at: at(10),
          group: 'g-1',
          value: 'Dishonoured - Refer to Customer',
        },
        { fingerprint: 'fp-plain', at: at(20) },
      ]);
      expect(sorted(fingerprintsOnly)).toEqual(['fp-approved', 'fp-dishonoured', 'fp-plain']);
      expect(
        await store.parts.seen.seenEntriesSince(CLUB, 'paymentHistory', at(10), 1_000, { toAt: at(10) }),
      ).toEqual([]);
    });

    it("keeps an entry's memo and announced mark, with or without a group; refuses a memo over 256 bytes, writing nothing", async () => {
      // Prepare
      const entries: SeenAt[] = [
        { fingerprint: 'visit', at: at(1), memo: '100042' },
        { fingerprint: 'pay', at: at(2), group: 'g', value: 'Approved', memo: '["100042","77"]' },
        { fingerprint: 'max', at: at(3), memo: 'é'.repeat(128) },
        { fingerprint: 'published', at: at(5), group: 'g', value: 'Approved', memo: 'm', announced: true },
        { fingerprint: 'published-bare', at: at(6), announced: true },
      ];
      // Act
      await store.parts.seen.putSeenAt(CLUB, 'visits', entries, 10_000);
      // Assess
      await expect(
        store.parts.seen.putSeenAt(
          CLUB,
          'visits',
          [{ fingerprint: 'long', at: at(4), memo: 'é'.repeat(129) }],
          10_000,
        ),
      ).rejects.toBeInstanceOf(StoreError);
      expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(0), 1)).toEqual(entries);
      expect((await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1)).has('long')).toBe(false);
    });

    it('re-putting an entry with or without a group replaces it (last write wins)', async () => {
      await store.parts.seen.putSeenAt(
        CLUB,
        'visits',
        [{ fingerprint: 'a', at: at(0), group: 'g', value: 'v1' }],
        10_000,
      );
      await store.parts.seen.putSeenAt(
        CLUB,
        'visits',
        [{ fingerprint: 'a', at: at(0), group: 'g', value: 'v2' }],
        10_000,
      );
      expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(0), 1)).toEqual([
        { fingerprint: 'a', at: at(0), group: 'g', value: 'v2' },
      ]);
      await store.parts.seen.putSeenAt(CLUB, 'visits', [{ fingerprint: 'a', at: at(0) }], 10_000);
      expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(0), 1)).toEqual([
        { fingerprint: 'a', at: at(0) },
      ]);
    });

    it('rejects a group without a value (or the reverse), an empty group, and oversized ones, writing nothing', async () => {
      const good: SeenAt = { fingerprint: 'ok', at: at(0), group: 'g', value: '' };
      const bad: SeenAt[] = [
        { fingerprint: 'x', at: at(0), group: 'g' },
        { fingerprint: 'x', at: at(0), value: 'v' },
        { fingerprint: 'x', at: at(0), group: '', value: 'v' },
        { fingerprint: 'x', at: at(0), group: 'g'.repeat(65), value: 'v' },
        { fingerprint: 'x', at: at(0), group: 'g', value: 'é'.repeat(129) },
      ];
      for (const entry of bad) {
        await expect(store.parts.seen.putSeenAt(CLUB, 'visits', [good, entry], 10)).rejects.toBeInstanceOf(
          StoreError,
        );
      }
      expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(-1), 1)).toEqual([]);
      // The limits themselves are fine; an empty value too.
      await store.parts.seen.putSeenAt(
        CLUB,
        'visits',
        [good, { fingerprint: 'max', at: at(1), group: 'g'.repeat(64), value: 'é'.repeat(128) }],
        10,
      );
      expect(
        (await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(-1), 1)).map((e) => e.value),
      ).toEqual(['', 'é'.repeat(128)]);
    });
  });
}
