/**
 * The client over a real socket against scripted local servers: what the sandbox cannot do on
 * purpose (redirects, foreign links, stalls, cut connections). No request may reach a host other
 * than the configured one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  DeadlineExceededError,
  GymApiClient,
  InvalidResponseError,
  type RequestEvent,
  TokenProvider,
  UnavailableError,
} from '../../../lambdas/gym-api';
import {
  clientFor,
  type LocalHandler,
  type LocalServer,
  sendJson,
  startLocalServer,
  withToken,
} from './local-server';

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: LocalHandler): Promise<LocalServer> {
  const s = await startLocalServer(handler);
  servers.push(s);
  return s;
}

describe('credentials never leave the configured host', () => {
  it('a next link to another host is refused and that host sees no request', async () => {
    const elsewhere = await server((_req, res) => sendJson(res, { data: [] }));
    const upstream = await server(
      withToken((_req, res) =>
        sendJson(res, {
          href: 'x',
          next: `${elsewhere.origin}/v1/members/attendance/visits?offset=2&limit=2`,
          data: [{ MemberNumber: 'M1' }, { MemberNumber: 'M2' }],
        }),
      ),
    );
    const { client } = clientFor(upstream);
    const pages = client.pages('visits', {}, { pageSize: 2 });
    await expect(pages.next()).rejects.toMatchObject({ name: 'InvalidResponseError', path: 'next' });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a redirect is not followed: the target sees neither the key nor the token', async () => {
    const elsewhere = await server((_req, res) => sendJson(res, { data: [] }));
    const upstream = await server(
      withToken((_req, res) => {
        res.writeHead(307, { location: `${elsewhere.origin}/v1/members/attendance/visits` });
        res.end();
      }),
    );
    const { client } = clientFor(upstream);
    const err = await client.fetchAll('visits').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect(err).toMatchObject({ status: 307 });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a redirect on POST /token is not followed either', async () => {
    const elsewhere = await server((_req, res) => sendJson(res, {}));
    const upstream = await server((_req, res) => {
      res.writeHead(302, { location: `${elsewhere.origin}/v1/token` });
      res.end();
    });
    const { client } = clientFor(upstream);
    await expect(client.fetchAll('visits')).rejects.toMatchObject({
      name: 'InvalidResponseError',
      operation: 'token',
    });
    expect(elsewhere.requests).toHaveLength(0);
  });
});

describe('timeouts, deadlines and broken connections', () => {
  it('a stalled response times out per request and is retried', async () => {
    const upstream = await server(
      withToken((_req, res, index) => {
        if (index === 1) return; // the first data request never gets an answer
        sendJson(res, { data: [{ MemberNumber: 'M1' }] });
      }),
    );
    const { client, events } = clientFor(upstream, { requestTimeoutMs: 150 });
    const started = Date.now();
    const result = await client.fetchAll('visits');
    expect(result.items).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
    const data = events.filter((e) => e.kind === 'data');
    expect(data[0]?.error).toMatch(/UnavailableError: .*timed out after 150 ms/);
    expect(data[1]?.status).toBe(200);
  });

  it('a slow server and a short deadline fail in time with DeadlineExceededError', async () => {
    const upstream = await server(
      withToken((_req, res) => {
        setTimeout(() => sendJson(res, { data: [] }), 3000).unref();
      }),
    );
    const { client } = clientFor(upstream);
    const started = Date.now();
    const err = await client.fetchAll('visits', {}, { deadline: started + 300 }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1000);
  });

  it('a body cut off mid-stream is UnavailableError and retried', async () => {
    const upstream = await server(
      withToken((_req, res, index) => {
        if (index === 1) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
          res.write('{"data":[{"MemberNumber":"M1"},');
          setTimeout(() => res.socket?.destroy(), 10);
          return;
        }
        sendJson(res, { data: [{ MemberNumber: 'M1' }] });
      }),
    );
    const { client, events } = clientFor(upstream);
    await expect(client.fetchAll('visits')).resolves.toMatchObject({ pageCount: 1 });
    expect(events.filter((e) => e.kind === 'data').map((e) => e.error?.split(':')[0])).toEqual([
      'UnavailableError',
      undefined,
    ]);
  });

  it('a refused connection is UnavailableError after maxAttempts', async () => {
    const gone = await startLocalServer(() => {});
    await gone.close();
    const baseUrl = `${gone.origin}/v1`;
    const events: RequestEvent[] = [];
    const client = new GymApiClient({
      baseUrl,
      apiKey: 'k',
      tokenProvider: new TokenProvider({ baseUrl, username: 'u', password: 'p' }),
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      onRequest: (e) => events.push(e),
    });
    const err = await client.fetchAll('visits').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(events.map((e) => [e.kind, e.attempt])).toEqual([
      ['token', 1],
      ['token', 2],
      ['token', 3],
    ]);
  });

  it('a truncated but complete body (bad JSON) is InvalidResponseError', async () => {
    const upstream = await server(withToken((_req, res) => sendJson(res, '{"href":"h","data":[{"Member')));
    const { client } = clientFor(upstream);
    await expect(client.fetchAll('visits')).rejects.toMatchObject({
      name: 'InvalidResponseError',
      status: 200,
    });
  });
});

describe('int64 over the wire', () => {
  it('payment and POS ids above 2^53 arrive exact', async () => {
    const upstream = await server(
      withToken((req, res) => {
        if (req.url?.startsWith('/v1/members/payment/history')) {
          sendJson(
            res,
            '{"data":[{"Id":9007199254740993,"Refund":{"RefundedPaymentId":9223372036854775807}}]}',
          );
        } else {
          sendJson(
            res,
            '{"data":[{"PosTransactionId":12345678901234567891,"Items":[{"ItemId":9007199254740995}]}]}',
          );
        }
      }),
    );
    const { client } = clientFor(upstream);
    const payments = await client.fetchAll('paymentHistory');
    expect(payments.items[0]?.Id).toBe('9007199254740993');
    expect(payments.items[0]?.Refund?.RefundedPaymentId).toBe('9223372036854775807');
    const pos = await client.fetchAll('posTransactions');
    // 20 digits: beyond int64, so the schema rejects it rather than rounding it
    expect(pos.items).toHaveLength(0);
    expect(pos.invalid[0]?.issues).toMatch(/^data\[0\]\.PosTransactionId: /);
  });
});
