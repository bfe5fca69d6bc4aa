/**
 * The sandbox builds `href` and `next` from the host it was called by: a client on
 * http://localhost:N/v1 pages as well as one on http://127.0.0.1:N/v1 (the client refuses a `next`
 * on another origin). A Host header that is not a plain host[:port] never reaches a link.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GymApiClient, TokenProvider } from '../../../lambdas/gym-api';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { linkOrigin } from '../../../sandbox/link-origin';
import { requestToken } from './sandbox-http';

let sandbox: Sandbox;
let token: string;
let apiKey: string;
let port: number;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 3, clubs: 1, members: 60, startTime: '2025-03-10T00:00:00Z' });
  token = await requestToken(sandbox);
  apiKey = sandbox.clubs[0]?.apiKey ?? '';
  port = Number(new URL(sandbox.url).port);
});
afterAll(() => sandbox.close());

/** One GET over a raw socket, with exactly the Host header given (or none). */
function rawGet(path: string, host: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body });
    });
    const lines = [
      `GET ${path} HTTP/1.1`,
      ...(host === undefined ? [] : [`Host: ${host}`]),
      `Authorization: Bearer ${token}`,
      `x-api-key: ${apiKey}`,
      'Connection: close',
      '',
      '',
    ];
    socket.write(lines.join('\r\n'), 'latin1');
  });
}

const PATH = '/v1/members?limit=5&offset=10';

describe('sandbox links follow the Host the client called', () => {
  it.each(['localhost', '127.0.0.1'])(
    'links on %s keep that host, the port, the path and the query',
    async (name) => {
      const res = await rawGet(PATH, `${name}:${port}`);
      expect(res.status).toBe(200);
      const page = JSON.parse(res.body) as { href: string; next: string };
      expect(page.href).toBe(`http://${name}:${port}${PATH}`);
      const next = new URL(page.next);
      expect(next.origin).toBe(`http://${name}:${port}`);
      expect(next.pathname).toBe('/v1/members');
      expect(next.searchParams.get('offset')).toBe('15');
      expect(next.searchParams.get('limit')).toBe('5');
    },
  );

  it.each([
    ['a path', 'evil.example/steal?x='],
    ['userinfo', 'user@evil.example'],
    ['a space', 'evil.example x'],
    ['a port out of range', 'evil.example:99999'],
    ['a scheme', 'https://evil.example'],
    ['a backslash', 'evil.example\\@127.0.0.1'],
  ])('ignores a Host header with %s: links stay on the server origin', async (_what, host) => {
    const res = await rawGet(PATH, host);
    if (res.status === 400) return; // node:http refused the request itself: no link at all
    expect(res.status).toBe(200);
    const page = JSON.parse(res.body) as { href: string; next: string };
    expect(page.href).toBe(`http://127.0.0.1:${port}${PATH}`);
    expect(new URL(page.next).origin).toBe(`http://127.0.0.1:${port}`);
    expect(page.next).not.toContain('evil');
  });

  it('keeps the server scheme and path whatever the Host says', () => {
    expect(linkOrigin('http://127.0.0.1:4010', 'localhost:4010')).toBe('http://localhost:4010');
    expect(linkOrigin('http://127.0.0.1:4010', '[::1]:4010')).toBe('http://[::1]:4010');
    expect(linkOrigin('http://127.0.0.1:4010', undefined)).toBe('http://127.0.0.1:4010');
    expect(linkOrigin('http://127.0.0.1:4010', '')).toBe('http://127.0.0.1:4010');
    expect(linkOrigin('http://127.0.0.1:4010', 'evil.example/x')).toBe('http://127.0.0.1:4010');
    expect(linkOrigin('http://127.0.0.1:4010', 'a:b:c')).toBe('http://127.0.0.1:4010');
  });

  it.each(['localhost', '127.0.0.1'])('the real client pages through members on http://%s', async (name) => {
    const baseUrl = `http://${name}:${port}/v1`;
    const tokens = new TokenProvider({
      baseUrl,
      username: sandbox.integrator.username,
      password: sandbox.integrator.password,
    });
    const client = new GymApiClient({ baseUrl, apiKey, tokenProvider: tokens });
    const pages: { offset: number; next: string | undefined }[] = [];
    const items: unknown[] = [];
    for await (const page of client.pages('members', {}, { pageSize: 7 })) {
      pages.push({ offset: page.offset, next: page.next });
      items.push(...page.items);
    }
    expect(pages.length).toBeGreaterThan(3);
    expect(pages[0]?.next?.startsWith(`${baseUrl}/members?`)).toBe(true);
    expect(items).toHaveLength(sandbox.records('club-1', 'members').length);
  });
});
