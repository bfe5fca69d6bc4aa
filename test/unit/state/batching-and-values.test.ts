import { describe, expect, it } from 'vitest';
import { backoffDelayMs, chunk, mapWithConcurrency } from '../../../lambdas/state/batching';
import { StoreError } from '../../../lambdas/state/store';
import { encodeQuarantinedRaw, storableCursor, toStorable } from '../../../lambdas/state/stored-values';

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
    expect(backoffDelayMs(3, 50, 1000, () => 0.999999)).toBe(399);
    expect(backoffDelayMs(10, 50, 1000, () => 0.999999)).toBe(999);
    expect(backoffDelayMs(2, 50, 1000, () => 0)).toBe(0);
  });
});

describe('stored values', () => {
  it('names the path of a value that cannot be stored', () => {
    expect(() => toStorable({ a: [{ when: new Date(0) }] }, 'fields')).toThrow(
      /fields\.a\[0\]\.when: only plain/,
    );
    expect(() => toStorable({ n: Number.POSITIVE_INFINITY }, 'fields')).toThrow(StoreError);
    expect(() => toStorable({ f: () => 1 }, 'fields')).toThrow(/a function cannot be stored/);
  });

  it('rejects a cursor with a negative or fractional version', () => {
    const cursor = {
      clubId: 'c',
      source: 'visits' as const,
      baselineDone: false,
      health: { consecutiveFailures: 0 },
    };
    expect(() => storableCursor({ ...cursor, version: -1 }, 0)).toThrow(StoreError);
    expect(() => storableCursor({ ...cursor, version: 1.5 }, 2.5)).toThrow(StoreError);
  });

  it('encodes any quarantined raw value without throwing', () => {
    // Prepare
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;

    // Act / Assess
    expect(encodeQuarantinedRaw({ id: 12345678901234567890n })).toBe('{"id":"12345678901234567890"}');
    expect(JSON.parse(encodeQuarantinedRaw(circular) as string)).toMatchObject({
      unserializable: true,
      type: 'object',
    });
    expect(encodeQuarantinedRaw(undefined)).toBeUndefined();
  });
});
