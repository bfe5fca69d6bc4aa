/**
 * Responses that do not answer the request the client sent: a page that repeats the one before
 * (offset ignored), and an href naming another offset, limit or filter (a stale cache), told from
 * one that only writes the request another way. Injected fetch, no network.
 */
import { describe, expect, it } from 'vitest';
import { PagingStalledError, StaleResponseError } from '../../../lambdas/gym-api/errors';
import { json } from './fake-upstream';
import { harness, rejection } from './hostile-harness';

describe('paging that does not move', () => {
  it('stops when a page repeats the one before (offset ignored), on the second request', async () => {
    const page = Array.from({ length: 10 }, (_, i) => ({
      MemberNumber: `M${i}`,
      VisitDateTime: '2025-03-01T06:00:00',
    }));
    const h = harness(() => json({ data: page }));
    const err = await rejection(h.client.fetchAll('visits', {}, { pageSize: 10 }));
    expect(err).toBeInstanceOf(PagingStalledError);
    expect((err as Error).message).toMatch(/repeats the page at offset 0/);
    expect(h.dataCalls()).toHaveLength(2);
  });
});

describe('a response that answers another request', () => {
  it('is not used when its href names another offset, limit or filter (a stale cache), and is when it agrees', async () => {
    // Prepare: the first request is answered right; the second with the first's body, href included
    let first: unknown;
    let calls = 0;
    const h = harness((request) => {
      const body = {
        href: request.url.href,
        data: Array.from({ length: 10 }, (_, i) => ({
          MemberNumber: `M${calls}-${i}`,
          VisitDateTime: '2025-03-01T06:00:00',
        })),
      };
      first ??= body;
      return json(calls++ === 1 ? first : body);
    });
    // Act
    const err = await rejection(
      h.client.fetchAll('visits', { fromdate: '2025-03-01T00:00:00' }, { pageSize: 10 }),
    );
    // Assess
    expect(err).toBeInstanceOf(StaleResponseError);
    expect((err as Error).message).toMatch(
      /answers another request \(its href has offset=0, the request offset=10\)/,
    );
  });

  it('tolerates an href that leaves parameters out or writes a date another way', async () => {
    const h = harness((request) => {
      const href = new URL(request.url.href);
      href.searchParams.delete('limit');
      href.searchParams.set('fromdate', '2025-03-01T00:00:00.000');
      return json({ href: href.href, data: [{ MemberNumber: 'M1', VisitDateTime: '2025-03-01T06:00:00' }] });
    });
    const result = await h.client.fetchAll('visits', { fromdate: '2025-03-01T00:00:00' });
    expect(result.items).toHaveLength(1);
  });
});
