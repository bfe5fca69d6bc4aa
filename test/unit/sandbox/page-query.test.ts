import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../lambdas/gym-api/operations';
import { InvalidQueryError, operationAt, parsePageQuery } from '../../../sandbox/page-query';

const parse = (op: keyof typeof OPERATIONS, query: string) =>
  parsePageQuery(OPERATIONS[op], new URLSearchParams(query));

describe('parsePageQuery', () => {
  it('applies defaults: offset 0, limit 500', () => {
    expect(parse('visits', '')).toEqual({ offset: 0, limit: 500 });
  });

  it('reads every parameter an operation takes', () => {
    expect(
      parse(
        'members',
        'fromdate=2025-01-01T00:00:00&updatedate=2025-01-02T03:04:05.5&status=Active&offset=3&limit=0',
      ),
    ).toEqual({
      fromKey: Date.UTC(2025, 0, 1),
      updatedKey: Date.UTC(2025, 0, 2, 3, 4, 5, 500),
      status: 'Active',
      offset: 3,
      limit: 0,
    });
  });

  it.each([
    ['visits', 'limit=501', /limit/],
    ['visits', 'limit=-1', /limit/],
    ['visits', 'limit=1.5', /limit/],
    ['visits', 'limit=', /limit/],
    ['visits', 'limit=ten', /limit/],
    ['visits', 'offset=-1', /offset/],
    ['visits', 'offset=2147483648', /offset/],
    ['visits', 'offset=1e3', /offset/],
    ['visits', 'fromdate=2025-01-01', /fromdate/],
    ['visits', 'fromdate=2025-01-01T00:00:00Z', /fromdate/],
    ['visits', 'fromdate=2025-02-30T00:00:00', /fromdate/],
    ['members', 'updatedate=yesterday', /updatedate/],
    ['visits', 'updatedate=2025-01-01T00:00:00', /Unknown query parameter 'updatedate'/],
    ['paymentHistory', 'status=Active', /Unknown query parameter 'status'/],
    ['members', 'status=Enquiry', /status/],
    ['prospects', 'status=Active', /status/],
    ['members', 'status=active', /status/],
    ['members', 'fromDate=2025-01-01T00:00:00', /Unknown query parameter 'fromDate'/],
    ['members', 'limit=1&limit=2', /more than once/],
  ] as const)('%s ?%s is a bad request', (op, query, message) => {
    expect(() => parse(op, query)).toThrow(InvalidQueryError);
    expect(() => parse(op, query)).toThrow(message);
  });

  it('maps paths to operations', () => {
    expect(operationAt('/members/attendance/classes')).toBe('classAttendance');
    expect(operationAt('/members/')).toBeUndefined();
  });
});
