/**
 * `LocalWebhooks.stop()` and `pump(untilMs)` wait for the pump `run()` has under way: the demo stops it, prints its
 * tally and closes the table, so a delivery still in flight at the stop would be counted as "not
 * delivered yet" although the receiver got it, and would reach the closed table afterwards. The
 * attempt here is held open by a gate (the `send` option); the table is dynalite's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptOutcome, DeliveryRequest } from '../../../lambdas/delivery/http-delivery';
import { LocalWebhooks } from '../../../lambdas/delivery/local-webhooks';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { makeEventId } from '../../../lambdas/events/event-id';
import { type Dynalite, startDynalite } from '../../support/dynalite';

/** A visit event as the bus carries it, published at `time`. */
const visitEvent = (eventId: string, time: string) => ({
  'detail-type': DETAIL_TYPES.MemberVisitRecorded,
  time,
  detail: {
    eventId,
    eventVersion: 1,
    clubId: 'club-1',
    source: 'visits',
    occurredAt: time,
    observedAt: time,
    subject: {},
  },
});

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.close();
});

describe('LocalWebhooks.stop', () => {
  it('resolves only once the delivery in flight is settled, and leaves the queue empty', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const sent: DeliveryRequest[] = [];
    let started!: () => void;
    const attemptStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const hooks = await LocalWebhooks.start({
      client: db.client,
      tableName: `webhooks-stop-${process.pid}`,
      firstAttemptBudgetMs: 0, // every delivery queued: run() makes the attempt
      send: async (request): Promise<AttemptOutcome> => {
        sent.push(request);
        started();
        await gate;
        return { ok: true, status: 204, ms: 1 };
      },
    });
    await hooks.add({ url: 'http://127.0.0.1:9/hook', detailTypes: ['*'] });
    const time = new Date().toISOString();
    await hooks.publish([visitEvent(makeEventId('stop-test', '1'), time)]);
    expect(hooks.queue.size).toBe(1);
    hooks.run(5);
    await attemptStarted;

    let stopped = false;
    const stopping = hooks.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    open();
    await stopping;
    expect(sent).toHaveLength(1);
    expect(hooks.queue.size).toBe(0);
  });
});

describe("LocalWebhooks.pump with a deadline (the demo's drain)", () => {
  it('settles the batch under way when the deadline passes, and takes no batch after it', async () => {
    let nowMs = 1_000_000;
    const deadline = nowMs + 3_600_000 + 5_000;
    let released = 0;
    const hooks = await LocalWebhooks.start({
      client: db.client,
      tableName: `webhooks-drain-${process.pid}`,
      firstAttemptBudgetMs: 0,
      now: () => nowMs,
      send: async (): Promise<AttemptOutcome> => {
        // The first batch's attempts are slow: the deadline passes while they are in flight.
        await new Promise((resolve) => setTimeout(resolve, 20));
        nowMs = deadline + 1;
        released++;
        return { ok: true, status: 204, ms: 20 };
      },
    });
    await hooks.add({ url: 'http://127.0.0.1:9/hook', detailTypes: ['*'] });
    const time = new Date(nowMs).toISOString();
    await hooks.publish(
      Array.from({ length: 25 }, (_, i) => visitEvent(makeEventId('drain-test', String(i)), time)),
    );
    expect(hooks.queue.size).toBe(25);
    nowMs += 3_600_000; // every queued delivery visible (the pacer spaces them a little)
    const taken = await hooks.pump(deadline);
    // One batch of 10 (its attempts go on past the deadline), each settled and deleted; no batch after.
    expect(taken).toBe(10);
    expect(released).toBe(10);
    expect(hooks.queue.size).toBe(15);
    expect(await hooks.pump(deadline)).toBe(0);
    await hooks.stop();
  });
});
