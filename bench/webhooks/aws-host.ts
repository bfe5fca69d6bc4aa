/**
 * The AWS side of the webhook bench in a process of its own (as the bench's other servers:
 * bench/hosts/), so the Lambdas' code is measured apart from it: dynalite behind the metering proxy
 * (./dynamo-meter.ts), the SQS endpoint with fair queues (./sqs-service.ts), a Secrets Manager
 * endpoint per client that serves the key secrets (GetSecretValue, counted per client) and the
 * local EventBridge (local-aws) for the functions' operational events. Run by the
 * bench, never on its own.
 */

import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';
import { startLocalEventBridge } from '../../local-aws/local-eventbridge';
import { serveHost } from '../hosts/rpc';
import { type DynamoMeter, startDynamoMeter } from './dynamo-meter';
import { type JsonService, JsonServiceError, startJsonService } from './json-service';
import { SqsQueues, type SqsService, startSqsService } from './sqs-service';

/** Who calls: each function (its code and its event source), the bench's own setup. */
export const CLIENTS = ['fanOut', 'deliver', 'bench'] as const;
export type Client = (typeof CLIENTS)[number];

export interface AwsEndpoints {
  /** A DynamoDB endpoint per client (metered apart), all on the one dynalite. */
  readonly dynamodb: Record<Client, string>;
  /** The one SQS endpoint (clients are told apart by their queue URLs: ./sqs-service.ts). */
  readonly sqs: string;
  /** A Secrets Manager endpoint per client (reads counted apart). */
  readonly secretsManager: Record<Client, string>;
  readonly eventBridge: string;
}

export interface AwsStats {
  readonly dynamo: Record<Client, ReturnType<DynamoMeter['counts']>>;
  readonly sqs: ReturnType<SqsService['counts']>;
  /** GetSecretValue calls of each client. */
  readonly secretReads: Record<Client, number>;
  readonly putEventsRequests: number;
}

interface Running {
  db: EmbeddedDynamoDb;
  meters: Record<Client, DynamoMeter>;
  queues: SqsQueues;
  sqs: SqsService;
  secrets: Record<Client, JsonService>;
  eventBridge: Awaited<ReturnType<typeof startLocalEventBridge>>;
  values: Map<string, string>;
  reads: Map<Client, number>;
}

let running: Running | undefined;
const started = (): Running => {
  if (!running) throw new Error('the webhook AWS host is not started');
  return running;
};

async function start(options: { sqsLatencyMs: number }): Promise<AwsEndpoints> {
  const db = await startEmbeddedDynamoDb({ createTableMs: 0 });
  const meters = Object.fromEntries(
    await Promise.all(CLIENTS.map(async (c) => [c, await startDynamoMeter(db.endpoint)] as const)),
  ) as Record<Client, DynamoMeter>;
  const queues = new SqsQueues();
  const sqs = await startSqsService(queues, () => options.sqsLatencyMs);
  const values = new Map<string, string>();
  const reads = new Map<Client, number>();
  /** Secrets Manager for one client: GetSecretValue of the key secrets, counted. */
  const secretsFor = (client: Client) =>
    startJsonService({
      targetPrefix: 'secretsmanager',
      contentType: 'application/x-amz-json-1.1',
      operations: {
        GetSecretValue: (input) => {
          const name = String(input.SecretId);
          reads.set(client, (reads.get(client) ?? 0) + 1);
          const value = values.get(name);
          if (value === undefined)
            throw new JsonServiceError('ResourceNotFoundException', "Secrets Manager can't find the secret.");
          return {
            Name: name,
            ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}`,
            SecretString: value,
            VersionId: `v-${value.length}`,
          };
        },
      },
    });
  const secrets = Object.fromEntries(
    await Promise.all(CLIENTS.map(async (c) => [c, await secretsFor(c)] as const)),
  ) as Record<Client, JsonService>;
  const eventBridge = await startLocalEventBridge({ keepEvents: false });
  running = { db, meters, queues, sqs, secrets, eventBridge, values, reads };
  return {
    dynamodb: Object.fromEntries(CLIENTS.map((c) => [c, meters[c].endpoint])) as Record<Client, string>,
    sqs: sqs.endpoint,
    secretsManager: Object.fromEntries(CLIENTS.map((c) => [c, secrets[c].endpoint])) as Record<
      Client,
      string
    >,
    eventBridge: eventBridge.endpoint,
  };
}

serveHost({
  start,
  createQueue: (name: string, visibilityTimeoutSec: number) => {
    started().queues.create(name, visibilityTimeoutSec);
    return true;
  },
  /** EventBridge's rule target: each event a SendMessage of its own (counted so), sent in process. */
  sendEvents: (queueUrl: string, bodies: string[]) => {
    const r = started();
    for (const body of bodies) r.sqs.sendMessage(queueUrl, body);
    return true;
  },
  /** Every message of both queues dropped (a run that could not keep up leaves a backlog). */
  purgeQueues: (visibility: Record<string, number>) => {
    const r = started();
    for (const [name, seconds] of Object.entries(visibility)) r.queues.create(name, seconds);
    return true;
  },
  putSecret: (name: string, value: string) => {
    started().values.set(name, value);
    return true;
  },
  queueCounts: (name: string) => started().queues.counts(name),
  stats: (): AwsStats => {
    const r = started();
    return {
      dynamo: Object.fromEntries(CLIENTS.map((c) => [c, r.meters[c].counts()])) as AwsStats['dynamo'],
      sqs: r.sqs.counts(),
      secretReads: Object.fromEntries(CLIENTS.map((c) => [c, r.reads.get(c) ?? 0])) as Record<Client, number>,
      putEventsRequests: r.eventBridge.stats.putEventsRequests,
    };
  },
  reset: () => {
    const r = started();
    for (const m of Object.values(r.meters)) m.reset();
    r.sqs.reset();
    r.reads.clear();
    r.eventBridge.stats.putEventsRequests = 0;
    return true;
  },
  cpu: () => process.cpuUsage(),
  async close() {
    const r = running;
    running = undefined;
    if (r) {
      r.queues.close();
      await r.sqs.close();
      for (const service of Object.values(r.secrets)) await service.close();
      await r.eventBridge.close();
      for (const m of Object.values(r.meters)) await m.close();
      await r.db.close();
    }
    return true;
  },
});
