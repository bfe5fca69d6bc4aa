/**
 * Property-based (issue 32): an upstream that echoes a credential of the request written in any
 * escape JSON allows gets nothing past the client. Whatever the credential (the API key, the bearer
 * token, the username, the password, the Basic value, `username:password`), however it is escaped
 * (`\u` escapes of every character or some, either hex case, `\/`, .NET's escaping of `+`, surrogate
 * pairs around it) and wherever it is (a record's value, a new field, a key, a nested value, the
 * page's `href` or `next`; an error body of any status; a token response):
 *
 * - no record, invalid item, issue text, link, error message or log line holds it in any form a
 *   reader could decode (test/support/credential-leaks.ts);
 * - the record it was in still comes through (as an item or an invalid item): nothing is lost.
 *
 * The fetch is scripted (no network): hundreds of cases in seconds. The engine, the table and a
 * real socket are in test/integration/security/escaped-credentials.property.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactKnownSecrets } from '../../../lambdas/common/redact';
import { GymApiClient } from '../../../lambdas/gym-api/client';
import { GymApiError } from '../../../lambdas/gym-api/errors';
import { OPERATION_NAMES, type OperationName } from '../../../lambdas/gym-api/operations';
import { TokenProvider } from '../../../lambdas/gym-api/token-provider';
import {
  credentialsArbitrary,
  credentialText,
  type EchoCredentials,
  echoArbitrary,
  echoLiteral,
  escapeJson,
  escapeStyleArbitrary,
  namedCredentials,
  pageWithEcho,
  RECORD_TEMPLATES,
} from '../../support/credential-echoes';
import { credentialForms, findCredentials } from '../../support/credential-leaks';
import { captureLogs, logProblems } from '../../support/log-capture';
import { FakeClock, type RecordedRequest, scriptedFetch } from './fake-upstream';

const BASE = 'https://gym.example.test/v1';
const AT = Date.parse('2026-05-04T07:50:00Z');

interface Upstream {
  token(c: EchoCredentials): Response;
  data(request: RecordedRequest, c: EchoCredentials): Response;
}

const jsonResponse = (text: string, status = 200, contentType = 'application/json; charset=utf-8') =>
  new Response(text, { status, headers: { 'content-type': contentType } });

const goodToken = (c: EchoCredentials) =>
  jsonResponse(
    `{"AccessToken":"${escapeJson(c.token, { kind: 'minimal' })}","ExpiresIn":3600,"TokenType":"Bearer"}`,
  );

function clientFor(c: EchoCredentials, upstream: Upstream) {
  const clock = new FakeClock(AT + 60_000);
  const { fetch } = scriptedFetch((request) =>
    request.url.pathname.endsWith('/token') ? upstream.token(c) : upstream.data(request, c),
  );
  const tokenProvider = new TokenProvider({
    baseUrl: BASE,
    username: c.username,
    password: c.password,
    fetch,
    now: clock.now,
  });
  return new GymApiClient({
    baseUrl: BASE,
    apiKey: c.apiKey,
    tokenProvider,
    fetch,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    retry: { maxAttempts: 1 },
  });
}

/** Everything a scan of `op` yields, or the error it ends with, and every log line meanwhile. */
async function scan(client: GymApiClient, op: OperationName) {
  const logs = captureLogs();
  const pages: unknown[] = [];
  let error: unknown;
  try {
    for await (const page of client.pages(op, {}, { pageSize: 50 })) pages.push(page);
  } catch (err) {
    error = err;
  } finally {
    logs.stop();
  }
  return { pages, error, logs: logs.lines };
}

/** The link to the page after the one asked for. */
function nextOf(url: URL): string {
  const next = new URL(url);
  next.searchParams.set('offset', String(Number(url.searchParams.get('offset') ?? 0) + 50));
  return next.toString();
}

/** The error as anything downstream sees it: name, message, and what it carries. */
const errorView = (err: unknown) =>
  err instanceof Error
    ? { name: err.name, message: err.message, ...Object.fromEntries(Object.entries(err)) }
    : err;

describe('credentials echoed with JSON escapes never get past the client', () => {
  it('in any string of a page of any operation: records, keys, nested values, href, next', async () => {
    await fc.assert(
      fc.asyncProperty(
        credentialsArbitrary,
        echoArbitrary,
        fc.constantFrom(...OPERATION_NAMES),
        fc.nat({ max: 20 }),
        async (c, echo, op, index) => {
          // Prepare: a page of three records, one of them (or a link) quoting the credential
          const records = [1, 2, 3].map((id) => RECORD_TEMPLATES[op](id, AT));
          const client = clientFor(c, {
            token: goodToken,
            data: (request) =>
              jsonResponse(
                pageWithEcho(
                  records,
                  echo,
                  c,
                  { href: request.url.toString(), next: nextOf(request.url) },
                  index,
                ),
              ),
          });
          // Act
          const { pages, error, logs } = await scan(client, op);
          // Assess
          const forms = credentialForms(namedCredentials(c));
          expect(findCredentials('page', pages, forms)).toEqual([]);
          expect(findCredentials('error', errorView(error), forms)).toEqual([]);
          expect(findCredentials('log', logs, forms)).toEqual([]);
          // The WARN line saying so keeps its reason.
          expect(logProblems(logs)).toEqual([]);
          const read = pages as { items: unknown[]; invalid: unknown[] }[];
          expect(error, String(error)).toBeUndefined();
          expect(read.reduce((n, p) => n + p.items.length + p.invalid.length, 0)).toBe(3);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('in an error body of any status, JSON or not', async () => {
    const bodies: ((lit: string) => [string, string])[] = [
      (lit) => [`{"Message":"${lit}"}`, 'application/json'],
      (lit) => [`{"error":{"detail":"${lit}"}}`, 'application/json'],
      (lit) => [`{"Detail":"${lit}","Message":"refused"}`, 'application/json'],
      (lit) => [`{"${lit}":true}`, 'application/json'],
      (lit) => [`refused: ${lit}`, 'text/plain'],
      (lit) => [`<html><body><pre>${lit}</pre></body></html>`, 'text/html'],
      (lit) => [`{"Message":"refused"}`, `application/${lit.replace(/[^\x21-\x7e]/g, '')}`],
    ];
    await fc.assert(
      fc.asyncProperty(
        credentialsArbitrary,
        echoArbitrary,
        fc.constantFrom(400, 401, 403, 404, 409, 429, 500, 503),
        fc.nat({ max: bodies.length - 1 }),
        async (c, echo, status, kind) => {
          const [body, type] = bodies[kind]!(echoLiteral(echo, c));
          const client = clientFor(c, { token: goodToken, data: () => jsonResponse(body, status, type) });
          const { error, logs } = await scan(client, 'visits');
          expect(error).toBeInstanceOf(GymApiError);
          const forms = credentialForms(namedCredentials(c));
          expect(findCredentials('error', errorView(error), forms)).toEqual([]);
          expect(findCredentials('log', logs, forms)).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('in a token response: its fields, an error body, a body that is not JSON', async () => {
    const answers = [
      // A good token whose TokenType quotes the login (logged as "not Bearer").
      (c: EchoCredentials, lit: string) =>
        jsonResponse(
          `{"AccessToken":"${escapeJson(c.token, { kind: 'minimal' })}","ExpiresIn":3600,"TokenType":"${lit}"}`,
        ),
      // No AccessToken, the login in another field.
      (_c: EchoCredentials, lit: string) =>
        jsonResponse(`{"Error":"${lit}","ExpiresIn":3600,"TokenType":"Bearer"}`),
      (_c: EchoCredentials, lit: string) => jsonResponse(`{"Message":"${lit}"}`, 401),
      (_c: EchoCredentials, lit: string) => jsonResponse(`{"error_description":"${lit}"}`, 400),
      (_c: EchoCredentials, lit: string) => jsonResponse(`{"error":{"message":"${lit}"}}`, 500),
      (_c: EchoCredentials, lit: string) => jsonResponse(`login ${lit} refused`, 401, 'text/plain'),
      (_c: EchoCredentials, lit: string) => jsonResponse(`<p>${lit}</p>`, 200, 'text/html'),
    ];
    await fc.assert(
      fc.asyncProperty(
        credentialsArbitrary,
        echoArbitrary,
        fc.nat({ max: answers.length - 1 }),
        async (c, echo, kind) => {
          // A token no answer issued is no credential the bridge holds (kind 0 issues it).
          fc.pre(kind === 0 || echo.credential !== 'token');
          const client = clientFor(c, {
            token: (creds) => answers[kind]!(creds, echoLiteral(echo, creds)),
            data: (request) => jsonResponse(JSON.stringify({ href: request.url.toString(), data: [] })),
          });
          const { error, logs } = await scan(client, 'visits');
          // The token provider serves every club of the login and holds no API key: an API key
          // it is sent back is removed at the sinks (the logger, lastError), which know it.
          const login = namedCredentials(c).filter((n) => n.name !== 'apiKey');
          expect(findCredentials('error', errorView(error), credentialForms(login))).toEqual([]);
          const forms = credentialForms(namedCredentials(c));
          const message = error instanceof Error ? error.message : '';
          expect(findCredentials('error at a sink', redactKnownSecrets(message), forms)).toEqual([]);
          expect(findCredentials('log', logs, forms)).toEqual([]);
        },
      ),
      { numRuns: 100 },
    );
  }, 120_000);

  it('a credential that parses as a number, written as one in any notation, is removed too', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 10_000_000, max: 999_999_999 }),
        fc.constantFrom('plain', 'exponent', 'fraction', 'string'),
        async (n, notation) => {
          const c: EchoCredentials = {
            apiKey: 'k3y-abcdefghij',
            username: 'integrator-x',
            password: String(n),
            token: 'tok-abcdefghijkl',
          };
          const literal =
            notation === 'plain'
              ? String(n)
              : notation === 'exponent'
                ? `${n / 1000}e3`
                : notation === 'fraction'
                  ? `${n}.000`
                  : `"${escapeJson(String(n), { kind: 'all', upper: false })}"`;
          const records = [{ ...RECORD_TEMPLATES.visits(1, AT), Pin: '@@' }];
          const client = clientFor(c, {
            token: goodToken,
            data: (request) =>
              jsonResponse(
                JSON.stringify({ href: request.url.toString(), data: records }).replace('"@@"', literal),
              ),
          });
          const { pages, error } = await scan(client, 'visits');
          expect(error).toBeUndefined();
          const forms = credentialForms([{ name: 'password', value: c.password }]);
          expect(findCredentials('page', pages, forms)).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('the escape forms really reach the client: the writer round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(credentialsArbitrary, escapeStyleArbitrary, (c, style) => {
        for (const name of ['apiKey', 'password', 'username', 'login'] as const) {
          const text = credentialText(name, c);
          expect(JSON.parse(`"${escapeJson(text, style)}"`)).toBe(text);
        }
      }),
    );
  });
});
