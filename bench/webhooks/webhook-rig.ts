/**
 * The deployed webhook path, in processes of its own on this machine (docs/benchmarks.md, section
 * "Webhooks"): the AWS side (./aws-host.ts: dynalite behind a meter, SQS fair queues, Secrets
 * Manager, EventBridge), the two functions (./lambda-host.ts: the real handlers and runtimes with
 * the template's environment, invoked by the emulated event sources with the template's batch
 * sizes and concurrency), and the receivers (./receivers-host.ts: one HTTPS endpoint each). The
 * endpoints are added with the real library (`addEndpoint`: the webhook table, and the key
 * secrets as the shared secrets' documents).
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  KEYS_FORMAT,
  type KeyEntry,
  SecretShardFullError,
  type SigningKeyStore,
} from '../../lambdas/delivery/signing-keys';
import { addEndpoint } from '../../lambdas/delivery/webhook-admin';
import { WebhookStore } from '../../lambdas/delivery/webhook-store';
import { createStateTable } from '../../lambdas/state/table';
import type { WebhookDeploymentSettings, WebhookFunctionSettings } from '../deployment';
import { HostProcess } from '../hosts/rpc';
import type { AwsEndpoints, Client } from './aws-host';
import type { LambdaHostConfig } from './lambda-host';

const TABLE = 'gym-bridge-webhooks';
const BUS = 'gym-bridge-prod';
const CA = new URL('./fixtures/receiver-ec-cert.pem', import.meta.url);

/** What an endpoint of the bench receives (club-i's endpoint: see `endpointFilter`). */
export interface EndpointSpec {
  readonly index: number;
  readonly endpointId: string;
  readonly clubId: string;
  readonly detailTypes: readonly string[];
  readonly detailPattern?: string;
}

export const BILLING_TYPES = [
  'Payment Succeeded',
  'Payment Failed',
  'Payment Refunded',
  'Member Joined',
  'Membership Cancelled',
];

/**
 * Endpoint i covers club-i: most take every detail-type; one in ten (i % 10 = 0) the billing and
 * membership ones; one in ten (i % 10 = 5) the dishonoured payments only (a pattern on `detail`).
 */
export function endpointFilter(index: number): Pick<EndpointSpec, 'detailTypes' | 'detailPattern'> {
  if (index % 10 === 0) return { detailTypes: BILLING_TYPES };
  if (index % 10 === 5)
    return { detailTypes: ['Payment Failed'], detailPattern: '{"reason":["dishonoured"]}' };
  return { detailTypes: ['*'] };
}

/** Whether `endpointFilter(index)` takes an event (written out, not with the code under test). */
export function filterTakes(index: number, type: string, detail: Record<string, unknown>): boolean {
  if (index % 10 === 0) return BILLING_TYPES.includes(type);
  if (index % 10 === 5) return type === 'Payment Failed' && detail.reason === 'dishonoured';
  return true;
}

export interface RigOptions {
  readonly endpoints: number;
  readonly receiverAnswerMs: number;
  readonly sqsRequestMs: number;
}

export interface WebhookRig {
  readonly aws: HostProcess;
  readonly receivers: HostProcess;
  readonly fanOut: HostProcess;
  readonly deliver: HostProcess;
  /** The ingest queue's URL as EventBridge's rule target is given it. */
  readonly ingestUrl: string;
  readonly endpoints: readonly EndpointSpec[];
  /**
   * New function processes (cold containers) whose event sources have this batching window (the
   * template's when undefined), the queues emptied first with `purge`.
   */
  restartFunctions(batchingWindowSec: number | undefined, purge?: boolean): Promise<void>;
  close(): Promise<void>;
}

/** The key secrets written as documents straight into the AWS host (one writer: no race). */
class HostKeys implements SigningKeyStore {
  readonly #docs = new Map<string, Record<string, KeyEntry>>();
  constructor(private readonly aws: HostProcess) {}
  entry(): Promise<KeyEntry | undefined> {
    throw new Error('the bench writes keys only');
  }
  async update(name: string, id: string, change: (e: KeyEntry | undefined) => KeyEntry | undefined) {
    const endpoints = { ...(this.#docs.get(name) ?? {}) };
    const next = change(endpoints[id]);
    if (next) endpoints[id] = next;
    else delete endpoints[id];
    const text = JSON.stringify({ format: KEYS_FORMAT, endpoints });
    if (Buffer.byteLength(text) > 65_536) throw new SecretShardFullError(`${name} is full`);
    this.#docs.set(name, endpoints);
    await this.aws.call('putSecret', name, text);
  }
}

/**
 * A queue's URL as one client is given it (the SQS endpoint counts each client's requests apart):
 * each function's own calls, its event source's (`<function>-source`), EventBridge's.
 */
const queueUrl = (aws: AwsEndpoints, client: Client | `${Client}-source` | 'eventBridge', name: string) =>
  `${aws.sqs}/000000000000/${client}/${name}`;

/** The function's environment as the template gives it, its references resolved to the rig's. */
function environmentOf(fn: WebhookFunctionSettings, aws: AwsEndpoints, client: Client) {
  const refs: Record<string, string> = {
    WEBHOOK_TABLE_NAME: TABLE,
    WEBHOOK_QUEUE_URL: queueUrl(aws, client, 'webhook-delivery'),
    WEBHOOK_INGEST_QUEUE_URL: queueUrl(aws, client, 'webhook-ingest'),
    EVENT_BUS_NAME: BUS,
  };
  const env: Record<string, string> = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_DYNAMODB: aws.dynamodb[client],
    AWS_ENDPOINT_URL_SQS: aws.sqs,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.secretsManager[client],
    AWS_ENDPOINT_URL_EVENTBRIDGE: aws.eventBridge,
  };
  for (const [name, value] of Object.entries(fn.environment)) {
    if (name === 'NODE_OPTIONS') continue;
    if (typeof value === 'string') env[name] = value;
    else if (refs[name] !== undefined) env[name] = refs[name];
    else throw new Error(`the template gives ${name} a value the bench does not resolve`);
  }
  return env;
}

const hostConfig = (
  kind: LambdaHostConfig['kind'],
  fn: WebhookFunctionSettings,
  env: Record<string, string>,
  queueUrl: string,
): LambdaHostConfig => ({
  kind,
  env,
  queueUrl,
  queueArn: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`,
  batchSize: fn.batchSize,
  batchingWindowSec: fn.batchingWindowSec,
  maxConcurrency: fn.maxConcurrency,
  timeoutSec: fn.timeoutSec,
  memoryMb: fn.memoryMb,
  ca: readFileSync(CA, 'utf8'),
});

interface Functions {
  readonly fanOut: HostProcess;
  readonly deliver: HostProcess;
}

/** The two functions in processes of their own, their event sources started. */
async function startFunctions(
  d: WebhookDeploymentSettings,
  aws: AwsEndpoints,
  batchingWindowSec: number | undefined,
): Promise<Functions> {
  const fanOut = HostProcess.start(new URL('./lambda-host.ts', import.meta.url), 1024);
  const deliver = HostProcess.start(new URL('./lambda-host.ts', import.meta.url), 2048);
  const window = (fn: WebhookFunctionSettings) =>
    batchingWindowSec === undefined ? fn : { ...fn, batchingWindowSec };
  await fanOut.call(
    'start',
    hostConfig(
      'fanOut',
      window(d.fanOut),
      environmentOf(d.fanOut, aws, 'fanOut'),
      queueUrl(aws, 'fanOut-source', 'webhook-ingest'),
    ),
  );
  await deliver.call(
    'start',
    hostConfig(
      'deliver',
      window(d.deliver),
      environmentOf(d.deliver, aws, 'deliver'),
      queueUrl(aws, 'deliver-source', 'webhook-delivery'),
    ),
  );
  return { fanOut, deliver };
}

async function stopFunctions(f: Functions): Promise<void> {
  await Promise.allSettled([f.fanOut.call('stop'), f.deliver.call('stop')]);
  await Promise.allSettled([f.fanOut.close(), f.deliver.close()]);
}

/** The endpoints, added as `webhooks add` adds them; each one's secret, for its receiver. */
async function addEndpoints(
  d: WebhookDeploymentSettings,
  aws: HostProcess,
  client: DynamoDBClient,
  ports: readonly number[],
): Promise<{ specs: EndpointSpec[]; secrets: [number, string][] }> {
  const admin = {
    store: new WebhookStore({ client, tableName: TABLE }),
    keys: new HostKeys(aws),
    secretPrefix: String(d.deliver.environment.WEBHOOK_SECRET_PREFIX),
    policy: 'local' as const,
  };
  const specs: EndpointSpec[] = [];
  const secrets: [number, string][] = [];
  for (const [index, port] of ports.entries()) {
    const filter = endpointFilter(index);
    const clubId = `club-${index}`;
    const { endpoint, secret } = await addEndpoint(admin, {
      url: `https://127.0.0.1:${port}/hook/${index}`,
      clubs: [clubId],
      ...filter,
      detailTypes: [...filter.detailTypes],
    });
    specs.push({ index, endpointId: endpoint.endpointId, clubId, ...filter });
    secrets.push([index, secret]);
  }
  return { specs, secrets };
}

export async function startWebhookRig(d: WebhookDeploymentSettings, o: RigOptions): Promise<WebhookRig> {
  const aws = HostProcess.start(new URL('./aws-host.ts', import.meta.url), 2048);
  const receivers = HostProcess.start(new URL('./receivers-host.ts', import.meta.url), 1024);
  const endpoints = await aws.call<AwsEndpoints>('start', { sqsLatencyMs: o.sqsRequestMs });
  await aws.call('createQueue', 'webhook-ingest', d.fanOut.visibilitySec);
  await aws.call('createQueue', 'webhook-delivery', d.deliver.visibilitySec);
  const client = new DynamoDBClient({
    endpoint: endpoints.dynamodb.bench,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  await createStateTable(client, TABLE);
  const ports = await receivers.call<number[]>('start', o.endpoints, o.receiverAnswerMs);
  const { specs, secrets } = await addEndpoints(d, aws, client, ports);
  await receivers.call('secrets', secrets);
  let functions = await startFunctions(d, endpoints, undefined);
  return {
    aws,
    receivers,
    get fanOut() {
      return functions.fanOut;
    },
    get deliver() {
      return functions.deliver;
    },
    ingestUrl: queueUrl(endpoints, 'eventBridge', 'webhook-ingest'),
    endpoints: specs,
    async restartFunctions(batchingWindowSec, purge = false) {
      await stopFunctions(functions);
      if (purge) {
        await aws.call('purgeQueues', {
          'webhook-ingest': d.fanOut.visibilitySec,
          'webhook-delivery': d.deliver.visibilitySec,
        });
      }
      functions = await startFunctions(d, endpoints, batchingWindowSec);
    },
    async close() {
      client.destroy();
      await stopFunctions(functions);
      await Promise.allSettled([aws.call('close'), receivers.call('close')]);
      await Promise.allSettled([aws, receivers].map((h) => h.close()));
    },
  };
}
