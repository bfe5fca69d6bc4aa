/**
 * Webhook delivery in one process, without AWS: what the local demo (`npm start -- --webhook URL`)
 * and the tests run. The same fan-out (first attempts included) and delivery use cases as the
 * Lambdas, over the webhook table in the embedded DynamoDB (or any DynamoDB client), signing keys
 * in memory and the delivery queue in memory on the given clock; real HTTP to the endpoints.
 *
 *   const hooks = await LocalWebhooks.start({ client, tableName: 'gym-bridge-webhooks' });
 *   const { endpoint, secret } = await hooks.add({ url: 'http://localhost:9000/hook', detailTypes: ['*'] });
 *   await hooks.publish(events);      // as the bus would carry them: first attempts made, the rest queued
 *   await hooks.pump();               // every queued delivery due now; hooks.run() keeps pumping
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { BridgeEvent } from '../events/catalog';
import type { EventSink } from '../events/event-sink';
import { MemorySink } from '../events/memory-sink';
import { createStateTable } from '../state/table';
import type { AddressPolicy } from './address-policy';
import { attemptDeps } from './attempt-outcome';
import { deliverBatch } from './deliver-batch';
import { INLINE_BUDGET_MS } from './delivery-decision';
import type { BusEvent } from './delivery-message';
import { MemoryDeliveryQueue } from './delivery-queue';
import { DeliveryReport, NO_METRICS } from './delivery-report';
import { EndpointRegistry, HealthCache } from './endpoint-cache';
import { EndpointPacer, fanOut } from './fan-out';
import {
  type AttemptOutcome,
  type DeliveryRequest,
  type HttpDeliveryOptions,
  sendWebhook,
} from './http-delivery';
import { MemorySigningKeys, type SigningKeyStore } from './signing-keys';
import { type AdminContext, addEndpoint, type EndpointInput } from './webhook-admin';
import { WebhookStore } from './webhook-store';

export interface LocalWebhooksOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default Math.random */
  readonly random?: () => number;
  /** Where Webhook Delivery Failed / Endpoint Disabled go. @default a MemorySink */
  readonly sink?: EventSink;
  /** @default 'local' (http and loopback allowed) */
  readonly policy?: AddressPolicy;
  /** Attempt options (timeout, CA, resolver). */
  readonly http?: Partial<HttpDeliveryOptions>;
  /** Replaces the HTTP attempt (tests). */
  readonly send?: (request: DeliveryRequest) => Promise<AttemptOutcome>;
  readonly keys?: SigningKeyStore;
  /**
   * How long the fan-out's first attempt waits for an answer (0: no first attempt, every delivery
   * is queued). @default INLINE_BUDGET_MS, as deployed
   */
  readonly firstAttemptBudgetMs?: number;
}

/** A BridgeEvent as the bus's rule target would see it. */
export function busEventOf(event: BridgeEvent, time: string): BusEvent {
  return {
    'detail-type': event.detailType,
    time,
    detail: event.detail as unknown as Record<string, unknown>,
  };
}

export class LocalWebhooks {
  readonly store: WebhookStore;
  readonly queue: MemoryDeliveryQueue;
  readonly sink: EventSink;
  readonly keys: SigningKeyStore;
  readonly registry: EndpointRegistry;
  readonly #health: HealthCache;
  readonly #pacer = new EndpointPacer(1);
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #send: (request: DeliveryRequest) => Promise<AttemptOutcome>;
  readonly #policy: AddressPolicy;
  readonly #budgetMs: number;
  #timer: NodeJS.Timeout | undefined;
  /** The pump `run` has under way, if any. */
  #pumping: Promise<void> | undefined;

  private constructor(options: LocalWebhooksOptions) {
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#policy = options.policy ?? 'local';
    this.store = new WebhookStore({ client: options.client, tableName: options.tableName });
    this.queue = new MemoryDeliveryQueue({ now: this.#now });
    this.sink = options.sink ?? new MemorySink();
    this.keys = options.keys ?? new MemorySigningKeys();
    this.registry = new EndpointRegistry({ store: this.store, now: this.#now, checkEveryMs: 0 });
    this.#health = new HealthCache({ store: this.store, now: this.#now, ttlMs: 0 });
    const http = { policy: this.#policy, ...options.http };
    this.#send = options.send ?? ((request) => sendWebhook(request, http));
    this.#budgetMs = options.firstAttemptBudgetMs ?? INLINE_BUDGET_MS;
  }

  /** Creates the webhook table if missing (same shape as the state table) and the runner. */
  static async start(options: LocalWebhooksOptions): Promise<LocalWebhooks> {
    await createStateTable(options.client, options.tableName);
    return new LocalWebhooks(options);
  }

  /** The admin context over this runner's table and keys (for the `webhooks` library calls). */
  admin(): AdminContext {
    return {
      store: this.store,
      keys: this.keys,
      secretPrefix: 'local/webhooks/',
      policy: this.#policy,
      now: this.#now,
    };
  }

  add(input: EndpointInput): ReturnType<typeof addEndpoint> {
    return addEndpoint(this.admin(), input);
  }

  /**
   * Fans events out as the fan-out Lambda does: the first attempt of each delivery to a healthy
   * endpoint made at once, the others queued. Resolves with the deliveries made.
   */
  async publish(events: readonly BusEvent[]): Promise<number> {
    const report = new DeliveryReport();
    const result = await fanOut(
      {
        registry: this.registry,
        queue: this.queue,
        pacer: this.#pacer,
        now: this.#now,
        ...(this.#budgetMs > 0
          ? { firstAttempt: { ...this.#attemptDeps(report), budgetMs: this.#budgetMs } }
          : {}),
      },
      events.map((e, i) => ({ recordId: String(i), body: JSON.stringify(e) })),
    );
    report.publish(NO_METRICS);
    return result.deliveries;
  }

  #attemptDeps(report: DeliveryReport) {
    const { registry, store, keys, queue, sink } = this;
    return attemptDeps(
      { registry, health: this.#health, store, keys, queue, sink },
      { send: this.#send, report, now: this.#now, random: this.#random },
    );
  }

  /**
   * Delivers every message visible now, batch after batch; resolves with how many were taken. With
   * `untilMs`, no batch is taken after it (the one under way settles: each attempt has its timeout).
   */
  async pump(untilMs = Number.POSITIVE_INFINITY): Promise<number> {
    let taken = 0;
    for (;;) {
      if (this.#now() >= untilMs) return taken;
      const batch = this.queue.receive(10);
      if (batch.length === 0) return taken;
      taken += batch.length;
      const report = new DeliveryReport();
      const settled = await deliverBatch(
        { ...this.#attemptDeps(report), attemptBudgetMs: 0 },
        batch,
        Number.POSITIVE_INFINITY,
      );
      report.publish(NO_METRICS);
      for (const record of batch)
        if (settled.get(record.messageId) === 'done') this.queue.delete(record.receiptHandle);
    }
  }

  /** Pumps every `everyMs` until `stop()` (the demo). */
  run(everyMs = 250): void {
    const tick = () => {
      this.#pumping = this.pump()
        .then(() => undefined)
        .catch(() => undefined)
        .finally(() => {
          this.#pumping = undefined;
          if (this.#timer) this.#timer = setTimeout(tick, everyMs);
        });
    };
    this.#timer = setTimeout(tick, everyMs);
  }

  /**
   * Stops `run`'s pumping, and resolves once a pump it had under way is over: its deliveries are
   * then settled (tallied, deleted from the queue or due again), and nothing of it touches the table
   * after the caller closes it.
   */
  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#pumping;
  }
}
