/**
 * The page gate (lambdas/gym-api/body-budget.ts): a body past PAGE_BODY_BYTES holds one of the
 * process's page slots until its page is processed, past LARGE_BODY_BYTES a large-body slot too;
 * a page asked for ahead takes none. So the pages in memory are bounded by the process, however
 * many clubs an invocation polls side by side.
 */
import { describe, expect, it } from 'vitest';
import {
  BodyGate,
  LARGE_BODY_BYTES,
  PAGE_BODY_BYTES,
  PAGE_SLOTS,
  pageBodyGate,
} from '../../../lambdas/gym-api/body-budget';
import { DeadlineExceededError, ResponseTooLargeError } from '../../../lambdas/gym-api/errors';
import { exchange } from '../../../lambdas/gym-api/http-exchange';
import { readBody } from '../../../lambdas/gym-api/response-body';

/** A 200 whose body is `bytes` long, delivered in 64 KB chunks. */
function bodyOf(bytes: number): Response {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let left = bytes;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const n = Math.min(left, chunk.length);
      left -= n;
      controller.enqueue(chunk.slice(0, n));
    },
  });
  return new Response(body, { status: 200 });
}

/** One GET through `exchange` answered with a body of `bytes`, capped at 1 MB. */
function exchangeOf(bytes: number, extra: Partial<Parameters<typeof exchange>[0]> = {}) {
  return exchange({
    url: 'https://gym.example.test/v1/members',
    method: 'GET',
    headers: {},
    operation: 'members',
    timeoutMs: 5_000,
    now: Date.now,
    fetch: async () => bodyOf(bytes),
    maxBodyBytes: LARGE_BODY_BYTES,
    ...extra,
  });
}

function gates(pageSlots = 2) {
  const pageGate = new BodyGate(pageSlots, 'a page');
  const gate = new BodyGate(1);
  const limits = (extra: { deadline?: number; cap?: number; ahead?: boolean } = {}) => ({
    operation: 'members',
    cap: extra.cap ?? 8 * 1024 * 1024,
    failPastCap: true,
    gate,
    ...(extra.ahead ? {} : { pageGate }),
    now: Date.now,
    ...(extra.deadline === undefined ? {} : { deadline: extra.deadline }),
  });
  return { pageGate, gate, limits };
}

describe('the page gate', () => {
  it('lets a small body by, holds a page slot past PAGE_BODY_BYTES and a large slot too past LARGE_BODY_BYTES', async () => {
    // Prepare
    const { pageGate, gate, limits } = gates();

    // Act
    const small = await readBody(bodyOf(PAGE_BODY_BYTES), limits());
    const page = await readBody(bodyOf(PAGE_BODY_BYTES + 1), limits());
    const large = await readBody(bodyOf(LARGE_BODY_BYTES + 1), limits());

    // Assess
    expect(small.text).toHaveLength(PAGE_BODY_BYTES);
    expect([pageGate.free, gate.free]).toEqual([0, 0]);
    page.release();
    large.release();
    large.release();
    expect([pageGate.free, gate.free]).toEqual([2, 1]);
  });

  it('makes a page wait for a slot while every slot is held, and gives up at its deadline', async () => {
    // Prepare: both slots held
    const { pageGate, limits } = gates();
    const held = await Promise.all([1, 2].map(() => readBody(bodyOf(PAGE_BODY_BYTES * 2), limits())));

    // Act
    const late = readBody(bodyOf(PAGE_BODY_BYTES * 2), limits()).then((read) => {
      done = true;
      return read;
    });
    let done = false;
    const cut = readBody(bodyOf(PAGE_BODY_BYTES * 2), limits({ deadline: Date.now() + 30 })).catch((e) => e);

    // Assess: the one with a deadline gives up, naming what it waited for; the other reads once a slot frees
    const err = await cut;
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as Error).message).toMatch(/members: deadline reached waiting to read a page/);
    expect(done).toBe(false);
    held[0]?.release();
    (await late).release();
    held[1]?.release();
    expect(pageGate.free).toBe(2);
  });

  it('gives the slots back when the body ends over its cap', async () => {
    const { pageGate, gate, limits } = gates();
    const err = await readBody(bodyOf(3 * LARGE_BODY_BYTES), limits({ cap: 2 * LARGE_BODY_BYTES })).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect([pageGate.free, gate.free]).toEqual([2, 1]);
  });

  it('takes no page slot for a page asked for ahead, through exchange too', async () => {
    // Prepare: the one page slot held
    const { pageGate, gate, limits } = gates(1);
    const held = await readBody(bodyOf(PAGE_BODY_BYTES * 2), limits());

    // Act: read without waiting while the slot is held
    const ahead = await readBody(bodyOf(PAGE_BODY_BYTES * 4), limits({ ahead: true }));
    const viaExchange = await exchangeOf(PAGE_BODY_BYTES * 4, { gate, pageGate, readAhead: true });

    // Assess
    expect(ahead.text).toHaveLength(PAGE_BODY_BYTES * 4);
    expect(viaExchange.body).toHaveLength(PAGE_BODY_BYTES * 4);
    expect(pageGate.free).toBe(0);
    held.release();
    expect(pageGate.free).toBe(1);
  });

  it("is the process's, with PAGE_SLOTS slots, and exchange uses it unless told otherwise", async () => {
    expect(pageBodyGate.slots).toBe(PAGE_SLOTS);
    const read = await exchangeOf(PAGE_BODY_BYTES * 2);
    expect(pageBodyGate.free).toBe(PAGE_SLOTS - 1);
    read.release();
    expect(pageBodyGate.free).toBe(PAGE_SLOTS);
  });
});
