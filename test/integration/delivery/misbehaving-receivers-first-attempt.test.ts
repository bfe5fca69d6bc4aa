/**
 * The fan-out's first attempt against misbehaving receivers, over real sockets with the rig of
 * `misbehaving-receivers-rig.ts` (webhook table in dynalite, every request verified by
 * `standardwebhooks`, the clock shifted, never slept). The first attempt of each delivery is made at
 * publish; one that meets a 500, a 429, a 410 or a reset ends in the queue's retries (or the endpoint
 * disabled) with the same webhook-id; a burst keeps to the endpoint's rate; an endpoint that answers
 * in 14 s, or not at all, is handed to the queue at the 2 s budget while a prompt one is served, its
 * queue attempt has the 15 s deadline, and a timeout opens its circuit. The budget, the deadline and
 * a receiver's slow answer run on fake timers that are moved on. Receivers down or answering errors
 * through the queue's schedule are in `misbehaving-receivers.test.ts`.
 */
import { describe, expect, it, vi } from 'vitest';
import { endpointStatus } from '../../../lambdas/delivery/webhook-admin';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import {
  add,
  deliveredIds,
  event,
  HOUR,
  idsOf,
  receiver,
  runner,
  runUntil,
  START,
  secrets,
  setClock,
  useMisbehavingRig,
} from './misbehaving-receivers-rig';
import type { Answer } from './receiver';

useMisbehavingRig();

describe('webhook delivery to misbehaving receivers (shifted clock)', () => {
  it("the fan-out's first attempt: made at publish; a 500, a 429, a 410 or a reset there ends in the queue's retries (or the endpoint disabled) with the same webhook-id; nothing lost", async () => {
    const { hooks, sink } = await runner();
    const ids = {
      ok: await add(hooks, '/first-ok'),
      e500: await add(hooks, '/first-500'),
      e429: await add(hooks, '/first-429'),
      gone: await add(hooks, '/first-410'),
      reset: await add(hooks, '/first-reset'),
    };
    const once = (first: Answer): ((r: unknown) => Answer) => {
      let used = false;
      return () => {
        if (used) return { status: 204 };
        used = true;
        return first;
      };
    };
    receiver.script('/first-500', once({ status: 500, body: 'boom' }));
    receiver.script('/first-429', once({ status: 429, retryAfter: '60' }));
    receiver.script('/first-410', () => ({ status: 410 }));
    // A reset on a reused keep-alive socket is sent once more at once, on a new one, within the
    // same attempt (http-delivery.ts): the first attempt's every request is reset, whichever
    // socket it met; an attempt is a signature's timestamp.
    let resetAt: number | undefined;
    receiver.script('/first-reset', (r) => {
      const { timestamp } = r as { timestamp: number };
      resetAt ??= timestamp;
      return timestamp === resetAt ? 'reset' : { status: 204 };
    });
    const e = event(DETAIL_TYPES.PaymentSucceeded);
    const paths = ['/first-ok', '/first-500', '/first-429', '/first-410', '/first-reset'];
    const tries = (path: string) => receiver.received.filter((r) => r.path === path);
    const attempts = (path: string) => new Set(tries(path).map((r) => r.timestamp)).size;

    // Act 1: publish alone, no pump: every endpoint has had its first attempt.
    await hooks.publish([e]);
    for (const path of paths) expect(attempts(path), path).toBe(1);
    expect(deliveredIds('/first-ok')).toEqual([e.detail.eventId]);
    // The failed ones wait in the queue for their retry (the 410 is dead-lettered, its endpoint disabled).
    expect(hooks.queue.size).toBe(3);
    expect(sink.ofType(DETAIL_TYPES.WebhookEndpointDisabled).map((d) => d.detail.endpointId)).toEqual([
      ids.gone,
    ]);

    // Act 2: the queue's retries.
    await runUntil(hooks, START + HOUR);
    for (const path of ['/first-500', '/first-429', '/first-reset']) {
      expect(deliveredIds(path), path).toEqual([e.detail.eventId]);
      expect(new Set(tries(path).map((r) => `${r.webhookId} ${r.body}`)).size, path).toBe(1);
      expect(attempts(path), path).toBe(2);
    }
    const [first429, retry429] = tries('/first-429');
    expect(retry429!.timestamp - first429!.timestamp).toBeGreaterThanOrEqual(60);
    expect(tries('/first-ok')).toHaveLength(1);
    expect(tries('/first-410')).toHaveLength(1);
    expect(hooks.queue.size).toBe(0);
    const [status] = await endpointStatus(hooks.admin(), [ids.e500]);
    expect(status).toMatchObject({ failures: 0, lastFailure: { status: 500, attempt: 1 } });
  });

  it("the fan-out's first attempts keep to the endpoint's rate: one at publish, the rest queued and paced", async () => {
    const { hooks } = await runner();
    const { endpoint, secret } = await hooks.add({
      url: receiver.url('/paced'),
      detailTypes: ['*'],
      ratePerSecond: 2,
    });
    secrets.set('/paced', secret);
    const burst = [1, 2, 3, 4, 5].map(() => event(DETAIL_TYPES.MemberVisitRecorded));
    await hooks.publish(burst);
    const paced = () => receiver.received.filter((r) => r.path === '/paced');
    expect(paced()).toHaveLength(1);
    expect(hooks.queue.size).toBe(4);
    await runUntil(hooks, START + 10_000);
    expect(deliveredIds('/paced')).toEqual(idsOf(burst));
    // At most 2 a second (the receiver's clock is the test's: whole seconds of webhook-timestamp).
    const perSecond = new Map<number, number>();
    for (const r of paced()) perSecond.set(r.timestamp, (perSecond.get(r.timestamp) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2);
    expect(endpoint.ratePerSecond).toBe(2);
  });

  it('a slow endpoint (answers at 14 s): its first attempt is handed to the queue at 2 s while a prompt one is served; the queue attempt succeeds at 14 s; later ones skip the first attempt; one never answered times out at 15 s, retried, delivered; one webhook-id throughout', async () => {
    // The budget, the 15 s deadline and the receiver's slow answers are timers: fake ones, moved on.
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    setClock(START);
    const { hooks } = await runner(new MemorySink(), () => Date.now());
    const slowId = await add(hooks, '/slow');
    await add(hooks, '/prompt');
    const answers: Answer[] = [
      { status: 200, afterMs: 14_000 },
      { status: 200, afterMs: 14_000 },
      'hang',
      { status: 204 },
    ];
    receiver.script('/slow', () => answers.shift() ?? { status: 204 });
    const slow = () => receiver.received.filter((r) => r.path === '/slow');

    // The first event: both first attempts at once; the prompt one is delivered, the slow one
    // handed to the queue when the 2 s budget runs out (the receiver has it: a duplicate may come).
    const first = event(DETAIL_TYPES.MemberVisitRecorded);
    const publishing = hooks.publish([first]);
    await vi.waitFor(() => expect(slow()).toHaveLength(1));
    await vi.waitFor(() => expect(deliveredIds('/prompt')).toEqual([first.detail.eventId]));
    expect(Date.now() - START).toBeLessThan(2_000);
    await vi.advanceTimersByTimeAsync(2_000);
    await publishing;
    expect(hooks.queue.size).toBe(1);
    let [status] = await endpointStatus(hooks.admin(), [slowId]);
    expect(status).toMatchObject({ failures: 0 });
    expect(status!.lastFailure).toBeUndefined();

    // The queue's attempt has the whole 15 s: the answer at 14 s is a success, not retried.
    let pumping = hooks.pump();
    await vi.waitFor(() => expect(slow()).toHaveLength(2));
    await vi.advanceTimersByTimeAsync(14_000);
    await pumping;
    expect(hooks.queue.size).toBe(0);
    [status] = await endpointStatus(hooks.admin(), [slowId]);
    expect(status).toMatchObject({
      failures: 0,
      lastSuccess: { status: 200, webhookId: first.detail.eventId },
    });

    // The second: no first attempt to the slow endpoint (held to the queue), the prompt one served
    // at once; the queue's attempt gets no answer: a timeout at 15 s, retried 5 s later.
    const second = event(DETAIL_TYPES.PaymentSucceeded);
    await hooks.publish([second]);
    expect(slow()).toHaveLength(2);
    expect(deliveredIds('/prompt')).toContain(second.detail.eventId);
    pumping = hooks.pump();
    await vi.waitFor(() => expect(slow()).toHaveLength(3));
    await vi.advanceTimersByTimeAsync(15_000);
    await pumping;
    [status] = await endpointStatus(hooks.admin(), [slowId]);
    expect(status!.lastFailure).toMatchObject({
      error: 'timeout after 15 s',
      webhookId: second.detail.eventId,
      attempt: 1,
    });
    expect(hooks.queue.size).toBe(1);
    await vi.advanceTimersByTimeAsync(5_000);
    await hooks.pump();

    expect(deliveredIds('/slow')).toEqual(idsOf([first, second]));
    expect(slow().map((r) => r.answered)).toEqual([200, 200, 'hang', 204]);
    const [handedOff, queued, timedOut, retried] = slow();
    expect(queued!.webhookId).toBe(handedOff!.webhookId);
    expect(queued!.body).toBe(handedOff!.body);
    expect(retried!.webhookId).toBe(timedOut!.webhookId);
    expect(retried!.body).toBe(timedOut!.body);
    expect(retried!.timestamp - timedOut!.timestamp).toBeGreaterThanOrEqual(20);
    expect(hooks.queue.size).toBe(0);
  });

  it("an endpoint that never answers: its first attempt is handed off at 2 s, the queue's times out at 15 s and opens the circuit at once: its next deliveries wait for a probe instead of holding the function 15 s each", async () => {
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    setClock(START);
    const { hooks } = await runner(new MemorySink(), () => Date.now());
    const id = await add(hooks, '/silent');
    receiver.script('/silent', () => 'hang');
    const published = [1, 2, 3].map(() => event(DETAIL_TYPES.MemberVisitRecorded));
    const publishing = hooks.publish(published);
    const silent = () => receiver.received.filter((r) => r.path === '/silent');
    await vi.waitFor(() => expect(silent()).toHaveLength(1));
    await vi.advanceTimersByTimeAsync(2_000);
    await publishing;
    // One first attempt (one per endpoint an invocation), handed off; the other two queued.
    expect(hooks.queue.size).toBe(3);
    const pumping = hooks.pump();
    await vi.waitFor(() => expect(silent()).toHaveLength(2));
    await vi.advanceTimersByTimeAsync(15_000);
    await pumping;
    // One queue attempt, not three in a row: the other two wait hidden for the circuit's probe.
    expect(silent()).toHaveLength(2);
    const [status] = await endpointStatus(hooks.admin(), [id]);
    expect(status).toMatchObject({ failures: 1, lastFailure: { error: 'timeout after 15 s' } });
    expect(status!.retryAt).toBeDefined();
    expect(hooks.queue.size).toBe(3);
    expect(idsOf(published)).toEqual(expect.arrayContaining(silent().map((r) => r.webhookId)));
  });
});
