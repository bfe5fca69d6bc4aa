import { describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { RawJson, stringifyWithInt64 } from '../../../sandbox/json-output';

describe('stringifyWithInt64', () => {
  it('writes bigints as bare integer literals, exactly', () => {
    const text = stringifyWithInt64({ Id: 9007199254740993n, Neg: -9007199254740995n, n: 1.5, s: '12' });
    expect(text).toBe('{"Id":9007199254740993,"Neg":-9007199254740995,"n":1.5,"s":"12"}');
    expect(parseJsonPreservingInt64(text)).toEqual({
      Id: '9007199254740993',
      Neg: '-9007199254740995',
      n: 1.5,
      s: '12',
    });
  });

  it('leaves strings that merely contain digits alone', () => {
    expect(stringifyWithInt64({ a: '9007199254740993' })).toBe('{"a":"9007199254740993"}');
  });
});

describe('stringifyWithInt64 with RawJson (poison mode)', () => {
  it('splices raw JSON texts in as written, next to bigints', () => {
    const deep = new RawJson(`${'['.repeat(6000)}${']'.repeat(6000)}`);
    const text = stringifyWithInt64({
      Id: new RawJson('9007199254740993.0'),
      Big: new RawJson('1e400'),
      Zero: new RawJson('-0'),
      Other: 9007199254740995n,
      Deep: deep,
      s: 'plain',
    });
    expect(
      text.startsWith('{"Id":9007199254740993.0,"Big":1e400,"Zero":-0,"Other":9007199254740995,"Deep":[[['),
    ).toBe(true);
    expect(text.endsWith(']]],"s":"plain"}')).toBe(true);
    const parsed = JSON.parse(text) as { Big: number; Zero: number };
    expect(parsed.Big).toBe(Number.POSITIVE_INFINITY);
    expect(Object.is(parsed.Zero, -0)).toBe(true);
  });

  it('reuses one RawJson in many places without rebuilding it', () => {
    const big = new RawJson(JSON.stringify('x'.repeat(1000)));
    const text = stringifyWithInt64([{ a: big }, { a: big }]);
    expect(text).toBe(`[{"a":${big.text}},{"a":${big.text}}]`);
  });
});
