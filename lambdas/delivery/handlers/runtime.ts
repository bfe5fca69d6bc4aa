/**
 * What the two webhook Lambdas run with, built once per container from the deployment contract's
 * environment (a missing or invalid variable fails the load, naming it): the webhook table, the
 * delivery queue, the signing keys, the bus for the operational events; the fan-out, which makes
 * the first attempts, has all of it and its pacer. The clients take the one SDK retry
 * configuration (common/aws-clients.ts).
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../common/aws-clients';
import { ENV, ruledNumber, ruleMeaning } from '../../common/deployment-contract';
import { createMetrics } from '../../common/metrics';
import type { EventSink } from '../../events/event-sink';
import { DEFAULT_EVENT_SOURCE, EVENT_SOURCE_RULE, eventSourceProblem } from '../../events/event-source';
import { EventBridgeSink } from '../../events/publisher';
import { type DeliveryQueue, SqsDeliveryQueue } from '../delivery-queue';
import { createEndpointMetrics } from '../delivery-report';
import { EndpointRegistry, FAN_OUT_HEALTH_TTL_MS, HealthCache } from '../endpoint-cache';
import { EndpointPacer } from '../fan-out';
import { DEFAULT_TIMEOUT_MS } from '../http-delivery';
import { type IngestQueue, SqsIngestQueue } from '../ingest-drain';
import { SecretsManagerSigningKeys, type SigningKeyStore } from '../signing-keys';
import { WebhookStore } from '../webhook-store';

export type Env = Readonly<Record<string, string | undefined>>;

export class WebhookEnvironmentError extends Error {
  override readonly name = 'WebhookEnvironmentError';
}

/** What each text variable holds; the numeric ones say it in the contract's NUMBER_RULES. */
const MEANING: Readonly<Record<string, string>> = {
  [ENV.webhookTable]: 'the webhook DynamoDB table name',
  [ENV.webhookQueueUrl]: 'the webhook delivery queue URL',
  [ENV.webhookSecretPrefix]: 'the Secrets Manager name prefix of the webhook signing keys (ends in /)',
  [ENV.webhookIngestQueueUrl]: 'the webhook ingest queue URL (the fan-out drains it)',
  [ENV.eventBus]: 'the EventBridge bus name or ARN',
  [ENV.eventSource]: `the EventBridge source of every event: ${EVENT_SOURCE_RULE}`,
};

export function requiredEnv(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) {
    throw new WebhookEnvironmentError(
      `environment variable ${name} is not set: it must hold ${MEANING[name] ?? 'a value'} (the CDK stack sets it)`,
    );
  }
  return value;
}

/** A numeric contract variable by its rule (NUMBER_RULES), or `fallback` when unset. */
function numberEnv(env: Env, name: string, fallback: number): number {
  const value = env[name]?.trim();
  if (!value) return fallback;
  const n = ruledNumber(name, value);
  if (n === undefined) {
    throw new WebhookEnvironmentError(
      `environment variable ${name} is '${value}': it must hold ${ruleMeaning(name)}`,
    );
  }
  return n;
}

export interface DeliverRuntime {
  readonly store: WebhookStore;
  readonly registry: EndpointRegistry;
  readonly health: HealthCache;
  readonly keys: SigningKeyStore;
  readonly queue: DeliveryQueue;
  readonly sink: EventSink;
  readonly timeoutMs: number;
  readonly metrics: Metrics;
  /** The metrics of one endpoint with metrics on: `endpointId` beside `service`, default dimensions. */
  readonly endpointMetrics: (endpointId: string) => Metrics;
}

/** Signing keys only from secrets under the deployment's prefix (what the role may read anyway). */
class PrefixedKeys implements SigningKeyStore {
  constructor(
    private readonly inner: SigningKeyStore,
    private readonly prefix: string,
  ) {}
  entry(secretName: string, endpointId: string, keyVersion: number) {
    if (!secretName.startsWith(this.prefix)) {
      throw new WebhookEnvironmentError(`endpoint ${endpointId}: its secret is not under ${this.prefix}`);
    }
    return this.inner.entry(secretName, endpointId, keyVersion);
  }
  update(): Promise<void> {
    throw new WebhookEnvironmentError('the delivery Lambda does not write signing keys');
  }
}

/**
 * The fan-out: what the delivery has (it makes first attempts), its share of each endpoint's rate,
 * and the ingest queue it drains (none: its event source's batches only).
 */
export interface FanOutRuntime extends DeliverRuntime {
  readonly pacer: EndpointPacer;
  readonly ingest?: IngestQueue;
}

export function fanOutRuntimeFromEnv(env: Env): FanOutRuntime {
  const concurrency = numberEnv(env, ENV.webhookFanOutConcurrency, 1);
  const ingestUrl = requiredEnv(env, ENV.webhookIngestQueueUrl);
  const deliver = deliverRuntimeFromEnv(env);
  return {
    ...deliver,
    health: new HealthCache({ store: deliver.store, ttlMs: FAN_OUT_HEALTH_TTL_MS }),
    pacer: new EndpointPacer(concurrency),
    ingest: new SqsIngestQueue(new SQSClient(awsClientConfig()), ingestUrl),
  };
}

export function deliverRuntimeFromEnv(env: Env): DeliverRuntime {
  const tableName = requiredEnv(env, ENV.webhookTable);
  const queueUrl = requiredEnv(env, ENV.webhookQueueUrl);
  const prefix = requiredEnv(env, ENV.webhookSecretPrefix);
  const busName = requiredEnv(env, ENV.eventBus);
  const source = env[ENV.eventSource]?.trim() || DEFAULT_EVENT_SOURCE;
  if (eventSourceProblem(source)) {
    throw new WebhookEnvironmentError(
      `environment variable ${ENV.eventSource} is '${source}': it must hold ${MEANING[ENV.eventSource]}`,
    );
  }
  const timeoutMs = numberEnv(env, ENV.webhookTimeoutMs, DEFAULT_TIMEOUT_MS);
  const store = new WebhookStore({ client: new DynamoDBClient(awsClientConfig()), tableName });
  return {
    store,
    registry: new EndpointRegistry({ store }),
    health: new HealthCache({ store }),
    keys: new PrefixedKeys(
      new SecretsManagerSigningKeys({ client: new SecretsManagerClient(awsClientConfig()) }),
      prefix,
    ),
    queue: new SqsDeliveryQueue({ client: new SQSClient(awsClientConfig()), queueUrl }),
    sink: new EventBridgeSink({ client: new EventBridgeClient(awsClientConfig()), busName, source }),
    timeoutMs,
    metrics: createMetrics(),
    endpointMetrics: (endpointId) => createEndpointMetrics(endpointId),
  };
}
