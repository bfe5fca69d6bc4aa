/**
 * createEvent's fast path for occurredAt strings already in canonical UTC form must give exactly
 * what parsing and formatting gives, including the dates V8 rolls over and the invalid ones.
 */
import { describe, expect, it } from 'vitest';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { createEvent } from '../../../lambdas/events/envelope';

const occurredAtOf = (occurredAt: string | Date) => {
  try {
    return createEvent(
      DETAIL_TYPES.ClubDataStale,
      { clubId: 'c1', identity: ['x'], occurredAt, observedAt: new Date(0), subject: {} },
      { staleSource: 'visits', ageSeconds: 1 },
    ).detail.occurredAt;
  } catch {
    return 'invalid';
  }
};

const formatted = (s: string) => {
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? 'invalid' : d.toISOString();
};

describe('createEvent occurredAt', () => {
  it.each([
    '2026-03-02T10:11:12.345Z',
    '2026-02-28T23:59:59.999Z',
    '2026-02-29T00:00:00.000Z',
    '2026-02-30T00:00:00.000Z',
    '2026-04-31T12:00:00.000Z',
    '2026-01-01T24:00:00.000Z',
    '2026-13-01T00:00:00.000Z',
    '2026-00-10T00:00:00.000Z',
    '2026-01-00T00:00:00.000Z',
    '2026-01-01T23:60:00.000Z',
    '0000-01-01T00:00:00.000Z',
  ])('%s is what new Date(s).toISOString() gives', (s) => {
    expect(occurredAtOf(s)).toBe(formatted(s));
  });

  it('gives each Date its own ISO string, even when the same Date object is reused and changed', () => {
    const date = new Date(Date.UTC(2026, 2, 2));
    expect(occurredAtOf(date)).toBe('2026-03-02T00:00:00.000Z');
    date.setUTCHours(5);
    expect(occurredAtOf(date)).toBe('2026-03-02T05:00:00.000Z');
  });
});
