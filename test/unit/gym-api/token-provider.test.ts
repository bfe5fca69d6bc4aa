import { describe, expect, it } from 'vitest';
import {
  AuthError,
  InvalidResponseError,
  QuotaExceededError,
  RequestAbortedError,
  UnavailableError,
} from '../../../lambdas/gym-api/errors';
import type { RequestEvent } from '../../../lambdas/gym-api/request-event';
import {
  refreshMarginMs,
  TokenProvider,
  type TokenProviderOptions,
} from '../../../lambdas/gym-api/token-provider';
import { deferred, FakeClock, json, scriptedFetch, tokenResponse } from './fake-upstream';

const BASE = 'https://gym.example.test/v1';

function provider(
  handler: Parameters<typeof scriptedFetch>[0],
  clock = new FakeClock(),
  extra: Partial<TokenProviderOptions> = {},
) {
  const upstream = scriptedFetch(handler);
  const tokens = new TokenProvider({
    baseUrl: BASE,
    username: 'integrator',
    password: 's3cret-pass',
    fetch: upstream.fetch,
    now: clock.now,
    ...extra,
  });
  return { tokens, calls: upstream.calls, clock };
}

describe('refreshMarginMs', () => {
  it('defaults to 60 s or 10% of the lifetime, whichever is smaller', () => {
    expect(refreshMarginMs(3600_000, undefined)).toBe(60_000);
    expect(refreshMarginMs(300_000, undefined)).toBe(30_000);
    expect(refreshMarginMs(10_000, undefined)).toBe(1_000);
  });

  it('uses an explicit margin, capped at half the lifetime', () => {
    expect(refreshMarginMs(3600_000, 300)).toBe(300_000);
    expect(refreshMarginMs(100_000, 300)).toBe(50_000);
    expect(refreshMarginMs(100_000, -5)).toBe(0);
  });
});

describe('TokenProvider', () => {
  it('sends HTTP Basic to POST {base}/token with no body', async () => {
    const { tokens, calls } = provider(() => tokenResponse('tok-1'));
    await expect(tokens.getToken()).resolves.toBe('tok-1');
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.method).toBe('POST');
    expect(call.url.href).toBe(`${BASE}/token`);
    expect(call.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('integrator:s3cret-pass').toString('base64')}`,
    );
    expect(call.headers.get('x-api-key')).toBeNull();
  });

  it('tolerates a trailing slash on the base URL', async () => {
    const upstream = scriptedFetch(() => tokenResponse('t'));
    await new TokenProvider({
      baseUrl: `${BASE}/`,
      username: 'u',
      password: 'p',
      fetch: upstream.fetch,
    }).getToken();
    expect(upstream.calls[0]?.url.href).toBe(`${BASE}/token`);
  });

  it('caches the token until the refresh margin before ExpiresIn', async () => {
    let issued = 0;
    const { tokens, calls, clock } = provider(() => tokenResponse(`tok-${++issued}`, 3600));
    expect(await tokens.getToken()).toBe('tok-1');
    clock.advance(3540_000 - 1); // 1 ms before expiry minus the 60 s margin
    expect(await tokens.getToken()).toBe('tok-1');
    expect(calls).toHaveLength(1);
    clock.advance(1);
    expect(await tokens.getToken()).toBe('tok-2');
    expect(calls).toHaveLength(2);
  });

  it('refreshes a short-lived token at 90% of its lifetime', async () => {
    let issued = 0;
    const { tokens, calls, clock } = provider(() => tokenResponse(`tok-${++issued}`, 100));
    await tokens.getToken();
    clock.advance(89_999);
    expect(await tokens.getToken()).toBe('tok-1');
    clock.advance(1);
    expect(await tokens.getToken()).toBe('tok-2');
    expect(calls).toHaveLength(2);
  });

  it('honours an explicit refreshMarginSec', async () => {
    let issued = 0;
    const { tokens, clock } = provider(() => tokenResponse(`tok-${++issued}`, 3600), new FakeClock(), {
      refreshMarginSec: 600,
    });
    await tokens.getToken();
    clock.advance(2999_000);
    expect(await tokens.getToken()).toBe('tok-1');
    clock.advance(1000);
    expect(await tokens.getToken()).toBe('tok-2');
  });

  it('shares one in-flight refresh between concurrent callers', async () => {
    const release = deferred<Response>();
    const { tokens, calls } = provider(() => release.promise);
    const waiting = Array.from({ length: 20 }, () => tokens.getToken());
    await Promise.resolve();
    release.resolve(tokenResponse('shared'));
    expect(await Promise.all(waiting)).toEqual(Array(20).fill('shared'));
    expect(calls).toHaveLength(1);
  });

  it('invalidate(stale) after a newer token was issued does not cause another refresh', async () => {
    let issued = 0;
    const { tokens, calls } = provider(() => tokenResponse(`tok-${++issued}`));
    const first = await tokens.getToken();
    tokens.invalidate(first);
    const second = await tokens.getToken();
    expect(second).toBe('tok-2');
    // Many requests that were rejected with the first token all invalidate it: no further refresh.
    for (let i = 0; i < 5; i++) tokens.invalidate(first);
    expect(await tokens.getToken()).toBe('tok-2');
    expect(calls).toHaveLength(2);
  });

  it('reports every token request to both observers, with status and duration', async () => {
    const global: RequestEvent[] = [];
    const perCall: RequestEvent[] = [];
    const { tokens } = provider(() => tokenResponse('t'), new FakeClock(), {
      onRequest: (e) => global.push(e),
    });
    await tokens.getToken({ attempt: 3, onRequest: (e) => perCall.push(e) });
    await tokens.getToken({ onRequest: (e) => perCall.push(e) }); // cached: no request
    expect(global).toHaveLength(1);
    expect(perCall).toHaveLength(1);
    expect(perCall[0]).toMatchObject({ kind: 'token', operation: 'token', status: 200, attempt: 3 });
    expect(perCall[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(perCall[0]?.error).toBeUndefined();
  });

  it('401 is AuthError(credentials), whatever the message, and never echoes the password', async () => {
    const { tokens } = provider(() => json({ Message: 'Invalid or expired token for s3cret-pass' }, 401));
    const err = await tokens.getToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ reason: 'credentials', status: 401, operation: 'token', retryable: false });
    expect(String((err as Error).message)).not.toContain('s3cret-pass');
  });

  it('429 is QuotaExceededError, 5xx UnavailableError, and a failed refresh is not cached', async () => {
    const answers = [json({ Message: 'slow down' }, 429), json({}, 503), tokenResponse('ok')];
    const { tokens, calls } = provider((_r, i) => answers[i]!);
    await expect(tokens.getToken()).rejects.toBeInstanceOf(QuotaExceededError);
    await expect(tokens.getToken()).rejects.toBeInstanceOf(UnavailableError);
    await expect(tokens.getToken()).resolves.toBe('ok');
    expect(calls).toHaveLength(3);
  });

  it('a network failure is UnavailableError and reported without a status', async () => {
    const events: RequestEvent[] = [];
    const { tokens } = provider(
      () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' }),
        });
      },
      new FakeClock(),
      { onRequest: (e: RequestEvent) => events.push(e) },
    );
    const err = await tokens.getToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(events[0]?.status).toBeUndefined();
    expect(events[0]?.error).toMatch(/^UnavailableError/);
  });

  it('rejects a response that is not JSON, or lacks a positive ExpiresIn', async () => {
    const answers = [
      new Response('<html>login</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      json({ AccessToken: 'a', ExpiresIn: 0, TokenType: 'Bearer' }),
      json({ AccessToken: 'a', TokenType: 'Bearer' }),
    ];
    const { tokens } = provider((_r, i) => answers[i]!);
    const notJson = await tokens.getToken().catch((e: unknown) => e);
    expect(notJson).toBeInstanceOf(InvalidResponseError);
    expect((notJson as Error).message).toContain('text/html');
    expect((notJson as Error).message).not.toContain('login');
    await expect(tokens.getToken()).rejects.toMatchObject({
      name: 'InvalidResponseError',
      path: 'ExpiresIn',
    });
    await expect(tokens.getToken()).rejects.toMatchObject({
      name: 'InvalidResponseError',
      path: 'ExpiresIn',
    });
  });

  it('keeps using a still-valid token when an early refresh fails with a transient error', async () => {
    const answers = [tokenResponse('first', 3600), json({}, 502)];
    const { tokens, clock } = provider((_r, i) => answers[i] ?? tokenResponse('later'));
    await tokens.getToken();
    clock.advance(3570_000); // inside the margin, before expiry
    expect(await tokens.getToken()).toBe('first');
    clock.advance(30_000); // expired now: the next failure would surface, but upstream recovered
    expect(await tokens.getToken()).toBe('later');
  });

  it('a caller that aborts stops waiting without failing the shared refresh for others', async () => {
    const release = deferred<Response>();
    const { tokens, calls } = provider(() => release.promise);
    const controller = new AbortController();
    const aborted = tokens.getToken({ signal: controller.signal });
    const patient = tokens.getToken();
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(RequestAbortedError);
    release.resolve(tokenResponse('still-fine'));
    await expect(patient).resolves.toBe('still-fine');
    expect(calls).toHaveLength(1);
  });
});
