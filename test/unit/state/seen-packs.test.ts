import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isPackSk,
  PACK_BYTES,
  packSeenAt,
  seenAtQueryEnd,
  unpackSeenAt,
} from '../../../lambdas/state/seen-packs';
import type { SeenAt } from '../../../lambdas/state/store';
import { StoreError } from '../../../lambdas/state/store';

const PK = 'CLUB#c1#SEENT#paymentHistory';
const T0 = Date.UTC(2026, 10, 22, 9);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const keyOf = (e: { at: string; fingerprint: string }) => `${e.at}#${e.fingerprint}`;

/** Entries over four hours, a few fingerprints (so some repeat), with and without group, value, memo, announced mark. */
const entryArb: fc.Arbitrary<SeenAt> = fc
  .record({
    ms: fc.integer({ min: 0, max: 4 * 3_600_000 - 1 }),
    fingerprint: fc.constantFrom('a', 'b', 'c#d', 'é'),
    tag: fc.option(fc.record({ group: fc.constantFrom('g1', 'g2'), value: fc.string({ maxLength: 8 }) }), {
      nil: undefined,
    }),
    memo: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
    announced: fc.boolean(),
  })
  .map(({ ms, fingerprint, tag, memo, announced }) => ({
    fingerprint,
    at: at(ms),
    ...(tag ?? {}),
    ...(memo === undefined ? {} : { memo }),
    ...(announced ? { announced: true as const } : {}),
  }));

const unpackAll = (packs: ReturnType<typeof packSeenAt>) => packs.flatMap((p) => unpackSeenAt(p.sk, p.p));

describe('seen packs', () => {
  it('give back exactly the entries put, the last of a repeated key winning, one hour a pack', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 60 }), (entries) => {
        const packs = packSeenAt(PK, entries);
        const expected = new Map(entries.map((e) => [keyOf(e), e]));

        const got = unpackAll(packs);

        expect(got.map(keyOf)).toEqual([...expected.keys()].sort());
        for (const entry of got) expect(entry).toEqual(expected.get(keyOf(entry)));
        for (const pack of packs) {
          expect(isPackSk(pack.sk)).toBe(true);
          const hours = new Set(unpackSeenAt(pack.sk, pack.p).map((e) => e.at.slice(0, 13)));
          expect([...hours]).toEqual([pack.sk.slice(0, 13)]);
        }
      }),
    );
  });

  it('are all found by a key range from fromAt to the end of toAt hour', () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: -3_600_000, max: 5 * 3_600_000 }),
        fc.integer({ min: 1, max: 3 * 3_600_000 }),
        (entries, from, span) => {
          const [fromAt, toAt] = [at(from), at(from + span)];
          const end = seenAtQueryEnd(toAt);
          const inRange = (e: { at: string }) => e.at >= fromAt && e.at < toAt;

          const read = packSeenAt(PK, entries).filter((p) => p.sk >= fromAt && p.sk <= end);

          const found = new Set(unpackAll(read).filter(inRange).map(keyOf));
          expect(found).toEqual(new Set(entries.filter(inRange).map(keyOf)));
        },
      ),
    );
  });

  it('cut an hour of many entries at PACK_BYTES, and the same entries in any order give the same keys', () => {
    // Prepare: 2,000 payments of one hour with a group, a value and a memo
    const entries = Array.from({ length: 2_000 }, (_, i) => ({
      fingerprint: `fp-${String(i).padStart(5, '0')}`,
      at: at(i * 1_000),
      group: `g-${i % 50}`,
      value: 'Approved',
      memo: JSON.stringify([`member-${i}`, `payment-${i}`, 'Dues']),
    }));

    // Act
    const packs = packSeenAt(PK, entries);
    const again = packSeenAt(PK, [...entries].reverse());

    // Assess
    expect(packs.length).toBeGreaterThan(2);
    for (const pack of packs) expect(Buffer.byteLength(pack.p)).toBeLessThanOrEqual(PACK_BYTES + 2);
    expect(unpackAll(packs)).toHaveLength(2_000);
    expect(again.map((p) => p.sk)).toEqual(packs.map((p) => p.sk));
  });

  it('check every entry as an entry item would be checked', () => {
    expect(() => packSeenAt(PK, [{ fingerprint: 'x', at: '2026-11-22T10:00:00Z' }])).toThrow(StoreError);
    expect(() => packSeenAt(PK, [{ fingerprint: '', at: at(0) }])).toThrow(StoreError);
    expect(() => packSeenAt(PK, [{ fingerprint: 'x', at: at(0), group: 'g' }])).toThrow(StoreError);
    expect(() => packSeenAt(PK, [{ fingerprint: 'x', at: at(0), memo: 'm'.repeat(300) }])).toThrow(
      StoreError,
    );
  });

  it('refuse a stored pack they cannot read, naming it', () => {
    const sk = `${at(0)}~h`;
    expect(() => unpackSeenAt(sk, '[[0,')).toThrow(/seen pack .*~h: its entries are not JSON/);
    expect(() => unpackSeenAt(sk, undefined)).toThrow(/not a list/);
    expect(() => unpackSeenAt(sk, '{"a":1}')).toThrow(/not a list/);
    expect(() => unpackSeenAt(sk, '[["0","fp"]]')).toThrow(/\[offsetMs, fingerprint/);
    expect(() => unpackSeenAt(sk, '[[0.5,"fp"]]')).toThrow(/wrong type/);
    expect(() => unpackSeenAt(sk, '[[0,"fp",1,"v"]]')).toThrow(/wrong type/);
    // Out of the hour (1e20 ms would not even make a date): a StoreError naming the pack.
    for (const offset of [-1, 3_600_000, 1e20]) {
      expect(() => unpackSeenAt(sk, `[[${offset},"fp"]]`)).toThrow(StoreError);
      expect(() => unpackSeenAt(sk, `[[${offset},"fp"]]`)).toThrow(
        /seen pack .*~h: an entry's offset .* outside/,
      );
    }
    expect(unpackSeenAt(sk, '[[3599999,"fp"]]')[0]?.at).toBe(at(3_599_999));
  });

  it('end a bounded Query at toAt when it starts an hour, else at the end of its hour', () => {
    expect(seenAtQueryEnd('2026-11-22T10:00:00.000Z')).toBe('2026-11-22T10:00:00.000Z');
    expect(seenAtQueryEnd('2026-11-22T10:00:00.001Z')).toBe('2026-11-22T11:00:00.000Z');
    expect(seenAtQueryEnd('2026-12-31T23:59:59.999Z')).toBe('2027-01-01T00:00:00.000Z');
  });
});
