/**
 * Compressed answers over a real socket: the client offers gzip (Node's fetch does), reads what it
 * decodes under the same byte cap as a plain body, so a small gzip that inflates to gigabytes is a
 * body over the cap, never memory; a body that is not the gzip it says is a typed, retried error.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../../lambdas/gym-api';
import { clientFor, type LocalHandler, type LocalServer, startLocalServer, withToken } from './local-server';

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function clientOf(handler: LocalHandler, maxResponseBytes?: number, requestTimeoutMs = 300) {
  const upstream = await startLocalServer(withToken(handler));
  servers.push(upstream);
  const { client, events } = clientFor(upstream, {
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
    ...(maxResponseBytes ? { maxResponseBytes } : {}),
    requestTimeoutMs,
  });
  return { client, events, upstream };
}

/** A page whose one record is `bytes` of 'a', gzipped (about 1,000 times smaller). */
function gzipBomb(bytes: number): Buffer {
  const inflated = Buffer.concat([
    Buffer.from('{"href":"h","data":[{"MemberNumber":"'),
    Buffer.alloc(bytes, 0x61),
    Buffer.from('"}]}'),
  ]);
  return gzipSync(inflated, { level: 9 });
}

describe('gzip answers', () => {
  it('the client offers gzip and reads a gzipped page', async () => {
    const page = { href: 'h', data: [{ MemberNumber: 'M1', VisitDateTime: '2025-03-01T06:00:00' }] };
    const { client, upstream } = await clientOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify(page)));
    });
    const result = await client.fetchAll('visits');
    expect(result.items).toEqual(page.data);
    expect(String(upstream.requests.at(-1)?.headers['accept-encoding'])).toContain('gzip');
  });

  it('a gzip bomb (64 KB inflating to 64 MB) is a body over the cap, not memory', async () => {
    const bomb = gzipBomb(64 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(128 * 1024);
    const { client } = await clientOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    }, 256 * 1024);
    const before = process.memoryUsage().rss;
    const err = await client.fetchAll('visits', {}, { pageSize: 2 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ResponseTooLargeError' });
    // The cap (256 KB of decoded text here) is what is held, not the 64 MB.
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('a gzip body that stalls half-way is given up at the request timeout, not waited for', async () => {
    const page = { href: 'h', data: Array.from({ length: 400 }, (_, i) => ({ MemberNumber: `M${i}` })) };
    const gzipped = gzipSync(JSON.stringify(page));
    const { client, events } = await clientOf((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(gzipped.length),
      });
      res.write(gzipped.subarray(0, gzipped.length >> 1)); // then nothing: the rest never comes
    });
    const started = Date.now();
    const err = await client.fetchAll('visits').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(events.filter((e) => e.kind === 'data')).toHaveLength(2);
  });

  it('a body that is not the gzip it claims is UnavailableError with the reason, retried', async () => {
    const { client, events } = await clientOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('this is not gzip at all');
    });
    const err = await client.fetchAll('visits').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toMatch(/Z_DATA_ERROR|incorrect header/);
    expect(events.filter((e) => e.kind === 'data')).toHaveLength(2);
  });
});
