/**
 * GymApiClient against an injected fetch (no network): retry policy, re-auth, quota back-off,
 * deadlines, paging decisions and the onRequest hook. The same behaviour over a real socket against
 * the sandbox is in test/integration/gym-api.
 */
import { describe, expect, it } from 'vitest';
import { GymApiClient } from '../../../lambdas/gym-api/client';
import type { GymApiClientOptions } from '../../../lambdas/gym-api/client-options';
import {
  AuthError,
  BadRequestError,
  DeadlineExceededError,
  InvalidResponseError,
  QuotaExceededError,
  RequestAbortedError,
  UnavailableError,
} from '../../../lambdas/gym-api/errors';
import type { RequestEvent } from '../../../lambdas/gym-api/request-event';
import { TokenProvider } from '../../../lambdas/gym-api/token-provider';
import {
  FakeClock,
  type Handler,
  json,
  type RecordedRequest,
  scriptedFetch,
  tokenResponse,
} from './fake-upstream';

const BASE = 'https://gym.example.test/v1';
const API_KEY = 'club-key-123456';

interface Harness {
  client: GymApiClient;
  calls: RecordedRequest[];
  dataCalls: () => RecordedRequest[];
  tokenCalls: () => RecordedRequest[];
  events: RequestEvent[];
  clock: FakeClock;
}

/** `data` answers data requests; /token always issues tok-1, tok-2, ... */
function harness(
  data: Handler,
  options: Partial<GymApiClientOptions> = {},
  clock = new FakeClock(),
): Harness {
  let issued = 0;
  let dataIndex = 0;
  const upstream = scriptedFetch((request) =>
    request.url.pathname.endsWith('/token') ? tokenResponse(`tok-${++issued}`) : data(request, dataIndex++),
  );
  const events: RequestEvent[] = [];
  const tokenProvider = new TokenProvider({
    baseUrl: BASE,
    username: 'u',
    password: 'p4ssword',
    fetch: upstream.fetch,
    now: clock.now,
  });
  const client = new GymApiClient({
    baseUrl: BASE,
    apiKey: API_KEY,
    tokenProvider,
    fetch: upstream.fetch,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    onRequest: (e) => events.push(e),
    ...options,
  });
  const isToken = (c: RecordedRequest) => c.url.pathname.endsWith('/token');
  return {
    client,
    calls: upstream.calls,
    dataCalls: () => upstream.calls.filter((c) => !isToken(c)),
    tokenCalls: () => upstream.calls.filter(isToken),
    events,
    clock,
  };
}

/** A data handler serving `total` visits with offset/limit and a `next` link, like the seed. */
function visits(total: number): Handler {
  return (request) => {
    const offset = Number(request.url.searchParams.get('offset') ?? 0);
    const limit = Number(request.url.searchParams.get('limit') ?? 500);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
      MemberNumber: `M${offset + i}`,
      VisitDateTime: '2025-03-01T06:00:00',
    }));
    const next = new URL(request.url);
    next.searchParams.set('offset', String(offset + limit));
    return json({ href: request.url.href, next: next.href, data });
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe('GymApiClient requests', () => {
  it('sends the bearer token, the club key and Accept on data calls, and a token only once', async () => {
    const h = harness(visits(3));
    await h.client.fetchAll('visits', { fromdate: '2025-03-01T00:00:00' });
    await h.client.fetchAll('visits');
    expect(h.tokenCalls()).toHaveLength(1);
    for (const call of h.dataCalls()) {
      expect(call.headers.get('authorization')).toBe('Bearer tok-1');
      expect(call.headers.get('x-api-key')).toBe(API_KEY);
      expect(call.headers.get('accept')).toBe('application/json');
    }
    expect(h.dataCalls()[0]?.url.searchParams.get('fromdate')).toBe('2025-03-01T00:00:00');
  });

  it('reports every request, token included, to onRequest', async () => {
    const h = harness(visits(2));
    await h.client.fetchAll('visits');
    expect(h.events.map((e) => [e.kind, e.operation, e.status, e.attempt])).toEqual([
      ['token', 'token', 200, 1],
      ['data', 'visits', 200, 1],
    ]);
  });

  it('an observer that throws does not break the request', async () => {
    const h = harness(visits(2), {
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    await expect(h.client.fetchAll('visits')).resolves.toMatchObject({ pageCount: 1 });
  });
});

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
      // Distinct records: an upstream that serves the same page again is stalled (tested below).
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

describe('GymApiClient retries', () => {
  it('retries 5xx and network errors with full-jitter backoff, then succeeds', async () => {
    const h = harness((request, i) => {
      if (i === 0) return json({ Message: 'boom' }, 503);
      if (i === 1) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET', message: 'reset' } });
      if (i === 2) return new Response('bad gateway', { status: 502 });
      return visits(3)(request, i);
    });
    const result = await h.client.fetchAll('visits');
    expect(result.items).toHaveLength(3);
    // random() = 0.5: half of 200, 400, 800
    expect(h.clock.sleeps).toEqual([100, 200, 400]);
    expect(h.events.filter((e) => e.kind === 'data').map((e) => [e.attempt, e.status ?? null])).toEqual([
      [1, 503],
      [2, null],
      [3, 502],
      [4, 200],
    ]);
    expect(h.events.find((e) => e.attempt === 2 && e.kind === 'data')?.error).toContain('ECONNRESET');
  });

  it('gives up after maxAttempts with the last UnavailableError', async () => {
    const h = harness(() => json({ Message: 'down' }, 500), { retry: { maxAttempts: 3 } });
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).toMatchObject({ status: 500, retryable: true });
    expect(h.dataCalls()).toHaveLength(3);
    expect(h.clock.sleeps).toHaveLength(2);
  });

  it('caps each wait at maxDelayMs', async () => {
    const h = harness(() => json({}, 503), {
      retry: { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 3000 },
      random: () => 0.999,
    });
    await failure(h.client.fetchAll('visits'));
    expect(h.clock.sleeps.every((w) => w <= 3000)).toBe(true);
    expect(h.clock.sleeps.slice(-3)).toEqual([2997, 2997, 2997]);
  });

  it('never waits past the deadline: throws the last error instead', async () => {
    const h = harness(() => json({}, 503), {
      retry: { maxAttempts: 50, baseDelayMs: 1000, maxDelayMs: 8000 },
    });
    const deadline = h.clock.now() + 5000;
    const err = await failure(h.client.fetchAll('visits', {}, { deadline }));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(h.clock.now()).toBeLessThan(deadline);
    expect(h.clock.sleeps).toEqual([500, 1000, 2000]);
  });

  it('when a wait overshoots the deadline, DeadlineExceededError carries the last failure', async () => {
    const clock = new FakeClock();
    // The timer fires late: after the wait the clock is past the deadline.
    const h = harness(
      () => json({}, 503),
      { sleep: async (ms) => clock.advance(ms + 1600), retry: { baseDelayMs: 1000, maxDelayMs: 1000 } },
      clock,
    );
    const deadline = clock.now() + 2000;
    const err = await failure(h.client.fetchAll('visits', {}, { deadline }));
    expect(h.dataCalls()).toHaveLength(1);
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as Error).cause).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toContain('last failure: visits: HTTP 503');
  });

  it('does not start a request after the deadline', async () => {
    const h = harness(visits(1));
    await h.client.fetchAll('visits'); // token cached
    const err = await failure(h.client.fetchAll('visits', {}, { deadline: h.clock.now() - 1 }));
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('does not retry 400', async () => {
    const h = harness(() => json({ Message: 'Invalid fromdate' }, 400));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toContain('Invalid fromdate');
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('stops when the caller aborts during a backoff', async () => {
    const controller = new AbortController();
    const h = harness(() => json({}, 503), {
      sleep: async () => {
        controller.abort();
      },
    });
    const err = await failure(h.client.fetchAll('visits', {}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(h.dataCalls()).toHaveLength(1);
  });
});

describe('GymApiClient 429', () => {
  it('retries once after at least quotaDelayMs, then succeeds', async () => {
    const h = harness((request, i) => (i === 0 ? json({ Message: 'Quota' }, 429) : visits(1)(request, i)));
    await h.client.fetchAll('visits');
    expect(h.clock.sleeps).toEqual([5000]);
    expect(h.dataCalls()).toHaveLength(2);
  });

  it('a second 429 is QuotaExceededError, with no tight loop', async () => {
    const h = harness(() => json({ Message: 'Quota exceeded' }, 429, { 'retry-after': '12' }));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 12_000, retryable: true });
    expect(h.clock.sleeps).toEqual([12_000]);
    expect(h.dataCalls()).toHaveLength(2);
  });

  it('throws at once when Retry-After is longer than maxQuotaDelayMs', async () => {
    const h = harness(() => json({}, 429, { 'retry-after': '3600' }));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toMatchObject({ name: 'QuotaExceededError', retryAfterMs: 3_600_000 });
    expect(h.clock.sleeps).toEqual([]);
  });

  it('throws at once when the deadline does not leave room for the back-off', async () => {
    const h = harness(() => json({}, 429));
    const err = await failure(h.client.fetchAll('visits', {}, { deadline: h.clock.now() + 4000 }));
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(h.clock.sleeps).toEqual([]);
    expect(h.dataCalls()).toHaveLength(1);
  });
});

describe('GymApiClient 401', () => {
  it('refreshes the token once on 401 and succeeds with the new one', async () => {
    const h = harness((request, i) =>
      i === 0 ? json({ Message: 'Invalid or expired token' }, 401) : visits(1)(request, i),
    );
    await h.client.fetchAll('visits');
    expect(h.tokenCalls()).toHaveLength(2);
    expect(h.dataCalls().map((c) => c.headers.get('authorization'))).toEqual([
      'Bearer tok-1',
      'Bearer tok-2',
    ]);
    expect(h.clock.sleeps).toEqual([]);
  });

  it('a second 401 with a fresh token is AuthError(apiKey)', async () => {
    const h = harness(() => json({ Message: 'Unauthorized' }, 401));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ reason: 'apiKey', status: 401, retryable: false });
    expect(h.tokenCalls()).toHaveLength(2);
    expect(h.dataCalls()).toHaveLength(2);
  });

  it('a 401 that names the API key fails at once, without a pointless token refresh', async () => {
    const h = harness(() => json({ Message: 'Invalid API key' }, 401));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toMatchObject({ name: 'AuthError', reason: 'apiKey' });
    expect(h.tokenCalls()).toHaveLength(1);
  });

  it('a repeated token rejection after re-auth is AuthError(token)', async () => {
    const h = harness(() => json({ Message: 'Invalid or expired token' }, 401));
    await expect(h.client.fetchAll('visits')).rejects.toMatchObject({ name: 'AuthError', reason: 'token' });
  });

  it('403 that blames no credential is EndpointUnavailableError(forbidden), never retried', async () => {
    // The API document answers bad credentials with 401: a bare 403 refuses this endpoint.
    const h = harness(() => json({ message: 'Forbidden' }, 403));
    await expect(h.client.fetchAll('visits')).rejects.toMatchObject({
      name: 'EndpointUnavailableError',
      reason: 'forbidden',
      status: 403,
      retryable: false,
    });
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('403 whose message blames the API key stays an AuthError', async () => {
    const h = harness(() => json({ Message: 'Invalid API key' }, 403));
    await expect(h.client.fetchAll('visits')).rejects.toMatchObject({ name: 'AuthError', reason: 'apiKey' });
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('404 on a data operation is EndpointUnavailableError(not-found), never retried', async () => {
    const h = harness(() => json({ Message: 'Not Found' }, 404));
    const err = await failure(h.client.fetchAll('classAttendance'));
    expect(err).toMatchObject({ name: 'EndpointUnavailableError', reason: 'not-found', status: 404 });
    expect((err as Error).message).toBe('classAttendance: HTTP 404 not found: Not Found');
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('never puts the key or the token in an error message, even when upstream echoes them', async () => {
    const h = harness(() => json({ Message: `Key ${API_KEY} with Bearer tok-1 rejected; token tok-2` }, 401));
    const err = (await failure(h.client.fetchAll('visits'))) as Error;
    expect(err.message).not.toContain(API_KEY);
    expect(err.message).not.toMatch(/tok-\d/);
    expect(err.message).toContain('[redacted]');
  });
});

describe('GymApiClient responses', () => {
  it('refuses a redirect instead of following it', async () => {
    const h = harness(
      () => new Response(null, { status: 302, headers: { location: 'https://evil.example.test/' } }),
    );
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toMatchObject({ name: 'InvalidResponseError', status: 302 });
    expect(h.calls.every((c) => c.url.host === 'gym.example.test')).toBe(true);
  });

  it('an HTML 200 is InvalidResponseError, not retried', async () => {
    const h = harness(
      () => new Response('<!doctype html><p>hi</p>', { headers: { 'content-type': 'text/html' } }),
    );
    await expect(h.client.fetchAll('visits')).rejects.toBeInstanceOf(InvalidResponseError);
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('rejects a bad configuration early', () => {
    const tokenProvider = { getToken: async () => 't', invalidate: () => {} };
    expect(() => new GymApiClient({ baseUrl: 'gym.example.test/v1', apiKey: 'k', tokenProvider })).toThrow(
      TypeError,
    );
    expect(() => new GymApiClient({ baseUrl: BASE, apiKey: '', tokenProvider })).toThrow(/apiKey/);
    expect(
      () => new GymApiClient({ baseUrl: BASE, apiKey: 'k', tokenProvider, retry: { maxAttempts: 0 } }),
    ).toThrow(/maxAttempts/);
  });
});
