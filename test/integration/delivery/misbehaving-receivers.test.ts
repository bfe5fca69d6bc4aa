/**
 * Webhook delivery against receivers that fail, down or answering with errors, over real sockets
 * with the rig of `misbehaving-receivers-rig.ts` (webhook table in dynalite, every request verified
 * by `standardwebhooks`, the clock shifted, never slept). 0 events lost: each is delivered to each
 * matching endpoint at least once with its eventId as webhook-id, none to an endpoint whose filter
 * does not match, and a healthy endpoint is served at once while another is down (503, or refusing
 * connections) for 72 hours; 500 for an hour, 429 with Retry-After and connection resets are retried
 * on the schedule with the same webhook-id; a 410 disables the endpoint; a schedule exhausted ends in
 * a dead letter, 5 days failing disables, and a redrive delivers. The fan-out's first attempt (and
 * slow or silent receivers) is in `misbehaving-receivers-first-attempt.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../../../lambdas/delivery/delivery-message';
import { endpointStatus, setEndpointEnabled } from '../../../lambdas/delivery/webhook-admin';
import { redriveDeadLetters } from '../../../lambdas/delivery/webhook-recovery';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import {
  add,
  clock,
  deliveredIds,
  event,
  HOUR,
  idsOf,
  receiver,
  refusing,
  runner,
  runUntil,
  START,
  setClock,
  useMisbehavingRig,
} from './misbehaving-receivers-rig';

useMisbehavingRig();

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
