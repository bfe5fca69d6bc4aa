/**
 * Webhook delivery against receivers that misbehave, over real sockets, with the webhook table in
 * dynalite and the real SDK; the clock is shifted, never slept (Date is faked to the same clock, so
 * the official `standardwebhooks` verifier judges each timestamp against it; the first attempt's
 * 2 s budget, the 15 s deadline and a receiver's slow answer run on fake timers that are moved on).
 * Every request any receiver gets is verified by `standardwebhooks` (checked after each test).
 * `publish` is the fan-out as deployed: the first attempt of each delivery to a healthy endpoint
 * made at once, the others queued. 0 events lost: each is delivered to each matching endpoint at
 * least once with its eventId as webhook-id, none to an endpoint whose filter does not match, and
 * a healthy endpoint is served at once while another is down (503, or refusing connections) for
 * 72 hours, answers in 14 s, or not at all; a first attempt that fails, is slow, hits 429 or 410,
 * or is reset ends in the queue's retries with the same webhook-id.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BusEvent } from '../../../lambdas/delivery/delivery-message';
import { LocalWebhooks } from '../../../lambdas/delivery/local-webhooks';
import { endpointStatus, setEndpointEnabled } from '../../../lambdas/delivery/webhook-admin';
import { redriveDeadLetters } from '../../../lambdas/delivery/webhook-recovery';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { makeEventId } from '../../../lambdas/events/event-id';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import { type Dynalite, startDynalite } from '../../support/dynalite';
import { type Answer, type Receiver, startReceiver } from './receiver';

const START = Date.parse('2026-03-02T08:00:00.000Z');
const HOUR = 3_600_000;
let clock = START;
const now = () => clock;
const setClock = (t: number) => {
  clock = t;
  vi.setSystemTime(t);
};

let db: Dynalite;
let receiver: Receiver;
/** A second receiver, for an endpoint whose host refuses connections while it is down. */
let refusing: Receiver;
const secrets = new Map<string, string>();
let tables = 0;

beforeAll(async () => {
  db = await startDynalite();
  receiver = await startReceiver(secrets);
  refusing = await startReceiver(secrets);
});
afterAll(async () => {
  await receiver.close();
  await refusing.close();
  await db.close();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  setClock(START);
});
afterEach(() => {
  vi.useRealTimers();
  // Every request any receiver got, in every test, verified with the official package.
  expect([...receiver.unverified, ...refusing.unverified]).toEqual([]);
});

/**
 * A local runner (the fan-out as deployed, first attempts included). On real timers (the tests that
 * only shift the clock) a first attempt gets 10 s instead of 2 s, so that a busy machine does not
 * hand one off; the tests of the 2 s budget run it on fake timers.
 */
async function runner(sink = new MemorySink(), clock: () => number = now) {
  tables++;
  const hooks = await LocalWebhooks.start({
    client: db.client,
    tableName: `webhooks-it-${process.pid}-${tables}`,
    now: clock,
    random: () => 0.5,
    sink,
    ...(clock === now ? { firstAttemptBudgetMs: 10_000 } : {}),
  });
  return { hooks, sink };
}

async function add(
  hooks: LocalWebhooks,
  path: string,
  input: { detailTypes?: string[]; detailPattern?: string; on?: Receiver } = {},
) {
  const { endpoint, secret } = await hooks.add({
    url: (input.on ?? receiver).url(path),
    detailTypes: input.detailTypes ?? ['*'],
    ...(input.detailPattern ? { detailPattern: input.detailPattern } : {}),
  });
  secrets.set(path, secret);
  return endpoint.endpointId;
}

let serial = 0;
function event(detailType: string, extra: Record<string, unknown> = {}): BusEvent {
  serial++;
  const eventId = makeEventId('webhook-test', String(serial));
  return {
    'detail-type': detailType,
    time: new Date(clock).toISOString(),
    detail: {
      eventId,
      eventVersion: 1,
      clubId: 'club-1',
      source: 'visits',
      occurredAt: new Date(clock - 1000).toISOString(),
      observedAt: new Date(clock).toISOString(),
      subject: {},
      ...extra,
    },
  };
}

/** Pumps the queue, moving the clock to each next visible message, until `untilMs`. */
async function runUntil(hooks: LocalWebhooks, untilMs: number): Promise<void> {
  for (let guard = 0; guard < 100_000; guard++) {
    await hooks.pump();
    const next = hooks.queue.nextVisibleAt();
    if (next === undefined || next > untilMs) break;
    setClock(Math.max(next, clock + 1));
  }
  setClock(Math.max(clock, untilMs));
  await hooks.pump();
}

const idsOf = (events: readonly BusEvent[]) => events.map((e) => String(e.detail.eventId)).sort();
const deliveredIds = (path: string) => [...new Set(receiver.delivered(path).map((r) => r.webhookId))].sort();

describe('webhook delivery to misbehaving receivers (shifted clock)', () => {
  it('receivers down for 72 h (503, refused connections) lose nothing; a healthy one is served at once meanwhile; filters hold', async () => {
    const { hooks, sink } = await runner();
    await add(hooks, '/down-72h');
    await add(hooks, '/refused-72h', { on: refusing });
    await refusing.stop();
    await add(hooks, '/healthy');
    await add(hooks, '/dishonours', {
      detailTypes: [DETAIL_TYPES.PaymentFailed],
      detailPattern: '{"reason":["dishonoured"]}',
    });
    await add(hooks, '/quota-only', { detailTypes: [DETAIL_TYPES.ClubQuotaLow] });
    const outageEnds = START + 72 * HOUR;
    receiver.script('/down-72h', () =>
      clock < outageEnds ? { status: 503, body: 'maintenance' } : { status: 200 },
    );

    const published: BusEvent[] = [];
    for (let hour = 0; hour < 60; hour += 4) {
      setClock(START + hour * HOUR);
      const batch = [
        event(DETAIL_TYPES.MemberVisitRecorded),
        event(DETAIL_TYPES.PaymentFailed, { reason: hour % 8 === 0 ? 'dishonoured' : 'declined' }),
      ];
      published.push(...batch);
      await hooks.publish(batch);
      // The healthy endpoint has them within 2 s (its rate limit spaces them), whatever the other does.
      await runUntil(hooks, clock + 2_000);
      for (const e of batch) expect(deliveredIds('/healthy')).toContain(e.detail.eventId);
    }
    await runUntil(hooks, outageEnds);
    await refusing.restart();
    await runUntil(hooks, START + 80 * HOUR);

    expect(deliveredIds('/down-72h')).toEqual(idsOf(published));
    expect([...new Set(refusing.delivered('/refused-72h').map((r) => r.webhookId))].sort()).toEqual(
      idsOf(published),
    );
    expect(deliveredIds('/healthy')).toEqual(idsOf(published));
    const dishonoured = published.filter((e) => e.detail.reason === 'dishonoured');
    expect(deliveredIds('/dishonours')).toEqual(idsOf(dishonoured));
    expect(receiver.received.filter((r) => r.path === '/quota-only')).toEqual([]);
    // The down endpoint was probed, not hammered: far fewer attempts than deliveries x schedule.
    const attempts = receiver.received.filter((r) => r.path === '/down-72h').length;
    expect(attempts).toBeLessThan(published.length + 120);
    expect(sink.events).toEqual([]);
    // Stable webhook-id and payload: every attempt of an event carries the same id and body.
    for (const r of receiver.received.filter((x) => x.path === '/down-72h')) {
      expect(r.payload.data.eventId).toBe(r.webhookId);
      expect(r.payload.type).toBe(published.find((e) => e.detail.eventId === r.webhookId)?.['detail-type']);
    }
  });

  it('500 for an hour: retried on the schedule, delivered once it answers, exactly one 2xx', async () => {
    const { hooks } = await runner();
    await add(hooks, '/500-hour');
    receiver.script('/500-hour', () =>
      clock < START + HOUR ? { status: 500, body: 'boom' } : { status: 200 },
    );
    const e = event(DETAIL_TYPES.MemberJoined);
    await hooks.publish([e]);
    await runUntil(hooks, START + 4 * HOUR);
    const tries = receiver.received.filter((r) => r.path === '/500-hour');
    expect(tries.filter((r) => r.answered === 200)).toHaveLength(1);
    expect(tries.every((r) => r.webhookId === e.detail.eventId)).toBe(true);
    expect(new Set(tries.map((r) => r.timestamp)).size).toBe(tries.length);
    expect(tries.length).toBeLessThan(12);
    expect(receiver.unverified).toEqual([]);
  });

  it('429 with Retry-After: the next attempt waits at least that long', async () => {
    const { hooks } = await runner();
    await add(hooks, '/429');
    let first = true;
    receiver.script('/429', () => {
      if (first) {
        first = false;
        return { status: 429, retryAfter: '120' };
      }
      return { status: 204 };
    });
    await hooks.publish([event(DETAIL_TYPES.MemberVisitRecorded)]);
    await runUntil(hooks, START + HOUR);
    const tries = receiver.received.filter((r) => r.path === '/429');
    expect(tries).toHaveLength(2);
    expect(tries[1]!.timestamp - tries[0]!.timestamp).toBeGreaterThanOrEqual(120);
    expect(tries[1]!.webhookId).toBe(tries[0]!.webhookId);
    expect(tries[1]!.answered).toBe(204);
  });

  it('410: the endpoint is disabled at once, announced, its delivery dead-lettered, nothing more sent', async () => {
    const { hooks, sink } = await runner();
    const id = await add(hooks, '/gone');
    receiver.script('/gone', () => ({ status: 410 }));
    await hooks.publish([event(DETAIL_TYPES.MemberVisitRecorded)]);
    await runUntil(hooks, START + HOUR);
    await hooks.publish([event(DETAIL_TYPES.MemberVisitRecorded)]);
    await runUntil(hooks, START + 2 * HOUR);
    expect(receiver.received.filter((r) => r.path === '/gone')).toHaveLength(1);
    const disabled = sink.ofType(DETAIL_TYPES.WebhookEndpointDisabled);
    expect(disabled).toHaveLength(1);
    expect(disabled[0]!.detail).toMatchObject({
      endpointId: id,
      reason: 'gone',
      lastStatus: 410,
      endpointHost: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
    expect(JSON.stringify(disabled[0])).not.toContain('/gone');
    const [status] = await endpointStatus(hooks.admin(), [id]);
    expect(status).toMatchObject({
      endpoint: { enabled: false, disabledReason: 'gone' },
      deadLetters: 1,
      lastFailure: { status: 410 },
    });
  });

  it('connection resets: retried, delivered', async () => {
    const { hooks } = await runner();
    await add(hooks, '/reset');
    let resets = 2;
    receiver.script('/reset', () => (resets-- > 0 ? 'reset' : { status: 202 }));
    const e = event(DETAIL_TYPES.ProspectCreated);
    await hooks.publish([e]);
    await runUntil(hooks, START + HOUR);
    expect(deliveredIds('/reset')).toEqual([e.detail.eventId]);
    const tries = receiver.received.filter((r) => r.path === '/reset');
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((r) => `${r.webhookId} ${r.body}`)).size).toBe(1);
  });

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

  it('schedule exhausted: dead letter and Webhook Delivery Failed; 5 days failing disables; redrive delivers with the same id', async () => {
    const { hooks, sink } = await runner();
    const id = await add(hooks, '/always-500');
    let healthy = false;
    receiver.script('/always-500', () =>
      healthy
        ? { status: 200 }
        : { status: 500, body: 'token=sk_live_0123456789abcdef0123456789abcdef broken' },
    );
    const e = event(DETAIL_TYPES.MemberVisitRecorded);
    await hooks.publish([e]);
    await runUntil(hooks, START + 80 * HOUR);
    const failedEvents = sink.ofType(DETAIL_TYPES.WebhookDeliveryFailed);
    expect(failedEvents).toHaveLength(1);
    expect(failedEvents[0]!.detail).toMatchObject({
      endpointId: id,
      webhookId: e.detail.eventId,
      reason: 'schedule-exhausted',
      lastStatus: 500,
    });
    let [status] = await endpointStatus(hooks.admin(), [id]);
    expect(status!.deadLetters).toBe(1);
    expect(status!.lastFailure?.excerpt).toContain('[redacted]');
    expect(status!.lastFailure?.excerpt).not.toContain('sk_live_0123456789abcdef0123456789abcdef');

    // Still failing at 5 days: the next event's probe disables it.
    setClock(START + 121 * HOUR);
    await hooks.publish([event(DETAIL_TYPES.MemberVisitRecorded)]);
    await runUntil(hooks, START + 123 * HOUR);
    expect(sink.ofType(DETAIL_TYPES.WebhookEndpointDisabled).map((d) => d.detail.reason)).toEqual([
      'failing',
    ]);

    healthy = true;
    await setEndpointEnabled(hooks.admin(), id, true);
    expect(await redriveDeadLetters(hooks.admin(), hooks.queue, id)).toBe(2);
    await runUntil(hooks, START + 124 * HOUR);
    expect(deliveredIds('/always-500')).toContain(e.detail.eventId);
    [status] = await endpointStatus(hooks.admin(), [id]);
    expect(status).toMatchObject({ deadLetters: 0, failures: 0, endpoint: { enabled: true } });
    expect(receiver.unverified).toEqual([]);
  });
});
