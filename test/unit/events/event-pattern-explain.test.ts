/**
 * explainEventPattern: the same verdict as the matcher on every case of the corpus, and the first
 * failing field of the pattern, with what it wants and what the event has.
 */
import { describe, expect, it } from 'vitest';
import { explainEventPattern, matchesEventPattern } from '../../../lambdas/events/event-pattern';
import { baseEvent, matchCases } from './event-pattern-corpus';

describe('explainEventPattern', () => {
  it.each(matchCases)('agrees with the matcher: $name', ({ pattern, event, matches }) => {
    // Act
    const result = explainEventPattern(pattern, event ?? baseEvent);
    // Assess
    expect(result.matches).toBe(matches);
    expect(matchesEventPattern(pattern, event ?? baseEvent)).toBe(matches);
    if (!result.matches) expect(result.mismatch.path).not.toBe('');
  });

  it('names the first field that fails in the pattern, with the wanted values and the value found', () => {
    // Act
    const result = explainEventPattern(
      { source: ['gym-bridge'], detail: { clubId: ['club-1'], reason: ['declined', { prefix: 'x' }] } },
      baseEvent,
    );
    // Assess
    expect(result).toEqual({
      matches: false,
      mismatch: {
        path: 'detail.reason',
        expected: ['declined', { prefix: 'x' }],
        actual: 'dishonoured',
        reason: 'no value of the pattern matches the field',
      },
    });
  });

  it('tells a missing field, a field that should not exist and an $or with no alternative apart', () => {
    // Act
    const missing = explainEventPattern({ detail: { data: { NoSuchField: ['Active'] } } }, baseEvent);
    const present = explainEventPattern({ detail: { reason: [{ exists: false }] } }, baseEvent);
    const or = explainEventPattern(
      { detail: { $or: [{ reason: ['declined'] }, { amount: [{ numeric: ['>', 100] }] }] } },
      baseEvent,
    );
    // Assess
    expect(missing.matches === false && missing.mismatch).toMatchObject({
      path: 'detail.data.NoSuchField',
      actual: undefined,
      reason: 'the event has no such field',
    });
    expect(present.matches === false && present.mismatch).toMatchObject({
      path: 'detail.reason',
      actual: 'dishonoured',
      reason: 'the field is present',
    });
    expect(or.matches === false && or.mismatch).toMatchObject({ path: 'detail.reason' });
    expect(or.matches === false && or.mismatch.reason).toMatch(
      /^none of the 2 \$or alternatives matches; the first: /,
    );
  });
});
