import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { basicHeader, getPage, messageOf, rawGet, requestToken } from './sandbox-http';

describe('sandbox authentication', () => {
  let sandbox: Sandbox;
  let token: string;

  beforeAll(async () => {
    sandbox = await startSandbox({
      seed: 11,
      members: 40,
      startTime: '2025-03-10T00:00:00Z',
      tokenLifetimeSec: 600,
    });
    token = await requestToken(sandbox);
  });
  afterAll(() => sandbox.close());

  it('issues an HS256 JWT with exp, iat, sub and scope read for the integrator login', async () => {
    const res = await fetch(`${sandbox.url}/token`, {
      method: 'POST',
      headers: { authorization: basicHeader(sandbox.integrator.username, sandbox.integrator.password) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { AccessToken: string; ExpiresIn: number; TokenType: string };
    expect(body.TokenType).toBe('Bearer');
    expect(body.ExpiresIn).toBe(600);
    const [header, payload, signature] = body.AccessToken.split('.');
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(Buffer.from(header ?? '', 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    expect(claims.sub).toBe(sandbox.integrator.username);
    expect(claims.scope).toBe('read');
    expect(claims.exp - claims.iat).toBe(600);
    expect(claims.iat).toBe(Math.floor(sandbox.clock.now().getTime() / 1000));
  });

  it.each([
    ['a wrong password', (s: Sandbox) => basicHeader(s.integrator.username, 'not-the-password')],
    ['a wrong username', (s: Sandbox) => basicHeader('someone-else', s.integrator.password)],
    ['no Authorization header', () => undefined],
    ['a bearer token instead of Basic', () => 'Bearer abc'],
  ])('answers 401 "Invalid credentials" to %s', async (_name, header) => {
    const h = header(sandbox);
    const res = await fetch(`${sandbox.url}/token`, {
      method: 'POST',
      headers: h ? { authorization: h } : {},
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { Message: string }).Message).toBe('Invalid credentials');
  });

  it('needs a valid bearer token on data calls', async () => {
    const apiKey = sandbox.clubs[0]?.apiKey ?? '';
    for (const auth of [{ apiKey }, { apiKey, token: 'garbage' }, { apiKey, token: `${token}x` }]) {
      const res = await rawGet(sandbox, '/members?limit=1', auth);
      expect(res.status).toBe(401);
      expect(messageOf(res)).toBe('Invalid or expired token');
    }
  });

  it('needs a known x-api-key on data calls', async () => {
    for (const apiKey of [undefined, 'not-a-key', '']) {
      const res = await rawGet(sandbox, '/members/attendance/visits?limit=1', {
        token,
        ...(apiKey !== undefined ? { apiKey } : {}),
      });
      expect(res.status).toBe(401);
      expect(messageOf(res)).toBe('Invalid API key');
    }
  });

  it('lets one integrator token read every club, the key choosing the club', async () => {
    const firstMembers = await Promise.all(
      sandbox.clubs.map(async (c) => (await getPage(sandbox, token, c.apiKey, '/members?limit=5')).data),
    );
    expect(firstMembers.every((m) => m.length === 5)).toBe(true);
    const emails = firstMembers.map((m) => (m[0]?.Contact as { Email: string } | undefined)?.Email);
    expect(new Set(emails).size).toBe(sandbox.clubs.length);
  });

  it('rejects a token once it expires on the sandbox clock, and a new token works', async () => {
    const apiKey = sandbox.clubs[0]?.apiKey ?? '';
    const shortLived = await startSandbox({
      seed: 2,
      members: 10,
      startTime: '2025-03-10T00:00:00Z',
      tokenLifetimeSec: 60,
    });
    try {
      const key = shortLived.clubs[0]?.apiKey ?? '';
      const t = await requestToken(shortLived);
      expect((await rawGet(shortLived, '/members?limit=1', { token: t, apiKey: key })).status).toBe(200);
      shortLived.advance(59_000);
      expect((await rawGet(shortLived, '/members?limit=1', { token: t, apiKey: key })).status).toBe(200);
      shortLived.advance(1_000);
      const expired = await rawGet(shortLived, '/members?limit=1', { token: t, apiKey: key });
      expect(expired.status).toBe(401);
      expect(messageOf(expired)).toBe('Invalid or expired token');
      const fresh = await requestToken(shortLived);
      expect((await rawGet(shortLived, '/members?limit=1', { token: fresh, apiKey: key })).status).toBe(200);
      // A token from another sandbox (another signing key) is not accepted here.
      expect((await rawGet(sandbox, '/members?limit=1', { token: fresh, apiKey })).status).toBe(401);
    } finally {
      await shortLived.close();
    }
  });

  it('answers 404 to unknown paths and 405 to wrong methods, as {"Message"}', async () => {
    const apiKey = sandbox.clubs[0]?.apiKey ?? '';
    for (const path of ['/nothing', '/members/', '/members/attendance', '/financial']) {
      const res = await rawGet(sandbox, path, { token, apiKey });
      expect(res.status).toBe(404);
      expect(messageOf(res)).toBe('Not Found');
    }
    const outside = await fetch(`${new URL(sandbox.url).origin}/v2/members`);
    expect(outside.status).toBe(404);
    const getToken = await fetch(`${sandbox.url}/token`);
    expect(getToken.status).toBe(405);
    const postMembers = await fetch(`${sandbox.url}/members`, { method: 'POST' });
    expect(postMembers.status).toBe(405);
    expect(postMembers.headers.get('allow')).toBe('GET');
  });
});
