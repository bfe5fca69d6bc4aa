import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { naiveMs } from '../../../lambdas/common/zoned-time';

/** naiveMs as it was before the plain form was read without the pattern: the reference. */
function referenceNaiveMs(local: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/.exec(local);
  if (!m) throw new Error('not a zone-less date-time');
  const frac = m[7] ? Number(m[7].slice(1, 4).padEnd(3, '0')) : 0;
  const year = Number(m[1]);
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + frac;
  if (year >= 100) return ms;
  const start = new Date(0);
  start.setUTCFullYear(year, 0, 1);
  return ms - Date.UTC(1900 + year, 0, 1) + start.getTime();
}

const outcome = (read: (s: string) => number, local: string) => {
  try {
    return read(local);
  } catch {
    return 'refused';
  }
};

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const locals = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.constantFrom('', '.5', '.123', '.9999999'),
  )
  .map(
    ([y, mo, d, h, mi, s, frac]) =>
      `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${frac}`,
  );
const mangled = fc
  .tuple(locals, fc.nat({ max: 20 }), fc.constantFrom(' ', '-', ':', 'T', 'x', '0', '/', '\u0661', ''))
  .map(([v, i, c]) => `${v.slice(0, i)}${c}${v.slice(i + 1)}`);

describe('naiveMs reads every text as the pattern did', () => {
  it('every field value, years 0-99 included, with and without a fraction', () => {
    fc.assert(
      fc.property(locals, (local) => {
        expect(outcome(naiveMs, local)).toBe(outcome(referenceNaiveMs, local));
      }),
      { numRuns: 20_000 },
    );
  });

  it('texts with a character out of place, and arbitrary ones', () => {
    fc.assert(
      fc.property(fc.oneof(mangled, fc.string({ maxLength: 22 })), (local) => {
        expect(outcome(naiveMs, local)).toBe(outcome(referenceNaiveMs, local));
      }),
      { numRuns: 20_000 },
    );
  });
});
