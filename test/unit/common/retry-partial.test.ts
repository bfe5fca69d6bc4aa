import { describe, expect, it } from 'vitest';
import { PartialFailureError, resubmitFailedEntries } from '../../../lambdas/common/retry-partial';

function options(sleeps: number[], overrides: { maxStalledRounds?: number; maxRounds?: number } = {}) {
  return {
    operation: 'BatchWriteItem',
    maxStalledRounds: overrides.maxStalledRounds ?? 3,
    ...(overrides.maxRounds === undefined ? {} : { maxRounds: overrides.maxRounds }),
    baseDelayMs: 50,
    maxDelayMs: 400,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
}

describe('resubmitFailedEntries', () => {
  it('calls once and never waits when every entry succeeds', async () => {
    // Prepare
    const calls: number[][] = [];
    const sleeps: number[] = [];

    // Act
    await resubmitFailedEntries(
      [1, 2, 3],
      async (pending) => {
        calls.push([...pending]);
        return [];
      },
      options(sleeps),
    );

    // Assess
    expect(calls).toEqual([[1, 2, 3]]);
    expect(sleeps).toEqual([]);
  });

  it('resubmits only the failed entries, waiting a capped jittered back-off before each round', async () => {
    // Prepare: the first call fails 2 and 3, the second fails 3, the third succeeds
    const calls: number[][] = [];
    const sleeps: number[] = [];
    const failures = [[2, 3], [3], []];

    // Act
    await resubmitFailedEntries(
      [1, 2, 3],
      async (pending) => {
        calls.push([...pending]);
        return failures[calls.length - 1] ?? [];
      },
      options(sleeps),
    );

    // Assess
    expect(calls).toEqual([[1, 2, 3], [2, 3], [3]]);
    expect(sleeps).toHaveLength(2);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(Math.min(400, 50 * 2 ** i));
    });
  });

  it('gives up with a PartialFailureError after maxStalledRounds rounds without progress', async () => {
    // Prepare: nothing ever gets through
    const sleeps: number[] = [];
    let calls = 0;

    // Act
    const error = await resubmitFailedEntries(
      ['a', 'b'],
      async (pending) => {
        calls += 1;
        return pending;
      },
      options(sleeps, { maxStalledRounds: 4 }),
    ).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(PartialFailureError);
    expect(error).toMatchObject({
      name: 'PartialFailureError',
      operation: 'BatchWriteItem',
      remaining: ['a', 'b'],
      rounds: 4,
      stalledRounds: 4,
    });
    expect(calls).toBe(4);
    expect(sleeps).toHaveLength(3);
  });

  it('keeps going while each round makes progress, even past maxStalledRounds rounds', async () => {
    // Prepare: every call gets exactly one entry through
    let calls = 0;

    // Act
    await resubmitFailedEntries(
      Array.from({ length: 10 }, (_, i) => i),
      async (pending) => {
        calls += 1;
        return pending.slice(1);
      },
      options([], { maxStalledRounds: 2 }),
    );

    // Assess
    expect(calls).toBe(10);
  });

  it('stops after maxRounds calls in all, even while progressing, naming what is left', async () => {
    // Prepare
    let calls = 0;

    // Act
    const error = await resubmitFailedEntries(
      [1, 2, 3, 4],
      async (pending) => {
        calls += 1;
        return pending.slice(1);
      },
      options([], { maxStalledRounds: 10, maxRounds: 2 }),
    ).catch((e: unknown) => e);

    // Assess
    expect(calls).toBe(2);
    expect(error).toBeInstanceOf(PartialFailureError);
    expect((error as PartialFailureError<number>).remaining).toEqual([3, 4]);
  });

  it('lets an error thrown by the call pass through, unretried', async () => {
    // Prepare
    const boom = new Error('ValidationException');
    let calls = 0;

    // Act
    const error = await resubmitFailedEntries(
      [1],
      async () => {
        calls += 1;
        throw boom;
      },
      options([]),
    ).catch((e: unknown) => e);

    // Assess
    expect(error).toBe(boom);
    expect(calls).toBe(1);
  });

  it('resolves to the calls made and draws its jitter from the given source', async () => {
    // Prepare: two failed rounds, jitter just below 1
    const sleeps: number[] = [];
    const failures = [[1], [1], []];
    let calls = 0;

    // Act
    const rounds = await resubmitFailedEntries([1, 2], async () => failures[calls++] ?? [], {
      ...options(sleeps),
      maxStalledRounds: 5,
      random: () => 0.999,
    });

    // Assess: capped full jitter, floor(0.999 * 50) then floor(0.999 * 100)
    expect(rounds).toBe(3);
    expect(sleeps).toEqual([49, 99]);
  });
});
