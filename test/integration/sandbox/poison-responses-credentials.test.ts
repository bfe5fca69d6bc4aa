/**
 * Poison mode, response habits of credentials and tokens, over real HTTP: credentials echoed (in
 * every form, place and escape JSON allows) in error bodies of token and data requests, in 200 pages
 * and in token responses, and tokens issued with a control character in them. The sandbox:
 * `poison-responses-sandbox.ts`; the habits of pages: `poison-responses.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import type { PoisonLogEntry } from '../../../sandbox';
import {
  ESCAPES,
  PAGE_PLACES,
  PLACEMENTS,
  SECRET_FORMS,
  TOKEN_PLACES,
} from '../../../sandbox/poison/credential-echo';
import { decodedForms } from '../../support/credential-leaks';
import { apiKey, logSince, sandbox, token, useResponseSandbox, withPoison } from './poison-responses-sandbox';
import { basicHeader, rawGet, requestToken } from './sandbox-http';

describe('sandbox poison mode: response habits', () => {
  useResponseSandbox();

  it('echoes credentials in error bodies of token and data requests, in every form and place', async () => {
    const { username, password } = sandbox.integrator;
    const login = `${username}:${password}`;
    const basicValue = Buffer.from(login).toString('base64');
    const secretIn = (form: string, bearer: string | undefined): string => {
      switch (form) {
        case 'basic-header':
          return `Basic ${basicValue}`;
        case 'basic-value':
          return basicValue;
        case 'username-password':
          return login;
        case 'username':
          return username;
        case 'password':
          return password;
        case 'url-encoded':
          return login; // percent-encoded: the decoded text holds it
        case 'json-escaped':
          return login;
        case 'api-key':
          return apiKey;
        case 'bearer-token':
          return bearer ?? '';
        default:
          return bearer?.split('.')[2] ?? '';
      }
    };
    const since = sandbox.poison.log.lastSeq;
    const used = sandbox.requestCounts('club-1').used;
    await withPoison({ echoCredentials: 1 }, async () => {
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${sandbox.url}/token`, {
          method: 'POST',
          headers: { authorization: basicHeader(username, password) },
        });
        const entry = logSince(since).at(-1) as PoisonLogEntry;
        expect([entry.operation, entry.status]).toEqual(['token', res.status]);
        expect([401, 500]).toContain(res.status);
        // Written with the escape drawn (the variant's third part): it reads as the secret decoded.
        const text = await res.text();
        const secret = secretIn(entry.variant.split('/')[0] as string, undefined);
        expect(
          decodedForms(text).some((t) => t.includes(secret)),
          entry.variant,
        ).toBe(true);
      }
      for (let i = 0; i < 60; i++) {
        const res = await rawGet(sandbox, '/members?limit=1', { token, apiKey });
        const entry = logSince(since).at(-1) as PoisonLogEntry;
        expect([entry.operation, entry.clubId, entry.status]).toEqual(['members', 'club-1', res.status]);
        expect([400, 401, 500]).toContain(res.status);
        const secret = secretIn(entry.variant.split('/')[0] as string, token);
        expect(
          decodedForms(res.text).some((t) => t.includes(secret)),
          entry.variant,
        ).toBe(true);
      }
    });
    const log = logSince(since);
    expect(new Set(log.map((e) => e.variant.split('/')[0]))).toEqual(new Set(SECRET_FORMS));
    expect(new Set(log.map((e) => e.variant.split('/')[1]))).toEqual(new Set(PLACEMENTS));
    expect(new Set(log.map((e) => e.variant.split('/')[2]))).toEqual(new Set(ESCAPES));
    // The log names the form, never the secret.
    expect(JSON.stringify(log)).not.toContain(password);
    expect(JSON.stringify(log)).not.toContain(apiKey);
    // Injected like the other faults: not counted against the quota.
    expect(sandbox.requestCounts('club-1').used).toBe(used);
  });

  it('sends JSON-escaped credentials that only read as the secret once parsed', async () => {
    const { username, password } = sandbox.integrator;
    const since = sandbox.poison.log.lastSeq;
    await withPoison({ echoCredentials: 1 }, async () => {
      const wanted = 'json-escaped/message/all-lower';
      for (let i = 0; i < 200 && !logSince(since).some((e) => e.variant === wanted); i++) {
        const res = await rawGet(sandbox, '/members?limit=1', { token, apiKey });
        if (logSince(since).at(-1)?.variant !== wanted) continue;
        expect(res.text).not.toContain(password);
        expect((JSON.parse(res.text) as { Message: string }).Message).toContain(`${username}:${password}`);
      }
    });
    expect(logSince(since).some((e) => e.variant === 'json-escaped/message/all-lower')).toBe(true);
  });

  it('echoes credentials into 200 pages and token responses, escaped: the parsed body reads as them', async () => {
    const { username, password } = sandbox.integrator;
    const login = `${username}:${password}`;
    const signature = token.split('.')[2] ?? token;
    const known = [username, password, login, Buffer.from(login).toString('base64'), apiKey, signature];
    const holdsOne = (value: unknown) =>
      decodedForms(JSON.stringify(value)).some((t) => known.some((k) => t.includes(k)));
    const since = sandbox.poison.log.lastSeq;
    await withPoison({ echoCredentials: 0.5 }, async () => {
      for (let i = 0; i < 160; i++) {
        const before = sandbox.poison.log.lastSeq;
        const res = await rawGet(sandbox, `/members?limit=2&offset=${i % 5}`, { token, apiKey });
        const entry = sandbox.poison.log.entries(before).at(-1);
        if (res.status !== 200 || entry?.status !== 200) continue;
        // Valid JSON whose parsed strings (decoded once more) hold a credential of the request.
        expect(holdsOne(parseJsonPreservingInt64(res.text)), entry.variant).toBe(true);
      }
      for (let i = 0; i < 40; i++) {
        const before = sandbox.poison.log.lastSeq;
        const res = await fetch(`${sandbox.url}/token`, {
          method: 'POST',
          headers: { authorization: basicHeader(username, password) },
        });
        const text = await res.text();
        const entry = sandbox.poison.log.entries(before).at(-1);
        if (res.status !== 200 || entry?.status !== 200) continue;
        const body = JSON.parse(text) as { AccessToken: string };
        expect(body.AccessToken).toMatch(/^ey/);
        expect(holdsOne(body), entry.variant).toBe(true);
      }
    });
    const log = logSince(since).filter((e) => e.status === 200);
    expect(new Set(log.filter((e) => e.operation === 'members').map((e) => e.variant.split('/')[1]))).toEqual(
      new Set(PAGE_PLACES),
    );
    expect(new Set(log.filter((e) => e.operation === 'token').map((e) => e.variant.split('/')[1]))).toEqual(
      new Set(TOKEN_PLACES),
    );
    expect(JSON.stringify(logSince(since))).not.toContain(password);
  });

  it('issues tokens with a control character in them', async () => {
    const since = sandbox.poison.log.lastSeq;
    const tokens = await withPoison({ tokenControlChar: 1 }, async () => {
      const out: string[] = [];
      for (let i = 0; i < 20; i++) out.push(await requestToken(sandbox));
      return out;
    });
    for (const t of tokens) {
      expect(t).toMatch(/[\u0000-\u001f\u007f]/);
      // The token around the control character is a real one.
      const clean = t.replace(/[\u0000-\u001f\u007f]/g, '');
      expect((await rawGet(sandbox, '/members?limit=1', { token: clean, apiKey })).status).toBe(200);
    }
    expect(new Set(logSince(since).map((e) => `${e.operation} ${e.kind}`))).toEqual(
      new Set(['token tokenControlChar']),
    );
    expect(new Set(logSince(since).map((e) => e.variant))).toEqual(
      new Set(['newline-inside', 'crlf-at-end', 'nul-inside', 'escape-inside', 'tab-at-start']),
    );
  });
});
