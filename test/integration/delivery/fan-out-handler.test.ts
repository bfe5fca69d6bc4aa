/**
 * The fan-out Lambda's handler over a runtime of the real parts (the webhook table in dynalite,
 * keys in memory, the queue in memory, a receiver over a real socket): the first attempt of each
 * delivery to a healthy endpoint made at once, one per endpoint an invocation, the others queued
 * (paced); what one invocation writes (ONE `webhook batch` line with the Lambda context, ONE EMF
 * document); a record whose deliveries could not all be queued comes back, alone; and the ingest
 * queue drained by the invocation itself, each record deleted once its deliveries are made.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRIC, WEBHOOK_BATCH_LOG_MESSAGE } from '../../../lambdas/common/deployment-contract';
import { createMetrics } from '../../../lambdas/common/metrics';
import { type DeliveryQueue, MemoryDeliveryQueue } from '../../../lambdas/delivery/delivery-queue';
import { createEndpointMetrics } from '../../../lambdas/delivery/delivery-report';
import { EndpointRegistry, HealthCache } from '../../../lambdas/delivery/endpoint-cache';
import { EndpointPacer } from '../../../lambdas/delivery/fan-out';
import { createFanOutHandler } from '../../../lambdas/delivery/handlers/fan-out-handler';
import type { FanOutRuntime } from '../../../lambdas/delivery/handlers/runtime';
import { sendWebhook } from '../../../lambdas/delivery/http-delivery';
import type { IngestMessage, IngestQueue } from '../../../lambdas/delivery/ingest-drain';
import { MemorySigningKeys } from '../../../lambdas/delivery/signing-keys';
import { addEndpoint } from '../../../lambdas/delivery/webhook-admin';
import { WebhookStore } from '../../../lambdas/delivery/webhook-store';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import { createStateTable } from '../../../lambdas/state/table';
import { type Dynalite, startDynalite } from '../../support/dynalite';
import { emfDocuments } from '../../support/emf';
import { captureLogs } from '../../support/log-capture';
import { type Receiver, startReceiver } from './receiver';

let db: Dynalite;
let receiver: Receiver;
const secrets = new Map<string, string>();

beforeAll(async () => {
  db = await startDynalite();
  receiver = await startReceiver(secrets);
});
afterAll(async () => {
  await receiver.close();
  await db.close();
});

/** A queue whose sends fail (SQS refusing), for the record that must come back. */
class RefusingQueue extends MemoryDeliveryQueue {
  override async send(): Promise<void> {
    throw new Error('SendMessageBatch refused');
  }
}

/** The ingest queue in memory: what is left, and what was deleted. */
class MemoryIngest implements IngestQueue {
  readonly deleted: string[] = [];
  constructor(private readonly left: IngestMessage[]) {}
  async receive(max: number): Promise<IngestMessage[]> {
    return this.left.splice(0, max);
  }
  async delete(handles: readonly string[]): Promise<void> {
    this.deleted.push(...handles);
  }
}

/** Endpoints /a and /b taking every event, and a handler over a runtime of the real parts. */
async function rig(
  name: string,
  queue: DeliveryQueue & { size?: number } = new MemoryDeliveryQueue(),
  ingest?: IngestQueue,
) {
  const tableName = `fan-out-handler-${name}-${process.pid}`;
  await createStateTable(db.client, tableName);
  const store = new WebhookStore({ client: db.client, tableName });
  const keys = new MemorySigningKeys();
  const admin = { store, keys, secretPrefix: 'test/webhooks/', policy: 'local' as const };
  const ids: string[] = [];
  for (const path of ['/a', '/b']) {
    const { endpoint, secret } = await addEndpoint(admin, {
      url: receiver.url(`/${name}${path}`),
      detailTypes: ['*'],
    });
    secrets.set(`/${name}${path}`, secret);
    ids.push(endpoint.endpointId);
  }
  const rt: FanOutRuntime = {
    store,
    registry: new EndpointRegistry({ store }),
    health: new HealthCache({ store }),
    keys,
    queue,
    sink: new MemorySink(),
    timeoutMs: 15_000,
    metrics: createMetrics({ serviceName: 'gym-bridge-test' }),
    endpointMetrics: (id) => createEndpointMetrics(id, { serviceName: 'gym-bridge-test' }),
    pacer: new EndpointPacer(1),
    ...(ingest ? { ingest } : {}),
  };
  const handler = createFanOutHandler(rt, { send: (r) => sendWebhook(r, { policy: 'local' }), paceMs: 10 });
  return { ids, handler, queue };
}

const record = (name: string, n: number) => ({
  messageId: `rec-${n}`,
  receiptHandle: `rh-${n}`,
  attributes: {},
  body: JSON.stringify({
    'detail-type': 'Member Joined',
    time: new Date().toISOString(),
    detail: { eventId: `evt_${name}_${n}`, clubId: 'club-1' },
  }),
});

/** One invocation: its answer, its log lines and its EMF documents. */
async function invoke(handler: Awaited<ReturnType<typeof rig>>['handler'], records: unknown[]) {
  const logs = captureLogs();
  logs.lines.length = 0;
  try {
    const out = await handler(
      { Records: records } as never,
      {
        awsRequestId: 'req-1',
        functionName: 'GymBridge-prod-WebhooksFanOutFunction',
        memoryLimitInMB: '256',
        getRemainingTimeInMillis: () => 30_000,
      } as never,
    );
    const written = vi.mocked(process.stdout.write).mock.calls.map(([chunk]) => String(chunk));
    return { out, lines: logs.lines, emf: emfDocuments(written) };
  } finally {
    logs.stop();
  }
}

describe('the fan-out handler', () => {
  it('attempts the first delivery to each healthy endpoint at once, queues the next (paced); one line, one document', async () => {
    // Prepare: two events, both for /a and /b.
    const r = await rig('first');
    // Act
    const { out, lines, emf } = await invoke(r.handler, [record('first', 1), record('first', 2)]);
    // Assess: one request each at once (the first event), the second event's two paced into the queue.
    expect(out.batchItemFailures).toEqual([]);
    expect(receiver.delivered('/first/a').map((x) => x.webhookId)).toEqual(['evt_first_1']);
    expect(receiver.delivered('/first/b').map((x) => x.webhookId)).toEqual(['evt_first_1']);
    expect((r.queue as MemoryDeliveryQueue).size).toBe(2);
    const info = lines.filter((l) => l.level === 'INFO');
    expect(info.map((l) => l.message)).toEqual([WEBHOOK_BATCH_LOG_MESSAGE]);
    expect(info[0]).toMatchObject({
      records: 2,
      events: 2,
      attempted: 2,
      queued: 2,
      failedRecords: 0,
      function_request_id: 'req-1',
    });
    const deliveries = (info[0]!.deliveries as string[]).map((d) => d.split(' ').slice(0, 3).join(' '));
    expect(deliveries.sort()).toEqual(
      [
        `evt_first_1 ${r.ids[0]} delivered`,
        `evt_first_1 ${r.ids[1]} delivered`,
        `evt_first_2 ${r.ids[0]} queued`,
        `evt_first_2 ${r.ids[1]} queued`,
      ].sort(),
    );
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ [METRIC.webhookDeliveriesQueued]: 4, [METRIC.webhookDelivered]: 2 });
    expect([emf[0]![METRIC.webhookLatency]].flat()).toHaveLength(2);
  });

  it('leaves out a record that is not a bridge event, with an ERROR line that says why', async () => {
    // Prepare: four records that are not events of the bridge, and one that is.
    const r = await rig('bad');
    const bad = (n: number, body: string) => ({ ...record('bad', n), body });
    const records = [
      bad(1, '{"detail-type": "Member Joined", "detail": '),
      bad(2, '"a string"'),
      bad(3, JSON.stringify({ 'detail-type': 'Member Joined', detail: { clubId: 'club-1' } })),
      bad(4, JSON.stringify({ detail: { eventId: 'evt_x' } })),
      record('bad', 5),
    ];
    // Act
    const { out, lines } = await invoke(r.handler, records);
    // Assess: the event is delivered, the others dropped (not retried), each with its reason.
    expect(out.batchItemFailures).toEqual([]);
    expect(receiver.delivered('/bad/a').map((x) => x.webhookId)).toEqual(['evt_bad_5']);
    const errors = lines.filter((l) => l.level === 'ERROR');
    expect(errors.map((l) => [l.recordId, l.reason])).toEqual([
      ['rec-1', 'the body is not JSON'],
      ['rec-2', 'the body is not a JSON object'],
      ['rec-3', 'its detail has no eventId'],
      ['rec-4', 'it has no detail-type'],
    ]);
  });

  it('a record whose deliveries cannot all be queued comes back; one delivered at once does not', async () => {
    // Prepare: a queue that refuses; /a's second delivery must be queued (paced).
    const r = await rig('refused', new RefusingQueue());
    // Act
    const { out } = await invoke(r.handler, [record('refused', 1), record('refused', 2)]);
    // Assess: record 1 was delivered to both at once; record 2's deliveries could not be queued.
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'rec-2' }]);
    expect(receiver.delivered('/refused/a').map((x) => x.webhookId)).toEqual(['evt_refused_1']);
  });

  it('drains the ingest queue after a busy batch: every event fanned out, each record deleted, one line', async () => {
    // Prepare: 5 records from the event source (a busy batch), 12 more waiting in the ingest queue.
    const waiting = Array.from({ length: 12 }, (_, i) => {
      const r = record('drain', i + 6);
      return { messageId: r.messageId, receiptHandle: r.receiptHandle, body: r.body };
    });
    const ingest = new MemoryIngest([...waiting]);
    const r = await rig('drain', new MemoryDeliveryQueue(), ingest);
    // Act
    const { out, lines } = await invoke(
      r.handler,
      [1, 2, 3, 4, 5].map((n) => record('drain', n)),
    );
    // Assess: 17 events to both endpoints: each one's first delivered at once, the others paced.
    expect(out.batchItemFailures).toEqual([]);
    expect(ingest.deleted.sort()).toEqual(waiting.map((m) => m.receiptHandle).sort());
    const made = receiver.delivered('/drain/a').length + (r.queue as MemoryDeliveryQueue).size / 2;
    expect(made).toBe(17);
    const info = lines.filter((l) => l.level === 'INFO');
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({ records: 5, received: 12, receives: 3, events: 17, comeBack: 0 });
    expect(info[0]!.deliveries).toHaveLength(34);
  });

  it('does not drain after a sparse batch (events come too slowly for it to pay)', async () => {
    const ingest = new MemoryIngest([
      { messageId: 'w1', receiptHandle: 'rh-w1', body: record('sparse', 9).body },
    ]);
    const r = await rig('sparse', new MemoryDeliveryQueue(), ingest);
    const { lines } = await invoke(r.handler, [record('sparse', 1)]);
    expect(ingest.deleted).toEqual([]);
    expect(lines.find((l) => l.level === 'INFO')).not.toHaveProperty('received');
  });
});
