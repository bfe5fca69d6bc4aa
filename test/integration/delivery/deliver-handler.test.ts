/**
 * The delivery Lambda's handler over a runtime of the real parts (the webhook table in dynalite,
 * keys in memory, the queue in memory, a receiver over a real socket): what one invocation writes.
 * A delivery invocation is billed by its log bytes as much as by its time (docs/benchmarks.md,
 * "Webhooks"): ONE INFO line per invocation, the `webhook batch` line with the Lambda context and
 * the deliveries, each with its latency (what the saved Logs Insights queries and `explain` read).
 * Its EMF: the fleet's document, and one of its own for each endpoint with metrics on.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRIC, WEBHOOK_BATCH_LOG_MESSAGE } from '../../../lambdas/common/deployment-contract';
import { createMetrics } from '../../../lambdas/common/metrics';
import { newDeliveryMessage } from '../../../lambdas/delivery/delivery-message';
import { MemoryDeliveryQueue } from '../../../lambdas/delivery/delivery-queue';
import { createEndpointMetrics } from '../../../lambdas/delivery/delivery-report';
import { EndpointRegistry, HealthCache } from '../../../lambdas/delivery/endpoint-cache';
import { createDeliverHandler } from '../../../lambdas/delivery/handlers/deliver-handler';
import type { DeliverRuntime } from '../../../lambdas/delivery/handlers/runtime';
import { sendWebhook } from '../../../lambdas/delivery/http-delivery';
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

/** Two endpoints (/a twice, /b once) queued, and a handler over a runtime of the real parts. */
async function rig(name: string, options: { readonly metricsOn?: readonly ('/a' | '/b')[] } = {}) {
  const tableName = `deliver-handler-${name}-${process.pid}`;
  await createStateTable(db.client, tableName);
  const store = new WebhookStore({ client: db.client, tableName });
  const keys = new MemorySigningKeys();
  const admin = { store, keys, secretPrefix: 'test/webhooks/', policy: 'local' as const };
  const ids: string[] = [];
  for (const path of ['/a', '/b'] as const) {
    const metrics = options.metricsOn?.includes(path) === true;
    const url = receiver.url(`/${name}${path}`);
    const { endpoint, secret } = await addEndpoint(admin, { url, detailTypes: ['*'], metrics });
    secrets.set(`/${name}${path}`, secret);
    ids.push(endpoint.endpointId);
  }
  const queue = new MemoryDeliveryQueue();
  const now = Date.now();
  const event = (n: number) => ({
    'detail-type': 'Member Joined',
    time: new Date(now).toISOString(),
    detail: { eventId: `evt_${name}_${n}`, clubId: 'club-1' },
  });
  await queue.send(
    [ids[0]!, ids[0]!, ids[1]!].map((id, n) => ({
      message: newDeliveryMessage(event(n), id, now),
      delaySeconds: 0,
    })),
  );
  const rt: DeliverRuntime = {
    store,
    registry: new EndpointRegistry({ store }),
    health: new HealthCache({ store }),
    keys,
    queue,
    sink: new MemorySink(),
    timeoutMs: 15_000,
    metrics: createMetrics({ serviceName: 'gym-bridge-test' }),
    endpointMetrics: (id) => createEndpointMetrics(id, { serviceName: 'gym-bridge-test' }),
  };
  const handler = createDeliverHandler(rt, { send: (r) => sendWebhook(r, { policy: 'local' }) });
  const records = queue.receive(10).map((r) => ({ ...r, attributes: {} }));
  return { ids, handler, records };
}

/** One invocation: its answer, its log lines and its EMF documents. */
async function invoke({ handler, records }: Awaited<ReturnType<typeof rig>>) {
  const logs = captureLogs();
  logs.lines.length = 0;
  try {
    const out = await handler(
      { Records: records } as never,
      {
        awsRequestId: 'req-1',
        functionName: 'GymBridge-prod-WebhooksDeliverFunction',
        memoryLimitInMB: '256',
        getRemainingTimeInMillis: () => 60_000,
      } as never,
    );
    // What the invocation wrote to stdout (the log capture spies on it).
    const written = vi.mocked(process.stdout.write).mock.calls.map(([chunk]) => String(chunk));
    return { out, lines: logs.lines, emf: emfDocuments(written) };
  } finally {
    logs.stop();
  }
}

const dimensionsOf = (doc: Record<string, unknown>) =>
  (doc._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] }).CloudWatchMetrics[0]!.Dimensions;

describe('the delivery handler', () => {
  it('writes one INFO line per invocation: the webhook batch line, with the Lambda context', async () => {
    // Prepare: two endpoints, three deliveries queued, a runtime of the real parts.
    const r = await rig('line');
    // Act
    const { out, lines } = await invoke(r);
    // Assess
    expect(out.batchItemFailures).toEqual([]);
    expect(receiver.delivered('/line/a')).toHaveLength(2);
    expect(receiver.delivered('/line/b')).toHaveLength(1);
    expect(receiver.unverified).toEqual([]);
    const info = lines.filter((l) => l.level === 'INFO');
    expect(info.map((l) => l.message)).toEqual([WEBHOOK_BATCH_LOG_MESSAGE]);
    const [line] = info;
    expect(line).toMatchObject({
      records: 3,
      function_name: 'GymBridge-prod-WebhooksDeliverFunction',
      function_request_id: 'req-1',
    });
    // Each delivery with its latency: an endpoint's figures are made of them.
    const entries = (line!.deliveries as string[]).map((d) => d.split(' '));
    expect(
      entries.map(([, ep, result, status, attempt]) => `${ep} ${result} ${status} ${attempt}`).sort(),
    ).toEqual(
      [`${r.ids[0]} delivered 204 1`, `${r.ids[0]} delivered 204 1`, `${r.ids[1]} delivered 204 1`].sort(),
    );
    expect(entries.every((e) => e.length === 6 && Number.isInteger(Number(e[5])))).toBe(true);
    expect(line).not.toHaveProperty('endpoints');
  });

  it('writes the fleet document, and one with its endpointId for the endpoint with metrics on only', async () => {
    // Prepare: /a with metrics on, /b off (the default).
    const r = await rig('metrics', { metricsOn: ['/a'] });
    const [on, off] = r.ids;
    // Act
    const { out, emf } = await invoke(r);
    // Assess
    expect(out.batchItemFailures).toEqual([]);
    const fleet = emf.filter((d) => !('endpointId' in d));
    const own = emf.filter((d) => 'endpointId' in d);
    expect(fleet).toHaveLength(1);
    expect(dimensionsOf(fleet[0]!)).toEqual([['service']]);
    expect(fleet[0]![METRIC.webhookDelivered]).toBe(3);
    expect(own).toHaveLength(1);
    expect(emf.some((d) => d.endpointId === off)).toBe(false);
    const [doc] = own;
    expect(dimensionsOf(doc!)).toEqual([['service', 'endpointId']]);
    expect(doc).toMatchObject({
      service: 'gym-bridge-test',
      endpointId: on,
      [METRIC.webhookDelivered]: 2,
      [METRIC.webhookAttemptsFailed]: 0,
      [METRIC.webhookOldestUndeliveredAge]: 0,
    });
    // A latency per delivery to /a (publication to 2xx, whole ms), the fleet's three.
    const latencies = [doc![METRIC.webhookLatency]].flat() as number[];
    expect(latencies).toHaveLength(2);
    expect(latencies.every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
    expect([fleet[0]![METRIC.webhookLatency]].flat()).toHaveLength(3);
  });
});
