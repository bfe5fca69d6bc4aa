/**
 * Sample webhook events, produced by the real delivery use cases (lambdas/delivery/) in process,
 * on a shifted clock, against endpoints whose every attempt fails as asked (no socket): an endpoint
 * answering 503 for 3 days (Webhook Delivery Failed, one per event), endpoints answering 410 Gone
 * (Webhook Endpoint Disabled, one per endpoint).
 */

import { HOUR_MS } from '../../lambdas/common/time-units';
import { busEventOf, LocalWebhooks } from '../../lambdas/delivery/local-webhooks';
import { type BridgeEvent, type BridgeEventOf, DETAIL_TYPES } from '../../lambdas/events/catalog';
import { createEvent } from '../../lambdas/events/envelope';
import { MemorySink } from '../../lambdas/events/memory-sink';
import { startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';
import { SAMPLE_START, type SampleOptions } from './rig';

export async function webhookEvents(options: SampleOptions): Promise<BridgeEvent[]> {
  const db = await startEmbeddedDynamoDb();
  let clock = Date.parse(options.startTime ?? SAMPLE_START);
  const sink = new MemorySink();
  const gone = options.detailType === DETAIL_TYPES.WebhookEndpointDisabled;
  try {
    const hooks = await LocalWebhooks.start({
      client: db.client,
      tableName: 'sample-webhooks',
      now: () => clock,
      random: () => 0.5,
      sink,
      send: async () => ({
        ok: false,
        kind: 'http',
        status: gone ? 410 : 503,
        error: gone ? 'HTTP 410 Gone' : 'HTTP 503 Service Unavailable',
        ms: 12,
      }),
    });
    const endpoints = gone ? options.count : 1;
    for (let i = 0; i < endpoints; i++) {
      await hooks.add({ url: `https://hooks${i}.example.com/catch/${i}`, detailTypes: ['*'] });
    }
    const events = gone ? 1 : options.count;
    const published = Array.from({ length: events }, (_, i) =>
      createEvent(
        DETAIL_TYPES.MemberVisitRecorded,
        {
          clubId: 'club-1',
          identity: ['sample', String(options.seed ?? 1), String(i)],
          occurredAt: new Date(clock).toISOString(),
          observedAt: new Date(clock).toISOString(),
          subject: { memberNumber: `M${1000 + i}` },
        },
        { data: { MemberNumber: `M${1000 + i}`, VisitDateTime: '2025-03-05T06:02:11' } },
      ),
    );
    await hooks.publish(published.map((e) => busEventOf(e, new Date(clock).toISOString())));
    const end = clock + 110 * HOUR_MS;
    for (let guard = 0; guard < 10_000 && clock <= end; guard++) {
      await hooks.pump();
      const next = hooks.queue.nextVisibleAt();
      if (next === undefined) break;
      clock = Math.max(next, clock + 1);
    }
    return (sink.ofType(options.detailType) as BridgeEventOf<typeof options.detailType>[]).slice(
      0,
      options.count,
    ) as BridgeEvent[];
  } finally {
    await db.close();
  }
}
