/**
 * GymApiClient's retry policy against an injected fetch (no network): 5xx and network errors with
 * full-jitter backoff, maxAttempts and maxDelayMs, deadlines, no retry of a 400, an abort during a
 * backoff; a 429's quota back-off (once, Retry-After, maxQuotaDelayMs, the deadline).
 */
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  DeadlineExceededError,
  QuotaExceededError,
  RequestAbortedError,
  UnavailableError,
} from '../../../lambdas/gym-api/errors';
import { failure, harness, visits } from './client-harness';
import { FakeClock, json } from './fake-upstream';

describe('GymApiClient retries', () => {
  it('retries 5xx and network errors with full-jitter backoff, then succeeds', async () => {
    const h = harness((request, i) => {
      if (i === 0) return json({ Message: 'boom' }, 503);
      if (i === 1) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET', message: 'reset' } });
      if (i === 2) return new Response('bad gateway', { status: 502 });
      return visits(3)(request, i);
    });
    const result = await h.client.fetchAll('visits');
    expect(result.items).toHaveLength(3);
    // random() = 0.5: half of 200, 400, 800
    expect(h.clock.sleeps).toEqual([100, 200, 400]);
    expect(h.events.filter((e) => e.kind === 'data').map((e) => [e.attempt, e.status ?? null])).toEqual([
      [1, 503],
      [2, null],
      [3, 502],
      [4, 200],
    ]);
    expect(h.events.find((e) => e.attempt === 2 && e.kind === 'data')?.error).toContain('ECONNRESET');
  });

  it('gives up after maxAttempts with the last UnavailableError', async () => {
    const h = harness(() => json({ Message: 'down' }, 500), { retry: { maxAttempts: 3 } });
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).toMatchObject({ status: 500, retryable: true });
    expect(h.dataCalls()).toHaveLength(3);
    expect(h.clock.sleeps).toHaveLength(2);
  });

  it('caps each wait at maxDelayMs', async () => {
    const h = harness(() => json({}, 503), {
      retry: { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 3000 },
      random: () => 0.999,
    });
    await failure(h.client.fetchAll('visits'));
    expect(h.clock.sleeps.every((w) => w <= 3000)).toBe(true);
    expect(h.clock.sleeps.slice(-3)).toEqual([2997, 2997, 2997]);
  });

  it('never waits past the deadline: throws the last error instead', async () => {
    const h = harness(() => json({}, 503), {
      retry: { maxAttempts: 50, baseDelayMs: 1000, maxDelayMs: 8000 },
    });
    const deadline = h.clock.now() + 5000;
    const err = await failure(h.client.fetchAll('visits', {}, { deadline }));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(h.clock.now()).toBeLessThan(deadline);
    expect(h.clock.sleeps).toEqual([500, 1000, 2000]);
  });

  it('when a wait overshoots the deadline, DeadlineExceededError carries the last failure', async () => {
    const clock = new FakeClock();
    // The timer fires late: after the wait the clock is past the deadline.
    const h = harness(
      () => json({}, 503),
      { sleep: async (ms) => clock.advance(ms + 1600), retry: { baseDelayMs: 1000, maxDelayMs: 1000 } },
      clock,
    );
    const deadline = clock.now() + 2000;
    const err = await failure(h.client.fetchAll('visits', {}, { deadline }));
    expect(h.dataCalls()).toHaveLength(1);
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as Error).cause).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toContain('last failure: visits: HTTP 503');
  });

  it('does not start a request after the deadline', async () => {
    const h = harness(visits(1));
    await h.client.fetchAll('visits'); // token cached
    const err = await failure(h.client.fetchAll('visits', {}, { deadline: h.clock.now() - 1 }));
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('does not retry 400', async () => {
    const h = harness(() => json({ Message: 'Invalid fromdate' }, 400));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toContain('Invalid fromdate');
    expect(h.dataCalls()).toHaveLength(1);
  });

  it('stops when the caller aborts during a backoff', async () => {
    const controller = new AbortController();
    const h = harness(() => json({}, 503), {
      sleep: async () => {
        controller.abort();
      },
    });
    const err = await failure(h.client.fetchAll('visits', {}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(h.dataCalls()).toHaveLength(1);
  });
});

describe('GymApiClient 429', () => {
  it('retries once after at least quotaDelayMs, then succeeds', async () => {
    const h = harness((request, i) => (i === 0 ? json({ Message: 'Quota' }, 429) : visits(1)(request, i)));
    await h.client.fetchAll('visits');
    expect(h.clock.sleeps).toEqual([5000]);
    expect(h.dataCalls()).toHaveLength(2);
  });

  it('a second 429 is QuotaExceededError, with no tight loop', async () => {
    const h = harness(() => json({ Message: 'Quota exceeded' }, 429, { 'retry-after': '12' }));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 12_000, retryable: true });
    expect(h.clock.sleeps).toEqual([12_000]);
    expect(h.dataCalls()).toHaveLength(2);
  });

  it('throws at once when Retry-After is longer than maxQuotaDelayMs', async () => {
    const h = harness(() => json({}, 429, { 'retry-after': '3600' }));
    const err = await failure(h.client.fetchAll('visits'));
    expect(err).toMatchObject({ name: 'QuotaExceededError', retryAfterMs: 3_600_000 });
    expect(h.clock.sleeps).toEqual([]);
  });

  it('throws at once when the deadline does not leave room for the back-off', async () => {
    const h = harness(() => json({}, 429));
    const err = await failure(h.client.fetchAll('visits', {}, { deadline: h.clock.now() + 4000 }));
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(h.clock.sleeps).toEqual([]);
    expect(h.dataCalls()).toHaveLength(1);
  });
});
