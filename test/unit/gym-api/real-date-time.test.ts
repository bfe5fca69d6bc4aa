import { describe, expect, it } from 'vitest';
import { dateTime, isRealDateTime, MemberVisitSchema } from '../../../lambdas/gym-api/schemas';

describe('date-times that match the pattern but do not exist', () => {
  it.each([
    ['2026-02-28T23:59:59', true],
    ['2028-02-29T00:00:00', true],
    ['2026-12-31T12:00:00.123', true],
    ['2026-02-29T00:00:00', false],
    ['2026-02-30T10:00:00', false],
    ['2026-13-01T10:00:00', false],
    ['2026-00-10T10:00:00', false],
    ['2026-04-31T10:00:00', false],
    ['2026-05-01T24:00:00', false],
    ['2026-05-01T10:60:00', false],
    ['2026-05-01T10:00:60', false],
  ])('%s -> %s', (value, real) => {
    expect(isRealDateTime(value)).toBe(real);
    expect(dateTime.safeParse(value).success).toBe(real);
  });

  it('rejects a record with an impossible visit time, naming the field', () => {
    const result = MemberVisitSchema.safeParse({ MemberNumber: '1', VisitDateTime: '2026-02-30T10:00:00' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['VisitDateTime']);
  });
});
