import { describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { stringifyWithInt64 } from '../../../lambdas/sandbox/json-output';

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
