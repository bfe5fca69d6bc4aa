import { describe, expect, it } from 'vitest';
import { StoreError } from '../../../lambdas/state/store';
import { encodeQuarantinedRaw, storableCursor, toStorable } from '../../../lambdas/state/stored-values';

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
