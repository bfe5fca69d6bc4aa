/**
 * GymApiClient's answers to a refused request against an injected fetch (no network): re-auth on a
 * 401 (once, then AuthError naming the token or the key), a 403 or 404 as an unavailable endpoint
 * unless it blames the key, and neither key nor token in an error message.
 */
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../../lambdas/gym-api/errors';
import { API_KEY, failure, harness, visits } from './client-harness';
import { json } from './fake-upstream';

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
