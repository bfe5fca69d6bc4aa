/**
 * What `local-aws` adds for webhooks (../commands/local-aws.ts): the local stack's webhook table in
 * its DynamoDB, every event its EventBridge receives fanned out and delivered
 * (./local-stack-webhooks.ts), each delivery printed, and the operational webhook events (Webhook
 * Delivery Failed, Webhook Endpoint Disabled) put on its bus, as the stack does.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DEFAULT_EVENT_SOURCE } from '../../lambdas/events/event-source';
import { EventBridgeSink } from '../../lambdas/events/publisher';
import type { ReceivedEvent } from '../../local-aws/local-eventbridge';
import { DEFAULT_TABLE } from '../commands/webhooks/usage';
import { type DeliveryNote, LocalStackWebhooks } from './local-stack-webhooks';

export interface LocalAwsWebhooks {
  /** An event the local bus received. */
  receive(event: ReceivedEvent): void;
  /** Lines for local-aws's banner. */
  readonly banner: readonly string[];
  stop(): Promise<void>;
}

export function deliveryLine(note: DeliveryNote): string {
  const status = note.status === undefined ? '' : ` ${note.status}`;
  const attempt = note.attempt === undefined ? '' : ` (attempt ${note.attempt})`;
  return `${new Date().toISOString()}  webhook  ${note.endpointId}  ${note.result}${status}${attempt}  webhook-id ${note.webhookId}`;
}

export async function startLocalAwsWebhooks(options: {
  readonly client: DynamoDBClient;
  readonly eventBridgeEndpoint: string;
  readonly bus: string;
  readonly region: string;
  readonly quiet: boolean;
}): Promise<LocalAwsWebhooks> {
  const events = new EventBridgeClient({
    endpoint: options.eventBridgeEndpoint,
    region: options.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const hooks = await LocalStackWebhooks.start({
    client: options.client,
    tableName: DEFAULT_TABLE,
    sink: new EventBridgeSink({ client: events, busName: options.bus, source: DEFAULT_EVENT_SOURCE }),
    ...(options.quiet ? {} : { onDelivery: (note) => process.stdout.write(`${deliveryLine(note)}\n`) }),
    onError: (what, err) =>
      process.stderr.write(
        `local-aws: webhook ${what} failed: ${err instanceof Error ? err.message : err}\n`,
      ),
  });
  return {
    receive: (e) =>
      hooks.receive({
        'detail-type': e.detailType,
        time: e.time,
        detail: (typeof e.detail === 'object' && e.detail !== null ? e.detail : {}) as Record<
          string,
          unknown
        >,
      }),
    banner: [
      `  webhooks     table ${DEFAULT_TABLE}: every event received is delivered to the endpoints`,
      '               added with webhooks add (http and localhost allowed here)',
    ],
    stop: async () => {
      await hooks.stop();
      events.destroy();
    },
  };
}
