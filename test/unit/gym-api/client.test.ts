/**
 * GymApiClient against an injected fetch (no network): what it sends (bearer token, club key,
 * Accept, a token fetched once), the onRequest hook, responses it refuses (a redirect, an HTML 200)
 * and a bad configuration. Paging, retries and re-auth are in client-paging, client-retries and
 * client-auth; the same behaviour over a real socket against the sandbox is in
 * test/integration/gym-api.
 */
import { describe, expect, it } from 'vitest';
import { GymApiClient } from '../../../lambdas/gym-api/client';
import { InvalidResponseError } from '../../../lambdas/gym-api/errors';
import { API_KEY, BASE, failure, harness, visits } from './client-harness';

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
