/**
 * Failure handling against the sandbox over a real socket: 400, 429 (throttle and spent quota),
 * injected 5xx, slow responses against a deadline, int64 precision end to end, and a `next` link
 * rewritten to point at another host.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  DeadlineExceededError,
  type FetchFn,
  InvalidResponseError,
  QuotaExceededError,
  UnavailableError,
} from '../../../lambdas/gym-api';
import type { Sandbox } from '../../../sandbox';
import { type LocalServer, sendJson, startLocalServer } from './local-server';
import { expectedItems, recordingClient, rejection, resetFaults, startTestSandbox } from './sandbox-harness';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ clubs: 1, members: 120 });
});
afterEach(() => resetFaults(sandbox));
afterAll(async () => {
  await sandbox.close();
});

/** A fetch that lets a test rewrite requests or responses on their way. */
function tamperingFetch(options: {
  url?: (url: string) => string;
  body?: (body: string) => string;
}): FetchFn {
  return async (input, init) => {
    const url = options.url ? options.url(String(input)) : String(input);
    const response = await fetch(url, init);
    if (!options.body || !response.ok) return response;
    const text = await response.text();
    return new Response(options.body(text), { status: response.status, headers: response.headers });
  };
}

describe('400', () => {
  it('a query the client can tell is bad is refused before any request', async () => {
    const { client, events } = recordingClient(sandbox);
    const usedBefore = sandbox.requestCounts(sandbox.clubs[0]!.clubId).used;
    for (const query of [
      { fromdate: '2025-03-01' },
      { fromdate: '2025-03-01T00:00:00Z' },
      { status: 'Unknown' },
    ]) {
      await expect(client.fetchAll('visits', query as never)).rejects.toBeInstanceOf(BadRequestError);
    }
    expect(events).toHaveLength(0);
    expect(sandbox.requestCounts(sandbox.clubs[0]!.clubId).used).toBe(usedBefore);
  });

  it("the sandbox's own 400 is BadRequestError, with its message, and is not retried", async () => {
    // Corrupt the query on the wire, past the client's checks.
    const fetch = tamperingFetch({ url: (u) => u.replace(/fromdate=[^&]+/, 'fromdate=yesterday') });
    const { client, dataEvents } = recordingClient(sandbox, { fetch });
    const err = await rejection(client.fetchAll('visits', { fromdate: '2025-03-01T00:00:00' }));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, operation: 'visits', retryable: false });
    expect((err as Error).message).toMatch(/fromdate/i);
    expect(dataEvents()).toHaveLength(1);
  });
});

describe('429', () => {
  it('throttling: one retry after a back-off of at least 5 s, then QuotaExceededError', async () => {
    sandbox.faults.rate429 = 1;
    const waits: number[] = [];
    const { client, dataEvents, tokenEvents } = recordingClient(sandbox, {
      client: {
        sleep: async (ms) => {
          waits.push(ms); // no real 5 s wait in a test
        },
      },
    });
    // The token request is throttled too: same policy, reported as operation 'token'.
    const tokenErr = await rejection(client.fetchAll('members'));
    expect(tokenErr).toMatchObject({ name: 'QuotaExceededError', operation: 'token' });
    expect(waits).toEqual([5000]);
    expect(tokenEvents().map((e) => e.status)).toEqual([429, 429]);
    expect(dataEvents()).toHaveLength(0);

    sandbox.faults.rate429 = 0;
    await client.fetchAll('members'); // the token is cached from here on
    sandbox.faults.rate429 = 1;
    waits.length = 0;
    const before = dataEvents().length;

    const err = await rejection(client.fetchAll('members'));

    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 1000, retryable: true });
    expect(waits).toEqual([5000]);
    expect(
      dataEvents()
        .slice(before)
        .map((e) => e.status),
    ).toEqual([429, 429]);
  });

  it('a throttle that clears after the back-off is survived', async () => {
    const { client } = recordingClient(sandbox, { client: { sleep: async () => {} } });
    await client.fetchAll('debtCollection');
    sandbox.failNext(1, 429, { pathPrefix: '/financial' });
    const result = await client.fetchAll('debtCollection');
    expect(result.items).toEqual(expectedItems(sandbox, 0, 'debtCollection'));
  });

  it('a spent monthly quota is QuotaExceededError at once (Retry-After is far beyond the limit)', async () => {
    const tiny = await startTestSandbox({ clubs: [{ plan: 'basic' }], members: 10, quotaScale: 0.000002 });
    try {
      const waits: number[] = [];
      const { client, dataEvents } = recordingClient(tiny, {
        client: {
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      });
      await client.fetchAll('debtCollection');
      await client.fetchAll('debtCollection'); // the plan's 2 requests are spent now
      const err = await rejection(client.fetchAll('debtCollection'));
      expect(err).toBeInstanceOf(QuotaExceededError);
      expect((err as QuotaExceededError).retryAfterMs).toBeGreaterThan(30_000);
      expect(waits).toEqual([]);
      expect(dataEvents().map((e) => e.status)).toEqual([200, 200, 429]);
      expect(tiny.requestCounts(tiny.clubs[0]!.clubId)).toMatchObject({ used: 2, rejected: 1 });
    } finally {
      await tiny.close();
    }
  });
});

describe('5xx and deadlines', () => {
  it('retries injected 5xx (JSON, HTML and text bodies) and delivers the same data', async () => {
    const { client, dataEvents } = recordingClient(sandbox, { client: { retry: { maxAttempts: 12 } } });
    const expected = expectedItems(sandbox, 0, 'visits');
    sandbox.faults.errorRate5xx = 0.4;

    const result = await client.fetchAll('visits', {}, { pageSize: 100 });

    expect(result.items).toEqual(expected);
    const statuses = dataEvents().map((e) => e.status);
    expect(statuses.filter((s) => s !== undefined && s >= 500).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200)).toHaveLength(result.pageCount);
  });

  it('gives up with UnavailableError after maxAttempts of 5xx', async () => {
    const { client, dataEvents } = recordingClient(sandbox);
    await client.fetchAll('debtCollection');
    sandbox.faults.errorRate5xx = 1;
    const err = await rejection(client.fetchAll('debtCollection'));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(dataEvents()).toHaveLength(1 + 5);
  });

  it('a slow sandbox and a short deadline fail in time', async () => {
    const { client } = recordingClient(sandbox);
    await client.fetchAll('debtCollection'); // token cached
    sandbox.faults.latencyMs = 2000;
    const started = Date.now();
    const err = await rejection(client.fetchAll('visits', {}, { deadline: started + 300 }));
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1000);
  });

  it('retries stop before the deadline rather than waiting past it', async () => {
    const { client, sleeps } = recordingClient(sandbox, {
      client: { retry: { maxAttempts: 100, baseDelayMs: 100, maxDelayMs: 400 } },
    });
    await client.fetchAll('debtCollection');
    sandbox.faults.errorRate5xx = 1;
    const started = Date.now();
    const deadline = started + 800;
    const err = await rejection(client.fetchAll('visits', {}, { deadline }));
    // Either the next wait would have passed the deadline (the last 5xx is thrown), or a timer
    // overshoot left no time for the request (DeadlineExceededError caused by the last 5xx).
    const cause = err instanceof DeadlineExceededError ? err.cause : err;
    expect(cause).toBeInstanceOf(UnavailableError);
    expect(Date.now()).toBeLessThan(deadline + 250); // slack for a busy CI machine
    expect(sleeps.length).toBeGreaterThan(1);
  });
});

describe('int64 precision end to end', () => {
  it('payment and POS ids above 2^53 come through exactly as the wire carries them', async () => {
    const { client, tokens } = recordingClient(sandbox);
    const token = await tokens.getToken();
    const raw = await fetch(`${sandbox.url}/members/payment/history?limit=500`, {
      headers: { authorization: `Bearer ${token}`, 'x-api-key': sandbox.clubs[0]!.apiKey },
    }).then((r) => r.text());
    // Payment ids are int64 and large; the nested IdName ids are small, so 16+ digits picks the former.
    const wireIds = [...raw.matchAll(/"Id":(\d{16,})/g)].map((m) => m[1]);
    expect(wireIds.length).toBeGreaterThan(10);
    expect(wireIds.some((id) => BigInt(id!) > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(wireIds.some((id) => String(Number(id)) !== id)).toBe(true); // JSON.parse would round these

    const payments = await client.fetchAll('paymentHistory');
    expect(payments.items.map((p) => p.Id).filter((id) => (id ?? '').length >= 16)).toEqual(wireIds);

    const pos = await client.fetchAll('posTransactions');
    const posIds = pos.items.map((t) => t.PosTransactionId);
    expect(posIds.some((id) => BigInt(id ?? '0') > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(new Set(posIds).size).toBe(posIds.length); // rounding would have collapsed neighbours
  });
});

describe('next pointing to another host', () => {
  let recorder: LocalServer;
  beforeAll(async () => {
    recorder = await startLocalServer((_req, res) => sendJson(res, { data: [] }));
  });
  afterAll(async () => {
    await recorder.close();
  });

  it('is refused, and the other host receives no request at all', async () => {
    const fetch = tamperingFetch({
      body: (text) => text.replace(/"next":"http:\/\/[^/]+/, `"next":"${recorder.origin}`),
    });
    const { client } = recordingClient(sandbox, { fetch });
    const err = await rejection(client.fetchAll('visits', {}, { pageSize: 10 }));
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect(err).toMatchObject({ path: 'next' });
    expect((err as Error).message).toContain('another origin');
    expect(recorder.requests).toHaveLength(0);
  });
});
