import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../../lambdas/common/backoff';
import { chunk, mapWithConcurrency } from '../../../lambdas/common/concurrency';

describe('batching helpers', () => {
  it('chunks into pieces of at most the given size, in order', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 25)).toEqual([]);
  });

  it('keeps results in input order whatever order the work finishes in', async () => {
    // Act
    const out = await mapWithConcurrency([30, 10, 20, 0], 3, async (ms, i) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return i;
    });

    // Assess
    expect(out).toEqual([0, 1, 2, 3]);
  });

  it('stops starting new work after a failure and rejects with it', async () => {
    // Prepare
    const started: number[] = [];

    // Act
    const result = mapWithConcurrency([0, 1, 2, 3, 4, 5], 2, async (i) => {
      started.push(i);
      if (i === 1) throw new Error('boom');
      await new Promise((resolve) => setTimeout(resolve, 1));
      return i;
    });

    // Assess
    await expect(result).rejects.toThrow('boom');
    expect(started.length).toBeLessThan(6);
  });

  it('draws backoff delays from [0, min(cap, base * 2^attempt)]', () => {
    // backoffDelayMs counts retries from 1: retry attempt + 1 waits up to base * 2^attempt.
    const policy = { baseDelayMs: 50, maxDelayMs: 1000 };
    expect(backoffDelayMs(3 + 1, policy, () => 0.999999)).toBe(399);
    expect(backoffDelayMs(10 + 1, policy, () => 0.999999)).toBe(999);
    expect(backoffDelayMs(2 + 1, policy, () => 0)).toBe(0);
  });
});
