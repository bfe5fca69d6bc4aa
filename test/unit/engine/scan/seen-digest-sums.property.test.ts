import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../../../lambdas/common/time-units';
import { fingerprint } from '../../../../lambdas/engine/scan/fingerprint';
import { HourSums } from '../../../../lambdas/engine/scan/seen-digest';

/** A key's first 64 bits as the digest has always read them (a Buffer of its first 11 characters). */
const referenceBits = (key: string) => Buffer.from(key.slice(0, 11), 'base64url').readBigUInt64BE(0);

const base64url = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
/** Keys as fingerprints are, and keys with characters a Buffer reads leniently (+ / = and others). */
const keys = fc.oneof(
  fc.string({ minLength: 27, maxLength: 27, unit: base64url }),
  fc.string({
    minLength: 14,
    maxLength: 27,
    unit: fc.oneof(base64url, fc.constantFrom('+', '/', '=', ' ', '.')),
  }),
);

describe('HourSums', () => {
  it("sums each hour's keys to the XOR of their first 64 bits, as read through a Buffer", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, fc.integer({ min: 0, max: 3 })), { maxLength: 40 }), (entries) => {
        const sums = new HourSums();
        const expected = new Map<number, { count: number; xor: bigint }>();
        for (const [key, hour] of entries) {
          let bits: bigint;
          try {
            bits = referenceBits(key);
          } catch {
            continue; // under 8 bytes once read: refused by the Buffer reading too
          }
          const before = sums.size;
          sums.add(key, hour * HOUR_MS);
          if (sums.size === before) continue;
          const e = expected.get(hour) ?? { count: 0, xor: 0n };
          expected.set(hour, { count: e.count + 1, xor: e.xor ^ bits });
        }
        for (let hour = 0; hour < 4; hour++) {
          expect(sums.sum(hour, 1)).toEqual(expected.get(hour) ?? { count: 0, xor: 0n });
        }
        const all = [...expected.values()].reduce(
          (a, e) => ({ count: a.count + e.count, xor: a.xor ^ e.xor }),
          {
            count: 0,
            xor: 0n,
          },
        );
        expect(sums.sum(0, 4)).toEqual(all);
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads real fingerprints the same way', () => {
    const sums = new HourSums();
    let xor = 0n;
    for (let i = 0; i < 1000; i++) {
      const key = fingerprint(`R|${i}|Approved`);
      sums.add(key, '2026-03-02T10:00:00.000Z');
      xor ^= referenceBits(key);
    }
    expect(sums.sum(Math.floor(Date.parse('2026-03-02T10:00:00.000Z') / HOUR_MS), 1)).toEqual({
      count: 1000,
      xor,
    });
  });
});
