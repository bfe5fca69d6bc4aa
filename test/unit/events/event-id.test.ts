import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EVENT_ID_PATTERN, EventIdError, makeEventId } from '../../../lambdas/events/event-id';

describe('makeEventId', () => {
  it('is 32 lowercase hex characters', () => {
    expect(makeEventId('club-1', 'members', 'M1', 'PaymentIssue')).toMatch(EVENT_ID_PATTERN);
  });

  it('is deterministic: the same parts give the same id', () => {
    const parts = ['club-1', 'paymentHistory', '9007199254740993', 'Dishonoured - Account Closed'];
    expect(makeEventId(...parts)).toBe(makeEventId(...[...parts]));
  });

  it('is the first 128 bits of SHA-256 over the JSON-encoded parts', () => {
    const expected = createHash('sha256').update('["a","b"]').digest('hex').slice(0, 32);
    expect(makeEventId('a', 'b')).toBe(expected);
  });

  it('changes when any part changes (club, source, identity, change)', () => {
    const base = ['club-1', 'members', 'M1', 'PaymentIssue'];
    const ids = new Set([makeEventId(...base)]);
    base.forEach((_, i) => {
      const changed = [...base];
      changed[i] = `${changed[i]}x`;
      ids.add(makeEventId(...changed));
    });
    expect(ids.size).toBe(base.length + 1);
  });

  it.each([
    [
      ['a|b', 'c'],
      ['a', 'b|c'],
    ],
    [
      ['ab', ''],
      ['a', 'b'],
    ],
    [['a', 'b'], ['a,b']],
    [['a","b'], ['a', 'b']],
    [
      ['a\\', 'b'],
      ['a', '\\b'],
    ],
    [['x'], ['x', '']],
  ])('does not confuse part boundaries: %j vs %j', (left, right) => {
    expect(makeEventId(...left)).not.toBe(makeEventId(...right));
  });

  it('depends on the order of the parts', () => {
    expect(makeEventId('a', 'b')).not.toBe(makeEventId('b', 'a'));
  });

  it('needs at least one string part', () => {
    expect(() => makeEventId()).toThrow(EventIdError);
    expect(() => makeEventId('a', 1 as unknown as string)).toThrow(EventIdError);
  });
});
