import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteLongIntegers } from '../../../lambdas/gym-api/json';

/**
 * The character-at-a-time rewrite quoteLongIntegers was before its string bodies were skipped with
 * indexOf: the reference the faster one must agree with on every text, JSON or not (a text that is
 * not JSON must fail JSON.parse with the same message as before).
 */
function referenceRewrite(text: string): string {
  const isDigit = (c: number) => c >= 48 && c <= 57;
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92) i += 2;
        else if (d === 34) {
          i++;
          break;
        } else i++;
      }
      continue;
    }
    if (c === 45 || isDigit(c)) {
      const start = i;
      if (c === 45) i++;
      const digitsStart = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      const digits = i - digitsStart;
      const next = i < n ? text.charCodeAt(i) : 0;
      if (next !== 46 && next !== 101 && next !== 69 && digits >= 16) {
        out += `${text.slice(last, start)}"${text.slice(start, i)}"`;
        last = i;
      } else {
        while (i < n) {
          const d = text.charCodeAt(i);
          if (isDigit(d) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) i++;
          else break;
        }
      }
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Texts made of the pieces the rewrite reacts to: quotes, backslashes, signs, digit runs, JSON. */
const piece = fc.oneof(
  fc.constantFrom('"', '\\', '\\"', '\\\\', '-', '.', 'e', 'E', '+', ',', ':', '{', '}', '[', ']', ' ', 'x'),
  fc.stringMatching(/^\d{1,20}$/),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
  fc.json(),
);
const texts = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('quoteLongIntegers', () => {
  it('rewrites every text exactly as the character-at-a-time scan did', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(quoteLongIntegers(text)).toBe(referenceRewrite(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees on JSON documents holding long integers, strings with escapes and decimals', () => {
    const values = fc.jsonValue().map((v) => JSON.stringify(v));
    const withLong = fc
      .tuple(values, fc.bigInt({ min: 10n ** 15n, max: 2n ** 63n - 1n }), fc.string())
      .map(([v, id, s]) => `{"a":${v},"Id":${id},"s":${JSON.stringify(s)},"b":[${id}.5,-${id},${id}e2]}`);
    fc.assert(
      fc.property(withLong, (text) => {
        expect(quoteLongIntegers(text)).toBe(referenceRewrite(text));
      }),
      { numRuns: 5_000 },
    );
  });
});
