/**
 * GymApiClient's paging decisions against an injected fetch (no network): pages of 500 until a short
 * or empty page, the offset raised without a next link, a next link followed (overlap, the caller's
 * filters kept, another host refused), invalid items reported without failing the page, the query
 * checked before any request.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError, InvalidResponseError } from '../../../lambdas/gym-api/errors';
import { BASE, failure, harness, visits } from './client-harness';
import { json } from './fake-upstream';

describe('GymApiClient paging', () => {
  it('follows pages of 500 until a short page', async () => {
    const h = harness(visits(1234));
    const result = await h.client.fetchAll('visits');
    expect(result.items).toHaveLength(1234);
    expect(result.pageCount).toBe(3);
    expect(h.dataCalls().map((c) => c.url.searchParams.get('offset'))).toEqual(['0', '500', '1000']);
    expect(new Set(result.items.map((v) => v.MemberNumber)).size).toBe(1234);
  });

  it('stops on an empty page when the total is a multiple of the page size', async () => {
    const h = harness(visits(1000));
    const result = await h.client.fetchAll('visits');
    expect(result.pageCount).toBe(3);
    expect(result.items).toHaveLength(1000);
  });

  it('raises the offset by the page size when there is no next link', async () => {
    const h = harness((request) => {
      const offset = Number(request.url.searchParams.get('offset'));
      // Distinct records: an upstream that serves the same page again is stalled (stale-responses.test.ts).
      const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ MemberNumber: String(offset + i) }));
      return json({ data: offset < 30 ? rows(10) : rows(1) });
    });
    const result = await h.client.fetchAll('visits', {}, { pageSize: 10, startOffset: 0 });
    expect(h.dataCalls().map((c) => c.url.searchParams.get('offset'))).toEqual(['0', '10', '20', '30']);
    expect(h.dataCalls().every((c) => c.url.searchParams.get('limit') === '10')).toBe(true);
    expect(result.items).toHaveLength(31);
  });

  it('follows a next link that steps back (overlap) and starts at startOffset', async () => {
    const h = harness((request) => {
      const offset = Number(request.url.searchParams.get('offset'));
      const data =
        offset < 40 ? Array.from({ length: 10 }, (_, i) => ({ MemberNumber: String(offset + i) })) : [];
      return json({ next: `${BASE}/members/attendance/visits?offset=${offset + 8}&limit=10`, data });
    });
    await h.client.fetchAll('visits', {}, { pageSize: 10, startOffset: 20 });
    expect(h.dataCalls().map((c) => c.url.searchParams.get('offset'))).toEqual(['20', '28', '36', '44']);
  });

  it('keeps the caller filters when following next, whatever next carries', async () => {
    const h = harness((request) => {
      const offset = Number(request.url.searchParams.get('offset'));
      return json({
        next: `${BASE}/members?offset=${offset + 2}&limit=2&status=Archived`,
        data: offset === 0 ? [{}, {}] : [],
      });
    });
    await h.client.fetchAll('members', { status: 'PaymentIssue' }, { pageSize: 2 });
    expect(h.dataCalls().map((c) => c.url.searchParams.get('status'))).toEqual([
      'PaymentIssue',
      'PaymentIssue',
    ]);
  });

  it('refuses a next link to another host, without sending anything there', async () => {
    const h = harness(() =>
      json({ next: 'https://evil.example.test/v1/members/attendance/visits?offset=2', data: [{}, {}] }),
    );
    const err = await failure(h.client.fetchAll('visits', {}, { pageSize: 2 }));
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect(err).toMatchObject({ path: 'next', operation: 'visits' });
    expect(h.calls.every((c) => c.url.host === 'gym.example.test')).toBe(true);
  });

  it('reports invalid items without failing the page', async () => {
    const h = harness(() =>
      json({ data: [{ MemberNumber: 'M1' }, { VisitDateTime: '2025-03-01T06:00:00Z' }] }),
    );
    const result = await h.client.fetchAll('visits');
    expect(result.items).toEqual([{ MemberNumber: 'M1' }]);
    expect(result.invalid).toEqual([
      expect.objectContaining({
        index: 1,
        offset: 1,
        issues: expect.stringMatching(/^data\[1\]\.VisitDateTime: /),
      }),
    ]);
  });

  it('validates the query before any request, token included', async () => {
    const h = harness(visits(1));
    await expect(h.client.fetchAll('visits', { fromdate: '2025-03-01' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(h.client.fetchAll('visits', {}, { pageSize: 501 })).rejects.toBeInstanceOf(BadRequestError);
    expect(h.calls).toHaveLength(0);
  });
});
