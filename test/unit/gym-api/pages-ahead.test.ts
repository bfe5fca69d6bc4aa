/**
 * Pages asked for ahead (lambdas/gym-api/pages-ahead.ts): a scan with `prefetch` asks for its next
 * full pages side by side with the one it reads, yields exactly what it would without them, drops
 * what it does not reach, declines a large page (asked again in its turn under the normal cap),
 * surfaces an error only when its page's turn comes, and gives back every slot. Injected fetch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LARGE_BODY_BYTES } from '../../../lambdas/gym-api/body-budget';
import { GymApiClient } from '../../../lambdas/gym-api/client';
import { AHEAD_SLOTS, aheadSlots, MAX_AHEAD } from '../../../lambdas/gym-api/pages-ahead';
import type { RequestEvent } from '../../../lambdas/gym-api/request-event';
import { TokenProvider } from '../../../lambdas/gym-api/token-provider';
import { deferred, FakeClock, type Handler, json, scriptedFetch, tokenResponse } from './fake-upstream';

const BASE = 'https://gym.example.test/v1';
const SIZE = 10;

function harness(data: Handler) {
  const upstream = scriptedFetch((request, index) =>
    request.url.pathname.endsWith('/token') ? tokenResponse('tok') : data(request, index),
  );
  const clock = new FakeClock();
  const events: RequestEvent[] = [];
  const tokenProvider = new TokenProvider({
    baseUrl: BASE,
    username: 'u',
    password: 'p',
    fetch: upstream.fetch,
    now: clock.now,
  });
  const client = new GymApiClient({
    baseUrl: BASE,
    apiKey: 'club-key',
    tokenProvider,
    fetch: upstream.fetch,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    retry: { maxAttempts: 2 },
    onRequest: (e) => events.push(e),
  });
  const offsets = () =>
    upstream.calls
      .filter((c) => !c.url.pathname.endsWith('/token'))
      .map((c) => Number(c.url.searchParams.get('offset')));
  return { client, events, offsets };
}

/** Visits 0..total-1, `extra(i)` bytes of padding on record i. */
function visits(total: number, extra: (i: number) => number = () => 0): Handler {
  return (request) => {
    const offset = Number(request.url.searchParams.get('offset') ?? 0);
    const limit = Number(request.url.searchParams.get('limit') ?? 500);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, k) => ({
      MemberNumber: `M${offset + k}`,
      VisitDateTime: '2025-03-01T06:00:00',
      ...(extra(offset + k) ? { Door: 'd'.repeat(extra(offset + k)) } : {}),
    }));
    return json({ href: request.url.href, data });
  };
}

async function read(client: GymApiClient, prefetch: number) {
  const numbers: string[] = [];
  for await (const page of client.pages('visits', {}, { pageSize: SIZE, prefetch }))
    numbers.push(...page.items.map((v) => String((v as { MemberNumber: string }).MemberNumber)));
  return numbers;
}

afterEach(() => {
  expect(aheadSlots.free).toBe(AHEAD_SLOTS);
});

describe('pages asked for ahead', () => {
  it('once the first page is back, asks for the next full pages side by side; yields the same records in order', async () => {
    const second = deferred<void>();
    const handler = visits(45);
    const { client, events, offsets } = harness(async (request, index) => {
      if (request.url.searchParams.get('offset') === '10') await second.promise;
      return handler(request, index);
    });
    const reading = read(client, 4);
    await new Promise((r) => setTimeout(r, 10));
    // Page 1 is still waiting: pages 2-4 were asked for alongside it, after page 0 came back.
    expect(offsets()).toEqual([0, 10, 20, 30, 40]);
    second.resolve();
    const numbers = await reading;
    const alone = await read(harness(visits(45)).client, 0);
    expect(numbers).toEqual(alone);
    expect(numbers).toHaveLength(45);
    expect(events.filter((e) => e.kind === 'data' && e.ahead)).toHaveLength(4);
    expect(offsets()).toHaveLength(5);
  });

  it('a window shorter than expected ends at its short page; the pages past it are dropped', async () => {
    const { client, offsets } = harness(visits(15));
    const numbers = await read(client, 5);
    expect(numbers).toHaveLength(15);
    // Pages at 20.. were asked for (the estimate), read by nobody.
    expect(offsets().sort((a, b) => a - b)).toEqual([0, 10, 20, 30, 40, 50]);
  });

  it('never more than MAX_AHEAD waiting, topped up as pages are read', async () => {
    const total = SIZE * (MAX_AHEAD + 4) + 3;
    const { client, offsets } = harness(visits(total));
    const numbers = await read(client, 100);
    expect(numbers).toHaveLength(total);
    expect(new Set(offsets()).size).toBeGreaterThanOrEqual(MAX_AHEAD + 5);
  });

  it('a page over LARGE_BODY_BYTES is declined and asked for again in its turn, under the normal cap', async () => {
    // Page 20's ten records of ~110 KB each (under the 128 KB a record): a page over 1 MB.
    const big = (i: number) => (i >= 20 && i < 30 ? Math.ceil(LARGE_BODY_BYTES / 9) : 0);
    const { client, events, offsets } = harness(visits(45, big));
    const numbers = await read(client, 4);
    expect(numbers).toHaveLength(45);
    expect(offsets().filter((o) => o === 20)).toHaveLength(2);
    const declined = events.find((e) => e.ahead && e.error?.startsWith('ResponseTooLargeError'));
    expect(declined).toBeDefined();
  });

  it("an error on a page asked for ahead comes when that page's turn comes, after the pages before it", async () => {
    const handler = visits(45);
    const { client } = harness((request, index) =>
      request.url.searchParams.get('offset') === '20'
        ? new Response('bad gateway', { status: 502 })
        : handler(request, index),
    );
    const seen: string[] = [];
    const err = await (async () => {
      for await (const page of client.pages('visits', {}, { pageSize: SIZE, prefetch: 4 }))
        seen.push(...page.items.map((v) => String((v as { MemberNumber: string }).MemberNumber)));
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'UnavailableError' });
    expect(seen).toHaveLength(20);
  });

  it('a 429 to a page asked for ahead is not waited out: nothing more ahead, the page read in its turn', async () => {
    const handler = visits(65);
    let refused = 0;
    const { client, events, offsets } = harness((request, index) => {
      if (request.url.searchParams.get('offset') === '20' && refused++ === 0)
        return json({ Message: 'Too Many Requests' }, 429);
      return handler(request, index);
    });
    expect(await read(client, 6)).toHaveLength(65);
    expect(offsets().filter((o) => o === 20)).toHaveLength(2);
    expect(events.filter((e) => e.status === 429)).toHaveLength(1);
    // Asked ahead with page 0: 10..60; after the 429 nothing more was asked ahead.
    expect(events.filter((e) => e.ahead).length).toBeLessThanOrEqual(6);
  });

  it('a consumer that stops early gives every slot back', async () => {
    const { client } = harness(visits(60));
    for await (const page of client.pages('visits', {}, { pageSize: SIZE, prefetch: 5 })) {
      expect(page.items).toHaveLength(SIZE);
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
  });

  it('asks for nothing ahead while the process has no slot free', async () => {
    const taken: boolean[] = [];
    while (aheadSlots.tryTake()) taken.push(true);
    try {
      const { client, events } = harness(visits(35));
      expect(await read(client, 3)).toHaveLength(35);
      expect(events.filter((e) => e.ahead)).toHaveLength(0);
    } finally {
      for (const _ of taken) aheadSlots.give();
    }
  });
});
