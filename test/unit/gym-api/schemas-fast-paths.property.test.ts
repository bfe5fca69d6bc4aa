import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRealDateTime, MemberPaymentHistorySchema } from '../../../lambdas/gym-api/schemas';

/** isRealDateTime as it was before it read digits without slices: the reference for every text. */
function referenceRealDateTime(value: string): boolean {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    Number(value.slice(11, 13)) <= 23 &&
    Number(value.slice(14, 16)) <= 59 &&
    Number(value.slice(17, 19)) <= 59
  );
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** Date-times with every field in and around its range, and characters Number() reads oddly. */
const dateTimes = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 61 }),
  )
  .map(
    ([y, mo, d, h, mi, s]) =>
      `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}`,
  );
const odd = fc.constantFrom(' ', '+', '-', '.', 'e', 'x', '0', '9', '\u0660', '');
const mangled = fc
  .tuple(dateTimes, fc.nat({ max: 18 }), odd, fc.nat({ max: 18 }), odd)
  .map(([v, i, a, j, b]) => `${v.slice(0, i)}${a}${v.slice(i + 1, j)}${b}${v.slice(j + 1)}`);

describe('isRealDateTime reads every text as it did with Number() and a Date', () => {
  it('date-times in and around their fields ranges, leap years, years 0-99', () => {
    for (const v of [
      '0000-02-29T00:00:00',
      '0004-02-29T00:00:00',
      '1900-02-29T00:00:00',
      '2000-02-29T00:00:00',
    ]) {
      expect(isRealDateTime(v), v).toBe(referenceRealDateTime(v));
    }
    fc.assert(
      fc.property(dateTimes, (v) => {
        expect(isRealDateTime(v)).toBe(referenceRealDateTime(v));
      }),
      {
        numRuns: 20_000,
      },
    );
  });

  it('texts with other characters where digits belong, cut short or arbitrary', () => {
    fc.assert(
      fc.property(mangled, (v) => {
        expect(isRealDateTime(v)).toBe(referenceRealDateTime(v));
      }),
      {
        numRuns: 20_000,
      },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (v) => {
        expect(isRealDateTime(v)).toBe(referenceRealDateTime(v));
      }),
    );
  });
});

describe('int64 ids written as strings', () => {
  const accepts = (id: string) => MemberPaymentHistorySchema.safeParse({ Id: id }).success;
  it('are accepted up to 19 digits within the int64 range, either sign', () => {
    expect(accepts('999999999999999999')).toBe(true);
    expect(accepts('-999999999999999999')).toBe(true);
    expect(accepts('9223372036854775807')).toBe(true);
    expect(accepts('9223372036854775808')).toBe(false);
    expect(accepts('-9223372036854775808')).toBe(true);
    expect(accepts('-9223372036854775809')).toBe(false);
    expect(accepts('0000000000000000001')).toBe(true);
    expect(accepts('12345678901234567890')).toBe(false);
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), (n) => {
        expect(accepts(String(n))).toBe(n >= -(2n ** 63n) && n <= 2n ** 63n - 1n);
      }),
      { numRuns: 5_000 },
    );
  });
});
