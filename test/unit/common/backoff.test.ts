import { describe, expect, it } from 'vitest';
import { backoffCapMs, backoffDelayMs, parseRetryAfterMs } from '../../../lambdas/common/backoff';

const policy = { baseDelayMs: 200, maxDelayMs: 5000 };

describe('backoffCapMs', () => {
  it('doubles from the base and stops at the maximum', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((retry) => backoffCapMs(retry, policy))).toEqual([
      200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
  });

  it('stays at the maximum for huge retry numbers (no overflow to NaN)', () => {
    expect(backoffCapMs(5000, policy)).toBe(5000);
  });
});

describe('backoffDelayMs (full jitter)', () => {
  it('spans [0, cap): random 0 gives 0, random just below 1 gives just below the cap', () => {
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy, () => 0.999999)).toBe(799);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(400);
  });

  it('never exceeds the cap whatever random returns', () => {
    for (let retry = 1; retry <= 12; retry++) {
      for (const r of [0, 0.1, 0.5, 0.9, 0.9999, 1, 1.5, -1]) {
        const wait = backoffDelayMs(retry, policy, () => r);
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThanOrEqual(backoffCapMs(retry, policy));
      }
    }
  });

  it('with Math.random, samples spread over the whole window', () => {
    const samples = Array.from({ length: 2000 }, () => backoffDelayMs(4, policy));
    expect(Math.min(...samples)).toBeLessThan(160);
    expect(Math.max(...samples)).toBeGreaterThan(1440);
    expect(Math.max(...samples)).toBeLessThan(1600);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-03-01T10:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfterMs('Sat, 01 Mar 2025 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Sat, 01 Mar 2025 09:00:00 GMT', now)).toBe(0);
  });

  it('returns undefined for absent or unreadable values', () => {
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
  });
});
