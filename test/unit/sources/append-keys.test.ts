import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memo } from '../../../lambdas/sources/append-keys';

describe('memo', () => {
  const fits = (text: string) => memo(text).memo === text;

  it('keeps a text of up to 256 UTF-8 bytes, whatever its characters', () => {
    expect(fits('a'.repeat(256))).toBe(true);
    expect(fits('a'.repeat(257))).toBe(false);
    expect(fits('€'.repeat(85))).toBe(true); // 255 bytes
    expect(fits('€'.repeat(86))).toBe(false); // 258 bytes in 86 units
    expect(fits('😀'.repeat(64))).toBe(true); // 256 bytes in 128 units
    expect(fits('😀'.repeat(65))).toBe(false);
    expect(fits('\ud800'.repeat(85))).toBe(true); // a lone surrogate is 3 bytes (U+FFFD)
    expect(fits('\ud800'.repeat(86))).toBe(false);
    expect(memo('x'.repeat(300))).toEqual({});
  });

  it('agrees with counting the bytes, on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (text) => {
        expect(fits(text)).toBe(Buffer.byteLength(text, 'utf8') <= 256);
      }),
      { numRuns: 5_000 },
    );
  });
});
