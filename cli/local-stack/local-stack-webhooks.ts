/**
 * Webhook delivery in local-aws: what a deployed stage's webhook rule, fan-out and delivery Lambdas
 * do, for the events local-aws's EventBridge receives. The same use cases (fan-out, deliverBatch),
 * over the local stack's webhook table (./local-stack-table.ts: endpoints, keys, queue, archive), so
 * `webhooks add | list | ... | replay | redrive` run in another terminal against the environment
 * local-aws prints. Loopback and http URLs are allowed (the 'local' address policy).
 *
 *   const hooks = await LocalStackWebhooks.start({ client: db.client, tableName, sink, onDelivery });
 *   hooks.receive(event);   // every event the local bus receives
 *   await hooks.stop();
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { deliverBatch } from '../../lambdas/delivery/deliver-batch';
import type { BusEvent } from '../../lambdas/delivery/delivery-message';
import { DeliveryReport, type DeliveryResult, NO_METRICS } from '../../lambdas/delivery/delivery-report';
import { EndpointRegistry, HealthCache } from '../../lambdas/delivery/endpoint-cache';
import { EndpointPacer, fanOut } from '../../lambdas/delivery/fan-out';
import { DEFAULT_TIMEOUT_MS, sendWebhook } from '../../lambdas/delivery/http-delivery';
import { WebhookStore } from '../../lambdas/delivery/webhook-store';
import type { EventSink } from '../../lambdas/events/event-sink';
import { DEFAULT_EVENT_SOURCE } from '../../lambdas/events/event-source';
import { MemorySink } from '../../lambdas/events/memory-sink';
import { EventBridgeSink } from '../../lambdas/events/publisher';
import { createStateTable } from '../../lambdas/state/table';
import type { ReceivedEvent } from '../../local-aws/local-eventbridge';
import { DEFAULT_TABLE } from '../commands/webhooks/usage';
import { LocalArchive } from './local-archive';
import { markLocalStack } from './local-stack-table';
import { TableDeliveryQueue } from './table-delivery-queue';
import { TableSigningKeys } from './table-signing-keys';

/** One delivery's outcome, for the terminal. */
export interface DeliveryNote {
  readonly endpointId: string;
  readonly webhookId: string;
  readonly result: DeliveryResult;
  readonly status?: number;
  readonly attempt?: number;
}

export interface LocalStackWebhooksOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Where Webhook Delivery Failed / Endpoint Disabled go (the local bus). @default a MemorySink */
  readonly sink?: EventSink;
  /** Each delivery's outcome. */
  readonly onDelivery?: (note: DeliveryNote) => void;
  /** A fan-out or delivery round that failed (the events stay queued or are fanned out again). */
  readonly onError?: (what: string, err: unknown) => void;
  /** @default 250 */
  readonly pumpEveryMs?: number;
}

/** A DeliveryReport that also tells each delivery as it is added. */
class TellingReport extends DeliveryReport {
  constructor(private readonly tell: ((note: DeliveryNote) => void) | undefined) {
    super();
  }
  override add(...args: Parameters<DeliveryReport['add']>): void {
    super.add(...args);
    const [endpointId, webhookId, result, detail] = args;
    this.tell?.({ endpointId, webhookId, result, ...(detail ?? {}) });
  }
}

export class LocalStackWebhooks {
  readonly store: WebhookStore;
  readonly queue: TableDeliveryQueue;
  readonly archive: LocalArchive;
  readonly #options: LocalStackWebhooksOptions;
  readonly #registry: EndpointRegistry;
  readonly #health: HealthCache;
  readonly #keys: TableSigningKeys;
  readonly #pacer = new EndpointPacer(1);
  readonly #sink: EventSink;
  #incoming: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #pumping: Promise<void> = Promise.resolve();
  #stopped = false;

  private constructor(options: LocalStackWebhooksOptions) {
    this.#options = options;
    const { client, tableName } = options;
    this.store = new WebhookStore({ client, tableName });
    this.queue = new TableDeliveryQueue(client, tableName);
    this.archive = new LocalArchive(client, tableName);
    // Endpoints are changed by the CLI in another process: the registry version is read every second.
    this.#registry = new EndpointRegistry({ store: this.store, checkEveryMs: 1000 });
    this.#health = new HealthCache({ store: this.store, ttlMs: 1000 });
    this.#keys = new TableSigningKeys(client, tableName);
    this.#sink = options.sink ?? new MemorySink();
  }

  /** Creates and marks the webhook table, then delivers what is queued until stop(). */
  static async start(options: LocalStackWebhooksOptions): Promise<LocalStackWebhooks> {
    await createStateTable(options.client, options.tableName);
    await markLocalStack(options.client, options.tableName);
    const hooks = new LocalStackWebhooks(options);
    hooks.#schedule();
    return hooks;
  }

  /** An event the local bus received: archived, then fanned out to the matching endpoints. */
  receive(event: BusEvent & { readonly time: string }): void {
    this.#incoming = this.#incoming.then(async () => {
      try {
        await this.archive.add(event);
        const out = await fanOut(
          { registry: this.#registry, queue: this.queue, pacer: this.#pacer, now: Date.now },
          [{ recordId: String(event.detail.eventId), body: JSON.stringify(event) }],
        );
        if (out.failedRecordIds.length > 0) throw new Error('deliveries not queued');
      } catch (err) {
        this.#options.onError?.('fan-out', err);
      }
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#incoming;
    await this.#pumping;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pumping = this.#pump()
        .catch((err: unknown) => this.#options.onError?.('delivery', err))
        .finally(() => this.#schedule());
    }, this.#options.pumpEveryMs ?? 250);
  }

  /** Delivers every message due now, ten at a time. */
  async #pump(): Promise<void> {
    while (!this.#stopped) {
      const batch = await this.queue.receive(10);
      if (batch.length === 0) return;
      const report = new TellingReport(this.#options.onDelivery);
      const settled = await deliverBatch(
        {
          registry: this.#registry,
          health: this.#health,
          store: this.store,
          keys: this.#keys,
          queue: this.queue,
          sink: this.#sink,
          send: (request) => sendWebhook(request, { policy: 'local' }),
          report,
          now: Date.now,
          random: Math.random,
          attemptBudgetMs: DEFAULT_TIMEOUT_MS + 1_000,
        },
        batch,
        Number.POSITIVE_INFINITY,
      );
      report.publish(NO_METRICS);
      for (const record of batch)
        if (settled.get(record.messageId) === 'done') await this.queue.delete(record.receiptHandle);
    }
  }
}

/**
 * What `local-aws` adds for webhooks (../commands/local-aws.ts): the local stack's webhook table in
 * its DynamoDB, every event its EventBridge receives fanned out and delivered
 * (above), each delivery printed, and the operational webhook events (Webhook
 * Delivery Failed, Webhook Endpoint Disabled) put on its bus, as the stack does.
 */
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
