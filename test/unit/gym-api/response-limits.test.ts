/**
 * What the client does with responses past its size limits: bodies over the cap (a page asked again
 * with fewer records, one record over it skipped, limit ignored, Content-Length, error bodies), the
 * gate large bodies wait at, and records past the depth and size limits. Injected fetch, no network.
 */
import { describe, expect, it } from 'vitest';
import { BodyGate } from '../../../lambdas/gym-api/body-budget';
import {
  DeadlineExceededError,
  ResponseTooLargeError,
  StaleResponseError,
  UnavailableError,
} from '../../../lambdas/gym-api/errors';
import { MAX_ASKS_ALONE } from '../../../lambdas/gym-api/over-cap-policy';
import { type Handler, json, type RecordedRequest } from './fake-upstream';
import { harness, rejection } from './hostile-harness';

const param = (c: RecordedRequest, name: string) => c.url.searchParams.get(name);

/** Visits 0..total-1; `bulky(i)` gives a record extra bytes. */
function visits(total: number, bulky: (i: number) => number = () => 0): Handler {
  return (request) => {
    const offset = Number(param(request, 'offset') ?? 0);
    const limit = Number(param(request, 'limit') ?? 500);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, k) => ({
      MemberNumber: `M${offset + k}`,
      VisitDateTime: '2025-03-01T06:00:00',
      ...(bulky(offset + k) > 0 ? { Door: 'd'.repeat(bulky(offset + k)) } : {}),
    }));
    return json({ href: request.url.href, data });
  };
}

describe('the response cap', () => {
  it('asks again with a tenth of the records when a page is over the cap, then goes on at full size', async () => {
    // Prepare: 1 KB records, a 64 KB cap: 500 of them are 500 KB, 50 fit
    const h = harness(
      visits(120, () => 1000),
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const result = await h.client.fetchAll('visits', {}, { pageSize: 100 });
    // Assess
    expect(result.items.map((v) => v.MemberNumber)).toEqual(Array.from({ length: 120 }, (_, i) => `M${i}`));
    expect(h.dataCalls().map((c) => `${param(c, 'offset')}/${param(c, 'limit')}`)).toEqual(
      [
        '0/100',
        '0/10',
        '10/100',
        '10/10',
        '20/100',
        '20/10',
        ...Array.from({ length: 10 }, (_, k) => [`${30 + k * 10}/100`, `${30 + k * 10}/10`]).flat(),
      ].slice(0, h.dataCalls().length),
    );
    expect(result.invalid).toEqual([]);
  });

  it('skips one record over the cap on its own as an invalid item, and reads the rest', async () => {
    // Prepare: record 3 is 200 KB; the cap is 64 KB
    const h = harness(
      visits(8, (i) => (i === 3 ? 200_000 : 0)),
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const result = await h.client.fetchAll('visits', {}, { pageSize: 10 });
    // Assess
    expect(result.items.map((v) => v.MemberNumber)).toEqual(['M0', 'M1', 'M2', 'M4', 'M5', 'M6', 'M7']);
    expect(result.invalid).toHaveLength(1);
    expect(result.invalid[0]).toMatchObject({ offset: 3 });
    expect(result.invalid[0]!.issues).toMatch(
      /offset 3 is over the 0\.1 MB response cap on its own; skipped/,
    );
    expect(JSON.stringify(result.invalid[0]!.raw)).toMatch(/M3/);
    expect(JSON.stringify(result.invalid[0]!.raw).length).toBeLessThan(4000);
  });

  it('skips a run of huge records one by one (a bad stretch of stored records never stops the source)', async () => {
    // Prepare: records 3, 4 and 5 are 200 KB each
    const h = harness(
      visits(9, (i) => (i >= 3 && i <= 5 ? 200_000 : 0)),
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const result = await h.client.fetchAll('visits', {}, { pageSize: 10 });
    // Assess
    expect(result.items.map((v) => v.MemberNumber)).toEqual(['M0', 'M1', 'M2', 'M6', 'M7', 'M8']);
    expect(result.invalid.map((i) => i.offset)).toEqual([3, 4, 5]);
  });

  it('counts a record over the cap under a fingerprint of its start: one record at two offsets agrees, two records differ', async () => {
    // Prepare: records 3 and 5 are 200 KB each; the upstream serves record 3 again at offset 4
    // (an unstable order of equal times), where record 4 should be
    const base = visits(7, (i) => (i === 3 || i === 5 ? 200_000 : 0));
    const h = harness(
      (request, index) => {
        const offset = Number(param(request, 'offset'));
        const limit = Number(param(request, 'limit'));
        if (limit === 1 && offset === 4) {
          const record3 = {
            MemberNumber: 'M3',
            VisitDateTime: '2025-03-01T06:00:00',
            Door: 'd'.repeat(200_000),
          };
          return json({ href: request.url.href, data: [record3] });
        }
        return base(request, index);
      },
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const pages = [];
    for await (const page of h.client.pages('visits', {}, { pageSize: 10 })) pages.push(page);
    // Assess
    const skipped = pages.flatMap((p) => p.invalid.map((i) => ({ offset: p.offset, id: i.rowIdentity })));
    expect(skipped.map((s) => s.offset)).toEqual([3, 4, 5]);
    expect(skipped[0]!.id).toMatch(/^oversized\|visits\|[\w-]{43}$/);
    expect(skipped[1]!.id).toBe(skipped[0]!.id);
    expect(skipped[2]!.id).not.toBe(skipped[0]!.id);
  });

  it('refuses an answer over the cap that names another request (a previous response served again), never skipping the record at this offset', async () => {
    // Prepare: 8 visits; record 3 asked for alone is answered, twice alike, with a 200 KB response
    // whose href is the page at offset 0 (a cache serving a previous response again)
    const plain = visits(8);
    const h = harness(
      (request, index) => {
        const offset = Number(param(request, 'offset'));
        const limit = Number(param(request, 'limit'));
        if (limit > 1 && offset <= 3 && offset + limit > 3)
          return json({ href: request.url.href, Debug: 'x'.repeat(200_000), data: [] });
        if (limit === 1 && offset === 3) {
          const previous = new URL(request.url.href);
          previous.searchParams.set('offset', '0');
          previous.searchParams.set('limit', '10');
          return json({ href: previous.href, data: [{ MemberNumber: 'M0', Door: 'd'.repeat(200_000) }] });
        }
        return plain(request, index);
      },
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const err = await rejection(h.client.fetchAll('visits', {}, { pageSize: 10 }));
    // Assess
    expect(err).toBeInstanceOf(StaleResponseError);
    expect((err as Error).message).toMatch(
      /answers another request \(its href has offset=0, the request offset=3\)/,
    );
  });

  it('never skips a record for answers that ignore limit (several records to a request for one), alike or not', async () => {
    // Prepare: record 5 is 200 KB. The first two requests for record 3 alone are answered with ten
    // records (limit ignored, the same answer twice: it holds record 5), then the upstream honours it
    const base = visits(8, (i) => (i === 5 ? 200_000 : 0));
    let ignored = 0;
    const h = harness(
      (request, index) => {
        const offset = Number(param(request, 'offset'));
        const limit = Number(param(request, 'limit'));
        if (limit === 1 && offset === 3 && ignored < 2) {
          ignored++;
          const data = [3, 4, 5, 6, 7].map((i) => ({
            MemberNumber: `M${i}`,
            VisitDateTime: '2025-03-01T06:00:00',
            ...(i === 5 ? { Door: 'd'.repeat(200_000) } : {}),
          }));
          return json({ href: request.url.href, data });
        }
        return base(request, index);
      },
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const result = await h.client.fetchAll('visits', {}, { pageSize: 10 });
    // Assess
    expect(result.items.map((v) => v.MemberNumber)).toEqual(['M0', 'M1', 'M2', 'M3', 'M4', 'M6', 'M7']);
    expect(result.invalid.map((i) => i.offset)).toEqual([5]);
    expect(ignored).toBe(2);
  });

  it('gives up when responses stay over the cap one record at a time (limit ignored): a few requests', async () => {
    // Prepare: every response is 200 KB, whatever the limit
    const h = harness(() => json({ data: [{ MemberNumber: 'x', Door: 'd'.repeat(200_000) }] }), {
      maxResponseBytes: 64 * 1024,
    });
    // Act
    const err = await rejection(h.client.fetchAll('visits', {}, { pageSize: 500 }));
    // Assess
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as Error).message).toMatch(/ignores limit/);
    // 500, 50, 5, then two requests (asked alone, and once more) for each of 11 offsets: bounded
    expect(h.dataCalls().length).toBeLessThanOrEqual(25);
  });

  it('skips a record alone over the cap only when two answers begin alike: one-off padded answers cost nothing', async () => {
    // Prepare: 8 small visits. A page holding record 3 is padded (so the client asks for it alone);
    // the first two answers for record 3 alone are padded too, differently (a 200 KB debug field),
    // the third is the plain record
    const plain = visits(8);
    let padded = 0;
    const pad = (request: RecordedRequest, text: string) =>
      json({ href: request.url.href, Debug: `${text} ${'x'.repeat(200_000)}`, data: [] });
    const h = harness(
      (request, index) => {
        const offset = Number(param(request, 'offset'));
        const limit = Number(param(request, 'limit'));
        if (limit > 1 && offset <= 3 && offset + limit > 3) return pad(request, 'page');
        if (limit === 1 && offset === 3 && padded < 2) return pad(request, `answer ${++padded}`);
        return plain(request, index);
      },
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const result = await h.client.fetchAll('visits', {}, { pageSize: 10 });
    // Assess: nothing skipped, record 3 read from the third answer
    expect(result.invalid).toEqual([]);
    expect(result.items.map((v) => v.MemberNumber)).toEqual(Array.from({ length: 8 }, (_, i) => `M${i}`));
    expect(padded).toBe(2);
  });

  it('skips a record whose answers never begin alike after MAX_ASKS_ALONE of them (an upstream that stamps each)', async () => {
    // Prepare: record 2 is 200 KB, and every answer carries a new request id before `data`
    let stamp = 0;
    const bulky = visits(5, (i) => (i === 2 ? 200_000 : 0));
    const h = harness(
      async (request, index) => {
        const response = await bulky(request, index);
        const body = (await response.text()).replace('{', `{"RequestId":"${++stamp}",`);
        return new Response(body, { status: response.status, headers: response.headers });
      },
      { maxResponseBytes: 64 * 1024 },
    );
    // Act
    const result = await h.client.fetchAll('visits', {}, { pageSize: 10 });
    // Assess: skipped after 4 answers alone, the rest read
    expect(result.items.map((v) => v.MemberNumber)).toEqual(['M0', 'M1', 'M3', 'M4']);
    expect(result.invalid.map((i) => i.offset)).toEqual([2]);
    const alone = h.dataCalls().filter((c) => param(c, 'offset') === '2' && param(c, 'limit') === '1');
    expect(alone).toHaveLength(MAX_ASKS_ALONE);
  });

  it('refuses a body whose Content-Length is over the cap reading only its head', async () => {
    // Prepare: streams that would be 10 MB each, announced as such
    let pulled = 0;
    const h = harness(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled++;
              controller.enqueue(new Uint8Array(64 * 1024));
              if (pulled % 160 === 0) controller.close();
            },
          }),
          { headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) } },
        ),
      { maxResponseBytes: 1024 * 1024 },
    );
    // Act
    const err = await rejection(h.client.fetchAll('visits'));
    // Assess: each of the few requests cancelled after its first 64 KB (a stream pulls ahead once)
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(pulled).toBeLessThanOrEqual(2 * h.dataCalls().length);
    expect(h.dataCalls().length).toBeLessThanOrEqual(25);
  });

  it('cuts an error body at 64 KB instead of failing on it, and keeps its excerpt', async () => {
    const h = harness(() => json({ Message: `Down for maintenance ${'.'.repeat(2_000_000)}` }, 503));
    const err = await rejection(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toMatch(/HTTP 503/);
    expect((err as Error).message.length).toBeLessThan(400);
  });
});

describe('the large-body gate', () => {
  it('lets a body through when a slot is free, makes the next wait for a release, and gives up at the deadline', async () => {
    // Prepare
    const gate = new BodyGate(1);
    const first = await gate.acquire('visits');
    let secondHeld = false;
    const second = gate.acquire('visits').then((release) => {
      secondHeld = true;
      return release;
    });
    await Promise.resolve();
    // Assess: the second waits; a third with a deadline gives up
    expect(secondHeld).toBe(false);
    await expect(gate.acquire('visits', undefined, Date.now() + 20)).rejects.toBeInstanceOf(
      DeadlineExceededError,
    );
    first();
    (await second)();
    expect(secondHeld).toBe(true);
    expect(gate.free).toBe(1);
  });
});

describe('records past the limits', () => {
  it('are invalid items with the reason and a cut copy; the page goes on', async () => {
    // Prepare: one record 40 levels deep, one of 200 KB, one normal
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const h = harness(() =>
      json({
        data: [
          { MemberNumber: 'A', VisitDateTime: '2025-03-01T06:00:00', Extra: deep },
          { MemberNumber: 'B', VisitDateTime: '2025-03-01T06:00:00', Door: 'd'.repeat(200_000) },
          { MemberNumber: 'C', VisitDateTime: '2025-03-01T06:00:00' },
        ],
      }),
    );
    // Act
    const result = await h.client.fetchAll('visits');
    // Assess
    expect(result.items.map((v) => v.MemberNumber)).toEqual(['C']);
    expect(result.invalid.map((i) => i.issues)).toEqual([
      expect.stringMatching(/^data\[0\]\.Extra\.d\.d.*nested deeper than 32 levels/),
      expect.stringMatching(/^data\[1\]: record over 128 KB/),
    ]);
    expect(JSON.stringify(result.invalid[1]!.raw).length).toBeLessThan(20_000);
  });
});
