/**
 * Poison mode, response habits of the pages, over real HTTP: offset or limit ignored and a next
 * that does not advance (for an episode of requests), the previous page again, a huge page streamed
 * (about 100 MB by default, without the sandbox holding it; its shapes; a client going away), and
 * the habits drawing from a stream of their own. The sandbox: `poison-responses-sandbox.ts`;
 * credentials echoed and tokens with a control character: `poison-responses-credentials.test.ts`;
 * the settings' validation: `poison-settings.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { type PoisonInput, type PoisonLogEntry, startSandbox } from '../../../sandbox';
import { HUGE_PAGE_SHAPES } from '../../../sandbox/poison/huge-page';
import {
  apiKey,
  FROM,
  logSince,
  START,
  sandbox,
  token,
  useResponseSandbox,
  visits,
  withPoison,
} from './poison-responses-sandbox';
import { getPage, rawGet, requestToken } from './sandbox-http';

const VISITS = '/members/attendance/visits';
const MiB = 1024 * 1024;

describe('sandbox poison mode: response habits', () => {
  useResponseSandbox();

  const page = (offset: number, limit: number) =>
    getPage(sandbox, token, apiKey, `${VISITS}?fromdate=${FROM}&offset=${offset}&limit=${limit}`);
  const nextOffset = (p: { next: string }) => Number(new URL(p.next).searchParams.get('offset'));

  it('ignores offset for an episode: the first page each time, with a next that advances', async () => {
    const since = sandbox.poison.log.lastSeq;
    const pages = await withPoison({ offsetIgnored: 1, episodeRequests: 3 }, async () => [
      await page(0, 5),
      await page(5, 5),
      await page(10, 5),
    ]);
    for (const [i, p] of pages.entries()) {
      expect(p.data).toEqual(visits.slice(0, 5));
      expect(nextOffset(p)).toBe(5 * i + 5);
    }
    const log = logSince(since);
    expect(log.map((e) => [e.kind, e.variant, e.request?.offset])).toEqual([
      ['offsetIgnored', 'first-page', 0],
      ['offsetIgnored', 'first-page', 5],
      ['offsetIgnored', 'first-page', 10],
    ]);
    expect(log.every((e) => e.where === 'response' && e.expect === 'recover' && e.clubId === 'club-1')).toBe(
      true,
    );
    expect((await page(5, 5)).data).toEqual(visits.slice(5, 10));
  });

  it('ignores limit: more items than asked (twice, one more, or the default page)', async () => {
    const since = sandbox.poison.log.lastSeq;
    const pages = await withPoison({ limitIgnored: 1, episodeRequests: 1 }, async () => {
      const out = [];
      for (let i = 0; i < 15; i++) out.push(await page(20, 5));
      return out;
    });
    const log = logSince(since);
    const sizes: Record<string, number> = { double: 10, 'plus-one': 6, 'default-size': 500 };
    expect(new Set(log.map((e) => e.variant))).toEqual(new Set(Object.keys(sizes)));
    for (const [i, p] of pages.entries()) {
      const want = sizes[log[i]?.variant ?? ''] ?? 0;
      expect(p.data).toEqual(visits.slice(20, 20 + want));
      expect(p.data.length).toBeGreaterThan(5);
      expect(nextOffset(p)).toBe(25);
    }
  });

  it('sends a next that does not advance: the same offset, offset 0, or backwards', async () => {
    const since = sandbox.poison.log.lastSeq;
    const pages = await withPoison({ nextStuck: 1, episodeRequests: 2 }, async () => {
      const out = [];
      for (let i = 0; i < 12; i++) out.push(await page(10, 5));
      return out;
    });
    const log = logSince(since);
    const offsets: Record<string, number> = { 'same-offset': 10, 'offset-zero': 0, backwards: 5 };
    expect(new Set(log.map((e) => e.variant))).toEqual(new Set(Object.keys(offsets)));
    for (const [i, p] of pages.entries()) {
      expect(p.data).toEqual(visits.slice(10, 15));
      expect(nextOffset(p)).toBe(offsets[log[i]?.variant ?? '']);
    }
    // Episodes of two requests: the variant changes only between episodes.
    expect(log[0]?.variant).toBe(log[1]?.variant);
  });

  it('repeats the previous response of the same club and operation, links included', async () => {
    const since = sandbox.poison.log.lastSeq;
    const [first, second, third] = await withPoison({ repeatedPage: 1 }, async () => [
      await page(0, 5),
      await page(5, 5),
      await page(10, 5),
    ]);
    expect(first?.data).toEqual(visits.slice(0, 5));
    expect(second?.data).toEqual(visits.slice(0, 5));
    expect(third?.data).toEqual(visits.slice(0, 5));
    // The previous response whole, as a stale cache sends it: its href and next are the first's.
    expect(second && nextOffset(second)).toBe(5);
    expect((second as { href?: string } | undefined)?.href).toBe(
      (first as { href?: string } | undefined)?.href,
    );
    expect(logSince(since).map((e) => [e.kind, e.variant, e.request?.offset])).toEqual([
      ['repeatedPage', 'previous-page', 5],
      ['repeatedPage', 'previous-page', 10],
    ]);
  });

  it('streams a huge page of about 100 MB without holding it: the heap does not grow by its size', async () => {
    const since = sandbox.poison.log.lastSeq;
    // Sandbox and client share this process: memory is sampled from before the request to the
    // last byte, every few milliseconds (a page built in memory shows up the moment it exists).
    const before = process.memoryUsage();
    let peak = 0;
    const sample = () => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed - before.heapUsed + (now.arrayBuffers - before.arrayBuffers));
    };
    const sampler = setInterval(sample, 5);
    let bytes = 0;
    let head = '';
    try {
      const res = await withPoison({ hugePage: 1 }, () =>
        fetch(`${sandbox.url}${VISITS}?limit=50`, {
          headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey },
        }),
      );
      sample();
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      for (let chunks = 0; ; chunks++) {
        const { done, value } = await reader.read();
        if (done) break;
        if (chunks === 0) head = Buffer.from(value.subarray(0, 200)).toString();
        if (chunks % 16 === 0) sample();
        bytes += value.byteLength;
      }
    } finally {
      clearInterval(sampler);
    }
    const [entry] = logSince(since);
    expect(entry?.kind).toBe('hugePage');
    expect(bytes).toBe(100 * MiB);
    expect(head.startsWith('{"href":')).toBe(true);
    // The sandbox writes one shared 64 KB buffer: a page built in memory adds 100 MB or more here
    // (measured 450 MB); streamed, 4 to 41 MB of the reading client's buffers awaiting collection.
    expect(peak).toBeLessThan(70 * MiB);
    expect((await page(0, 5)).data).toEqual(visits.slice(0, 5));
  });

  it('puts the bulk in a padding record, a huge string, an envelope field or whitespace, with or without a length', async () => {
    const since = sandbox.poison.log.lastSeq;
    const seen = new Set<string>();
    await withPoison({ hugePage: 1, hugePageBytes: 2 * MiB }, async () => {
      for (let i = 0; i < 16; i++) {
        const res = await fetch(`${sandbox.url}${VISITS}?fromdate=${FROM}&limit=4`, {
          headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey },
        });
        const text = await res.text();
        const entry = logSince(since).at(-1) as PoisonLogEntry;
        const [shape, transfer] = entry.variant.split('/');
        seen.add(entry.variant);
        expect(Buffer.byteLength(text), entry.variant).toBe(2 * MiB);
        expect(res.headers.get('content-length'), entry.variant).toBe(
          transfer === 'length' ? String(2 * MiB) : null,
        );
        expect(entry.marker).toMatch(/^~poison-r\d+$/);
        expect(sandbox.poison.find(text.slice(0, 4096) + text.slice(-4096))).toEqual([entry]);
        const body = parseJsonPreservingInt64(text) as { data: unknown[]; next: string };
        expect(nextOffset(body)).toBe(4);
        if (shape === 'single-string') expect(typeof body.data[0]).toBe('string');
        else expect(body.data.slice(0, 4)).toEqual(visits.slice(0, 4));
      }
    });
    const shapes = new Set([...seen].map((v) => v.split('/')[0]));
    expect(shapes).toEqual(new Set(HUGE_PAGE_SHAPES));
    expect(new Set([...seen].map((v) => v.split('/')[1]))).toEqual(new Set(['length', 'chunked']));
  });

  it('stops streaming when the client goes away, and serves the next request', async () => {
    const abort = new AbortController();
    await withPoison({ hugePage: 1, hugePageBytes: 500 * MiB }, async () => {
      const res = await fetch(`${sandbox.url}${VISITS}?limit=5`, {
        headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey },
        signal: abort.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
    });
    const started = performance.now();
    expect((await page(0, 5)).data).toEqual(visits.slice(0, 5));
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('draws the other faults as without poison: response habits have a stream of their own', async () => {
    const statuses = async (poison: PoisonInput) => {
      const s = await startSandbox({ seed: 4, clubs: 1, members: 20, historyDays: 1, startTime: START });
      try {
        const t = await requestToken(s);
        Object.assign(s.faults, { errorRate5xx: 0.4, poison });
        const out: number[] = [];
        for (let i = 0; i < 30; i++)
          out.push(
            (await rawGet(s, `${VISITS}?limit=3`, { token: t, apiKey: s.clubs[0]?.apiKey ?? '' })).status,
          );
        return out;
      } finally {
        await s.close();
      }
    };
    const plain = await statuses(false);
    expect(new Set(plain)).not.toEqual(new Set([200]));
    expect(await statuses({ repeatedPage: 0.5, limitIgnored: 0.5, nextStuck: 0.3 })).toEqual(plain);
  });
});
