import { describe, expect, it } from 'vitest';
import { GymApiClient } from '../../../lambdas/gym-api/client';
import { BadRequestError } from '../../../lambdas/gym-api/errors';
import { OPERATIONS } from '../../../lambdas/gym-api/operations';
import {
  isValidDateTime,
  pageUrl,
  validateOffset,
  validatePageSize,
  validateQuery,
} from '../../../lambdas/gym-api/query';

describe('isValidDateTime', () => {
  it('accepts the seed pattern with and without fractions', () => {
    expect(isValidDateTime('2025-03-01T00:00:00')).toBe(true);
    expect(isValidDateTime('2024-02-29T23:59:59.9999999')).toBe(true);
  });

  it('rejects offsets, Z, missing seconds and impossible calendar values', () => {
    for (const bad of [
      '2025-03-01T00:00:00Z',
      '2025-03-01T00:00:00+10:00',
      '2025-03-01T00:00',
      '2025-03-01',
      '2025-13-01T00:00:00',
      '2025-02-29T00:00:00',
      '2025-04-31T00:00:00',
      '2025-03-01T24:00:00',
      '2025-03-01T10:60:00',
      '2025-03-00T00:00:00',
    ]) {
      expect(isValidDateTime(bad), bad).toBe(false);
    }
  });
});

describe('validateQuery', () => {
  it('returns the filters in a stable order', () => {
    expect(
      validateQuery(OPERATIONS.members, {
        status: 'Active',
        updatedate: '2025-03-01T00:00:00',
        fromdate: '2025-01-01T00:00:00',
      }),
    ).toEqual([
      ['fromdate', '2025-01-01T00:00:00'],
      ['updatedate', '2025-03-01T00:00:00'],
      ['status', 'Active'],
    ]);
  });

  it('ignores undefined values and accepts an empty or missing query', () => {
    expect(validateQuery(OPERATIONS.visits, { fromdate: undefined })).toEqual([]);
    expect(validateQuery(OPERATIONS.visits, undefined)).toEqual([]);
  });

  it('accepts every status of each operation that takes one', () => {
    for (const spec of Object.values(OPERATIONS)) {
      for (const status of 'statuses' in spec ? spec.statuses : []) {
        expect(validateQuery(spec, { status })).toEqual([['status', status]]);
      }
    }
  });

  it('refuses updatedate anywhere but members, and status where the operation has none', () => {
    for (const spec of Object.values(OPERATIONS)) {
      const takesUpdatedate = spec.name === 'members';
      const takesStatus = 'statuses' in spec;
      const withUpdate = () => validateQuery(spec, { updatedate: '2025-01-01T00:00:00' });
      const withStatus = () => validateQuery(spec, { status: 'Active' });
      if (takesUpdatedate) expect(withUpdate).not.toThrow();
      else expect(withUpdate).toThrow(/does not take the query parameter 'updatedate'/);
      if (!takesStatus) expect(withStatus).toThrow(/does not take the query parameter 'status'/);
    }
  });

  it('refuses a status of the wrong enumeration (a member status on prospects)', () => {
    expect(() => validateQuery(OPERATIONS.prospects, { status: 'Active' })).toThrow(BadRequestError);
    expect(() => validateQuery(OPERATIONS.members, { status: 'OnTrial' })).toThrow(/is not one of Active/);
  });

  it('refuses bad dates, non-strings, unknown names and paging inside the query', () => {
    const spec = OPERATIONS.paymentHistory;
    expect(() => validateQuery(spec, { fromdate: '2025-03-01T00:00:00Z' })).toThrow(
      /fromdate .* no offset or Z/,
    );
    expect(() => validateQuery(spec, { fromdate: 20250301 })).toThrow(/must be a string/);
    expect(() => validateQuery(spec, { fromDate: '2025-03-01T00:00:00' })).toThrow(/'fromDate'/);
    expect(() => validateQuery(spec, { limit: '10' })).toThrow(/pageSize\/startOffset/);
    expect(() => validateQuery(spec, 'fromdate=x')).toThrow(/must be an object/);
  });

  it('throws BadRequestError carrying the operation name, not retryable', () => {
    const err = (() => {
      try {
        validateQuery(OPERATIONS.debtCollection, { status: 'Active' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ operation: 'debtCollection', retryable: false });
  });
});

describe('paging arguments', () => {
  it('page size is 1..500', () => {
    expect(validatePageSize('visits', 1)).toBe(1);
    expect(validatePageSize('visits', 500)).toBe(500);
    for (const bad of [0, 501, 2.5, -1, Number.NaN, '10']) {
      expect(() => validatePageSize('visits', bad)).toThrow(BadRequestError);
    }
  });

  it('start offset is an int32 >= 0', () => {
    expect(validateOffset('visits', 0)).toBe(0);
    expect(() => validateOffset('visits', -1)).toThrow(BadRequestError);
    expect(() => validateOffset('visits', 2 ** 31)).toThrow(BadRequestError);
  });

  it('builds the page URL with encoded filters, offset and limit', () => {
    const url = new URL(
      pageUrl('http://h/v1', OPERATIONS.visits, [['fromdate', '2025-03-01T00:00:00']], 1000, 500),
    );
    expect(url.pathname).toBe('/v1/members/attendance/visits');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      fromdate: '2025-03-01T00:00:00',
      offset: '1000',
      limit: '500',
    });
  });
});

describe('QueryOf: compile-time filters (tsc --noEmit) match the run-time checks', () => {
  it('each call the types forbid is also refused at run time, before any request', async () => {
    let tokenRequests = 0;
    const client = new GymApiClient({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
      tokenProvider: {
        getToken: async () => {
          tokenRequests++;
          return 't';
        },
        invalidate: () => {},
      },
    });
    const forbidden = [
      // @ts-expect-error updatedate is only on members
      client.pages('visits', { updatedate: '2025-01-01T00:00:00' }),
      // @ts-expect-error status is not a filter of payment history
      client.pages('paymentHistory', { status: 'Active' }),
      // @ts-expect-error a member status is not a prospect status
      client.pages('prospects', { status: 'Active' }),
      // @ts-expect-error paging belongs in the options
      client.pages('disbursements', { offset: 10 }),
    ];
    for (const pages of forbidden) await expect(pages.next()).rejects.toBeInstanceOf(BadRequestError);
    expect(tokenRequests).toBe(0);
  });
});
