/**
 * One webhook attempt over real sockets: HTTPS to a receiver with its own certificate, the SSRF
 * checks at connect time (a name resolving to a private address, DNS rebinding, a mixed answer),
 * the connection pinned to the checked address, no redirect followed, the response cap, a kept-alive
 * connection the receiver closed as it was reused (sent again on a new one), a host that takes the
 * connection and never completes it (given up after the connect timeout, 5 s, not the 15 s
 * deadline), and the 15 s deadline (an answer at 14 s succeeds, one at 16 s times out). A first
 * attempt's budget (the fan-out's): no answer within it hands the delivery off, saying whether the
 * request had been sent; an error answer begun within it fails with what came of it.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  type Resolver,
  sendWebhook,
} from '../../../lambdas/delivery/http-delivery';

const fixtures = join(import.meta.dirname, 'fixtures');
const ca = readFileSync(join(fixtures, 'receiver-cert.pem'));
const hits: string[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  hits.push(req.url ?? '');
  req.resume();
  req.on('end', () => {
    const url = req.url ?? '/';
    if (url === '/redirect') {
      res.writeHead(302, { location: '/target' });
      res.end();
    } else if (url === '/drip') {
      res.writeHead(500);
      res.write('maintenance until 10:00');
    } else if (url === '/huge') {
      res.writeHead(500);
      res.end(`${'x'.repeat(1_000_000)}`);
    } else if (url.startsWith('/slow/')) {
      setTimeout(
        () => {
          res.writeHead(200);
          res.end('ok');
        },
        Number(url.slice(6)),
      );
    } else {
      res.writeHead(204);
      res.end();
    }
  });
}

let https: Server;
let http: Server;
const port = (s: Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  https = createHttpsServer({ key: readFileSync(join(fixtures, 'receiver-key.pem')), cert: ca }, handler);
  http = createHttpServer(handler);
  await Promise.all([https, http].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))));
});
afterAll(async () => {
  for (const s of [https, http]) {
    (s as unknown as { closeAllConnections(): void }).closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const request = (url: string) => ({ url, headers: { 'webhook-id': 'x' }, body: '{}' });
const resolverTo = (...addresses: string[]): Resolver & { calls: number } => {
  const r = (async () => {
    r.calls++;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as unknown as Resolver & { calls: number };
  r.calls = 0;
  return r;
};

describe('one webhook attempt', () => {
  it('HTTPS by name, the name resolved once and the socket pinned to the checked address', async () => {
    const resolve = resolverTo('127.0.0.1');
    const out = await sendWebhook(request(`https://hooks.test:${port(https)}/ok`), {
      policy: 'local',
      resolve,
      ca,
    });
    expect(out).toMatchObject({ ok: true, status: 204 });
    expect(resolve.calls).toBe(1);
  });

  it('refuses at connect time a name that resolves to a private, loopback or metadata address', async () => {
    for (const addresses of [
      ['127.0.0.1'],
      ['10.0.0.5'],
      ['169.254.169.254'],
      ['93.184.216.34', '127.0.0.1'],
    ]) {
      const out = await sendWebhook(request(`https://hooks.test:${port(https)}/ok`), {
        policy: 'public',
        resolve: resolverTo(...addresses),
        ca,
      });
      expect(out, addresses.join(',')).toMatchObject({ ok: false, kind: 'address' });
    }
    expect(hits).not.toContain('/never');
  });

  it('DNS rebinding: a name checked on add that later resolves to loopback is refused at the connect', async () => {
    let answer = '93.184.216.34';
    const resolve: Resolver = async () => [{ address: answer, family: 4 }];
    answer = '127.0.0.1';
    const out = await sendWebhook(request(`https://rebind.test:${port(https)}/rebound`), {
      policy: 'public',
      resolve,
      ca,
    });
    expect(out).toMatchObject({ ok: false, kind: 'address' });
    expect(hits).not.toContain('/rebound');
  });

  it('an IP literal, http, and loopback are refused outside the local stage', async () => {
    expect(
      await sendWebhook(request(`https://127.0.0.1:${port(https)}/x`), { policy: 'public', ca }),
    ).toMatchObject({ ok: false, kind: 'address' });
    expect(
      await sendWebhook(request(`http://example.com:${port(http)}/x`), { policy: 'public' }),
    ).toMatchObject({ ok: false, kind: 'url' });
  });

  it('a redirect is a failure and is not followed', async () => {
    const out = await sendWebhook(request(`http://127.0.0.1:${port(http)}/redirect`), { policy: 'local' });
    expect(out).toMatchObject({ ok: false, kind: 'http', status: 302 });
    expect(hits).not.toContain('/target');
  });

  it('reads at most the cap of an answer and keeps a short excerpt', async () => {
    const out = await sendWebhook(request(`http://127.0.0.1:${port(http)}/huge`), {
      policy: 'local',
      maxResponseBytes: 4096,
    });
    expect(out.ok).toBe(false);
    if (!out.ok && out.kind !== 'handoff') expect(out.excerpt!.length).toBeLessThanOrEqual(200);
  });

  it('a kept-alive connection the receiver closes as it is reused: sent again on a new connection, once', async () => {
    // A receiver that drops a connection when a second request comes on it (as one closing an idle
    // connection at the moment it is reused, or after a Lambda container was frozen), and says so.
    const requests = new Map<Socket, number>();
    let answered = 0;
    const dropping = createHttpServer((req, res) => {
      const n = (requests.get(req.socket) ?? 0) + 1;
      requests.set(req.socket, n);
      req.resume();
      req.on('end', () => {
        if (n > 1) {
          req.socket.destroy();
          return;
        }
        answered++;
        res.writeHead(204);
        res.end();
      });
    });
    await new Promise<void>((r) => dropping.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${port(dropping)}/hook`;
      expect(await sendWebhook(request(url), { policy: 'local' })).toMatchObject({ ok: true, status: 204 });
      await new Promise((r) => setTimeout(r, 50)); // the connection back in the pool
      const again = await sendWebhook(request(url), { policy: 'local' });
      expect(again).toMatchObject({ ok: true, status: 204 });
      expect(answered).toBe(2);
      expect([...requests.values()].sort()).toEqual([1, 2]);
    } finally {
      dropping.closeAllConnections();
      await new Promise((r) => dropping.close(r));
    }
  });

  it('a connection reset on a new connection is a failure, not sent again', async () => {
    let requests = 0;
    const resetting = createHttpServer((req) => {
      requests++;
      req.socket.destroy();
    });
    await new Promise<void>((r) => resetting.listen(0, '127.0.0.1', () => r()));
    try {
      const out = await sendWebhook(request(`http://127.0.0.1:${port(resetting)}/hook`), { policy: 'local' });
      expect(out).toMatchObject({ ok: false, kind: 'network', error: 'connection reset' });
      expect(requests).toBe(1);
    } finally {
      await new Promise((r) => resetting.close(r));
    }
  });

  it('a host that takes the connection and never completes the TLS handshake: given up after the connect timeout', async () => {
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBe(5_000);
    const held: Socket[] = [];
    const silent = createTcpServer((socket) => {
      held.push(socket);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const out = await sendWebhook(request(`https://127.0.0.1:${port(silent)}/hook`), {
        policy: 'local',
        ca,
        connectTimeoutMs: 300,
      });
      expect(out).toMatchObject({ ok: false, kind: 'timeout', error: 'no connection in 0.3 s' });
      expect(out.ms).toBeLessThan(2_000);
      expect(held).toHaveLength(1);
    } finally {
      for (const s of held) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('an answer at 14 s succeeds; one at 16 s times out at 15 s', { timeout: 40_000 }, async () => {
    const [slow, tooSlow] = await Promise.all([
      sendWebhook(request(`http://127.0.0.1:${port(http)}/slow/14000`), { policy: 'local' }),
      sendWebhook(request(`http://127.0.0.1:${port(http)}/slow/16000`), { policy: 'local' }),
    ]);
    expect(slow).toMatchObject({ ok: true, status: 200 });
    expect(tooSlow).toMatchObject({ ok: false, kind: 'timeout', error: 'timeout after 15 s' });
    if (!tooSlow.ok) expect(tooSlow.ms).toBeLessThan(15_900);
  });

  it("a first attempt's budget: no connection, or no answer, in it is a hand-off (sent or not), not a failure", async () => {
    const held: Socket[] = [];
    const silent = createTcpServer((socket) => {
      held.push(socket);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const budget = (url: string, budgetMs: number) =>
        sendWebhook({ ...request(url), budgetMs }, { policy: 'local', ca });
      const [unconnected, unanswered, answered, dripping] = await Promise.all([
        budget(`https://127.0.0.1:${port(silent)}/hook`, 300),
        budget(`http://127.0.0.1:${port(http)}/slow/3000`, 300),
        budget(`http://127.0.0.1:${port(http)}/budget-ok`, 2_000),
        budget(`http://127.0.0.1:${port(http)}/drip`, 300),
      ]);
      expect(unconnected).toMatchObject({ ok: false, kind: 'handoff', sent: false });
      expect(unconnected.ms).toBeLessThan(2_000);
      expect(unanswered).toMatchObject({
        ok: false,
        kind: 'handoff',
        sent: true,
        error: 'no answer in 0.3 s, handed off (the receiver may have the request)',
      });
      expect(unanswered.ms).toBeLessThan(2_000);
      expect(hits).toContain('/slow/3000');
      expect(answered).toMatchObject({ ok: true, status: 204 });
      // An error answer begun within the budget is a failure, with what was read of it.
      expect(dripping).toMatchObject({
        ok: false,
        kind: 'http',
        status: 500,
        excerpt: 'maintenance until 10:00',
      });
    } finally {
      for (const s of held) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
