/**
 * Compressed pages: the sandbox gzips a data page for a client that offers gzip (as most HTTP front
 * ends of an API do; the seed does not say), and never when told not to. The client reads the same
 * records either way over a real socket.
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GymApiClient, TokenProvider } from '../../../lambdas/gym-api';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';
let gzipping: Sandbox;
let plain: Sandbox;

beforeAll(async () => {
  [gzipping, plain] = await Promise.all([
    startSandbox({ seed: 4, clubs: 1, members: 80, startTime: START }),
    startSandbox({ seed: 4, clubs: 1, members: 80, startTime: START, compression: 'none' }),
  ]);
});
afterAll(() => Promise.all([gzipping.close(), plain.close()]));

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** One GET with exactly the Accept-Encoding given (node:http decodes nothing). */
async function rawGet(sandbox: Sandbox, path: string, acceptEncoding?: string): Promise<RawAnswer> {
  const token = await requestToken(sandbox);
  const url = new URL(`${sandbox.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        headers: {
          authorization: `Bearer ${token}`,
          'x-api-key': sandbox.clubs[0]?.apiKey ?? '',
          ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const MEMBERS = '/members?limit=50';

describe('sandbox page compression', () => {
  it('gzips a page for a client that offers gzip, with its length and Vary', async () => {
    const answer = await rawGet(gzipping, MEMBERS, 'gzip, deflate');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers.vary).toBe('accept-encoding');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    const text = gunzipSync(answer.body).toString('utf8');
    expect((JSON.parse(text) as { data: unknown[] }).data).toHaveLength(50);
    expect(answer.body.length).toBeLessThan(text.length / 3);
  });

  it('answers as it is when gzip is not offered, refused with q=0, or the sandbox does not compress', async () => {
    for (const [sandbox, offer] of [
      [gzipping, undefined],
      [gzipping, 'identity'],
      [gzipping, 'gzip;q=0, identity'],
      [plain, 'gzip'],
    ] as const) {
      const answer = await rawGet(sandbox, MEMBERS, offer);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect((JSON.parse(answer.body.toString('utf8')) as { data: unknown[] }).data).toHaveLength(50);
    }
  });

  it('the client reads the same records from a gzipping and a plain API', async () => {
    const read = async (sandbox: Sandbox) => {
      const tokenProvider = new TokenProvider({ baseUrl: sandbox.url, ...sandbox.integrator });
      const client = new GymApiClient({
        baseUrl: sandbox.url,
        apiKey: sandbox.clubs[0]?.apiKey ?? '',
        tokenProvider,
      });
      const items: unknown[] = [];
      for await (const page of client.pages('members', {}, { pageSize: 30 })) items.push(...page.items);
      return items;
    };
    const [zipped, asIs] = await Promise.all([read(gzipping), read(plain)]);
    expect(zipped.length).toBeGreaterThan(30);
    expect(zipped).toEqual(asIs);
  });

  it('refuses an unknown compression setting by name', async () => {
    await expect(startSandbox({ compression: 'brotli' as never })).rejects.toThrow(
      "compression must be 'gzip' or 'none', got brotli",
    );
  });
});
