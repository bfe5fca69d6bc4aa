import { describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64, quoteLongIntegers } from '../../../lambdas/gym-api/json';

describe('parseJsonPreservingInt64', () => {
  it('keeps an int64 above 2^53 exact, as a decimal string', () => {
    // Prepare: JSON.parse alone rounds this value
    const text = '{"Id": 9007199254740993}';
    expect((JSON.parse(text) as { Id: number }).Id).toBe(9007199254740992);

    // Act
    const parsed = parseJsonPreservingInt64(text) as { Id: unknown };

    // Assess
    expect(parsed.Id).toBe('9007199254740993');
  });

  it('keeps the largest and smallest int64 exact, in arrays and nested objects', () => {
    const parsed = parseJsonPreservingInt64(
      '{"a":[9223372036854775807,-9223372036854775808],"b":{"c":1234567890123456789}}',
    ) as { a: unknown[]; b: { c: unknown } };
    expect(parsed.a).toEqual(['9223372036854775807', '-9223372036854775808']);
    expect(parsed.b.c).toBe('1234567890123456789');
  });

  it('leaves digits inside strings untouched, including strings with escaped quotes', () => {
    const text = '{"s":"9007199254740993","t":"say \\"12345678901234567890\\" twice","n":12345678901234567}';
    const parsed = parseJsonPreservingInt64(text) as Record<string, unknown>;
    expect(parsed.s).toBe('9007199254740993');
    expect(parsed.t).toBe('say "12345678901234567890" twice');
    expect(parsed.n).toBe('12345678901234567');
  });

  it('leaves decimals and exponents as numbers', () => {
    const parsed = parseJsonPreservingInt64(
      '{"d":1234567890123456.5,"e":12345678901234567e2,"f":1.5e-17,"g":-0.25}',
    ) as Record<string, unknown>;
    expect(parsed.d).toBe(1234567890123456.5);
    expect(parsed.e).toBe(Number('12345678901234567e2'));
    expect(parsed.f).toBe(1.5e-17);
    expect(parsed.g).toBe(-0.25);
  });

  it('leaves short integers as numbers', () => {
    const parsed = parseJsonPreservingInt64('{"small":42,"fifteen":123456789012345,"neg":-7}') as Record<
      string,
      unknown
    >;
    expect(parsed).toEqual({ small: 42, fifteen: 123456789012345, neg: -7 });
  });

  it('returns the text unchanged when nothing needs quoting', () => {
    const text = '{"a":"12345678901234567890","b":1}';
    expect(quoteLongIntegers(text)).toBe(text);
  });

  it('still rejects text that is not JSON', () => {
    expect(() => parseJsonPreservingInt64('<html>9007199254740993</html>')).toThrow(SyntaxError);
    expect(() => parseJsonPreservingInt64('{"data":[1,2')).toThrow(SyntaxError);
  });
});
