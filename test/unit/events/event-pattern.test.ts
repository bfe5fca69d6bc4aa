import { describe, expect, it } from 'vitest';
import {
  assertValidEventPattern,
  EventPatternError,
  eventPatternMatcher,
  matchesEventPattern,
} from '../../../lambdas/events/event-pattern';
import { baseEvent, invalidPatterns, matchCases } from './event-pattern-corpus';

describe('matchesEventPattern: the corpus (same answers as EventBridge documents)', () => {
  it.each(matchCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(matchesEventPattern(c.pattern, c.event ?? baseEvent)).toBe(c.matches);
  });

  it('the corpus has both answers for every operator', () => {
    const ops = [
      'prefix',
      'suffix',
      'equals-ignore-case',
      'wildcard',
      'anything-but',
      'numeric',
      'exists',
      '$or',
    ];
    for (const op of ops) {
      const withOp = matchCases.filter((c) => JSON.stringify(c.pattern).includes(`"${op}"`));
      expect(new Set(withOp.map((c) => c.matches)), op).toEqual(new Set([true, false]));
    }
  });
});

describe('invalid patterns', () => {
  it.each(invalidPatterns.map((c) => [c.name, c] as const))('%s throws EventPatternError', (_name, c) => {
    expect(() => matchesEventPattern(c.pattern as Record<string, unknown>, baseEvent)).toThrow(
      EventPatternError,
    );
    expect(() => assertValidEventPattern(c.pattern as Record<string, unknown>)).toThrow(EventPatternError);
  });

  it('says where the problem is', () => {
    expect(() => matchesEventPattern({ detail: { amount: [{ numeric: ['>>', 1] }] } }, baseEvent)).toThrow(
      /invalid event pattern at detail\.amount\[0\]\.numeric\[0\]: unknown operator ">>"/,
    );
    expect(() => matchesEventPattern({ source: 'gym-bridge' }, baseEvent)).toThrow(
      /at source: must be a list of values or an object/,
    );
  });

  it('throws even when an earlier field already fails to match', () => {
    expect(() => matchesEventPattern({ source: ['nope'], detail: { x: [{ bogus: 1 }] } }, baseEvent)).toThrow(
      EventPatternError,
    );
  });

  it('a pattern given as JSON text that is not JSON', () => {
    expect(() => matchesEventPattern('{"source":', baseEvent)).toThrow(/not JSON/);
  });
});

describe('forms', () => {
  it('takes pattern and event as JSON text', () => {
    expect(matchesEventPattern('{"detail":{"reason":["dishonoured"]}}', JSON.stringify(baseEvent))).toBe(
      true,
    );
  });

  it('eventPatternMatcher filters a list', () => {
    const events = ['a', 'b', 'c'].map((source) => ({ ...baseEvent, source }));
    expect(events.filter(eventPatternMatcher({ source: ['a', 'c'] })).map((e) => e.source)).toEqual([
      'a',
      'c',
    ]);
  });

  it('a non-object event matches only patterns of absent fields', () => {
    expect(matchesEventPattern({ source: ['x'] }, null)).toBe(false);
    expect(matchesEventPattern({ source: [{ exists: false }] }, 42)).toBe(true);
  });

  it('wildcard escapes: \\* is a literal star', () => {
    const event = { detail: { s: 'a*b' } };
    expect(matchesEventPattern({ detail: { s: [{ wildcard: 'a\\*b' }] } }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { s: [{ wildcard: 'a\\*b' }] } }, { detail: { s: 'axb' } })).toBe(
      false,
    );
    expect(matchesEventPattern({ detail: { s: [{ wildcard: 'a.c' }] } }, { detail: { s: 'abc' } })).toBe(
      false,
    );
  });

  it('does not read inherited properties as fields', () => {
    expect(matchesEventPattern({ detail: { toString: [{ exists: true }] } }, baseEvent)).toBe(false);
  });
});
