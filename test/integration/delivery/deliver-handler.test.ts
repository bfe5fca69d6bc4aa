/**
 * The delivery Lambda's handler over a runtime of the real parts (the webhook table in dynalite,
 * keys in memory, the queue in memory, a receiver over a real socket): what one invocation writes.
 * A delivery invocation is billed by its log bytes as much as by its time (docs/benchmarks.md,
 * "Webhooks"): ONE INFO line per invocation, the `webhook batch` line with the Lambda context, the
 * endpoints' figures and the deliveries (what the saved Logs Insights queries and `explain` read).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_BATCH_LOG_MESSAGE } from '../../../lambdas/common/deployment-contract';
import { newDeliveryMessage } from '../../../lambdas/delivery/delivery-message';
import { MemoryDeliveryQueue } from '../../../lambdas/delivery/delivery-queue';
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

const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

describe('the delivery handler', () => {
  it('writes one INFO line per invocation: the webhook batch line, with the Lambda context', async () => {
    // Prepare: two endpoints, three deliveries queued, a runtime of the real parts.
    const tableName = `deliver-handler-${process.pid}`;
    await createStateTable(db.client, tableName);
    const store = new WebhookStore({ client: db.client, tableName });
    const keys = new MemorySigningKeys();
    const admin = { store, keys, secretPrefix: 'test/webhooks/', policy: 'local' as const };
    const ids: string[] = [];
    for (const path of ['/a', '/b']) {
      const { endpoint, secret } = await addEndpoint(admin, { url: receiver.url(path), detailTypes: ['*'] });
      secrets.set(path, secret);
      ids.push(endpoint.endpointId);
    }
    const queue = new MemoryDeliveryQueue();
    const now = Date.now();
    const event = (n: number) => ({
      'detail-type': 'Member Joined',
      time: new Date(now).toISOString(),
      detail: { eventId: `evt_handler_${n}`, clubId: 'club-1' },
    });
    await queue.send(
      [ids[0]!, ids[0]!, ids[1]!].map((id, n) => ({
        message: newDeliveryMessage(event(n), id, now),
        delaySeconds: 0,
      })),
    );
    const rt = {
      store,
      registry: new EndpointRegistry({ store }),
      health: new HealthCache({ store }),
      keys,
      queue,
      sink: new MemorySink(),
      timeoutMs: 15_000,
      metrics,
    } as unknown as DeliverRuntime;
    const handler = createDeliverHandler(rt, { send: (r) => sendWebhook(r, { policy: 'local' }) });
    const records = queue.receive(10).map((r) => ({ ...r, attributes: {} }));
    const logs = captureLogs();
    logs.lines.length = 0;
    // Act
    let out: Awaited<ReturnType<typeof handler>>;
    try {
      out = await handler(
        { Records: records } as never,
        {
          awsRequestId: 'req-1',
          functionName: 'GymBridge-prod-WebhooksDeliverFunction',
          memoryLimitInMB: '256',
          getRemainingTimeInMillis: () => 60_000,
        } as never,
      );
    } finally {
      logs.stop();
    }
    // Assess
    expect(out.batchItemFailures).toEqual([]);
    expect(receiver.delivered('/a')).toHaveLength(2);
    expect(receiver.delivered('/b')).toHaveLength(1);
    expect(receiver.unverified).toEqual([]);
    const info = logs.lines.filter((l) => l.level === 'INFO');
    expect(info.map((l) => l.message)).toEqual([WEBHOOK_BATCH_LOG_MESSAGE]);
    const [line] = info;
    expect(line).toMatchObject({
      records: 3,
      function_name: 'GymBridge-prod-WebhooksDeliverFunction',
      function_request_id: 'req-1',
      endpoints: { [ids[0]!]: { delivered: 2 }, [ids[1]!]: { delivered: 1 } },
    });
    expect(line!.deliveries).toHaveLength(3);
  });
});
