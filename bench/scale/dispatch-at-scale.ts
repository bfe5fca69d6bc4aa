/**
 * The dispatcher at fleet scale, measured: `clubs` clubs (50,000 in the full plan) on dynalite
 * (bench/scale/seed-fleet.ts), the real `dispatchDueClubs` run as each of the deployment's shards in
 * turn, through the real `DynamoDbClubRegistry` (the shard's directory buckets), the real
 * `DynamoDbStateStore` (BatchGetItem of its clubs' state) and the real `SqsPollQueue` over the real
 * `@aws-sdk/client-sqs` to an SQS-compatible endpoint in its own process (sqs-endpoint.ts), which
 * fails a few entries of every shard so the adapter's resubmission runs too.
 *
 * The CPU share (docs/benchmarks.md, section 6): Lambda gives a function memory/1,769 of a vCPU.
 * Each shard runs alone here (the shards of a deployment run side by side, each in its own Lambda),
 * on a core of this machine; dynalite and the endpoint run in their own processes, so
 * `process.cpuUsage()` is the dispatcher's CPU alone. Its time at the share is
 * `wall + cpu x (1/share - 1)`: the CPU stretched by the share plus everything the run waited for,
 * as if none of its waiting overlapped its CPU (an upper bound; the larger of `cpu / share` and the
 * wall time is the lower one, reported too). Waits are dynalite's and the endpoint's on this machine,
 * slower than DynamoDB's and SQS's ~5-10 ms in the same region.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbClubRegistry } from '../../lambdas/clubs/dynamodb-club-registry';
import { awsClientConfig } from '../../lambdas/common/aws-clients';
import { SqsPollQueue } from '../../lambdas/common/poll-queue';
import { dispatchDueClubs } from '../../lambdas/engine/dispatch/dispatch-due-clubs';
import { DynamoDbStateStore } from '../../lambdas/state';
import type { Cursor } from '../../lambdas/state/store';
import { createStateTable } from '../../lambdas/state/table';
import { HostProcess } from '../hosts/rpc';
import { say } from '../progress';
import { cpuMsSince } from '../stats';
import { startDynaliteHost } from '../throughput';
import { seedFleet } from './seed-fleet';
import type { SqsEndpointStats } from './sqs-endpoint';
import { lastPolledMinutesAgo, syntheticFleet } from './synthetic-fleet';

/** Lambda's memory for one whole vCPU. */
export const ONE_VCPU_MB = 1769;
/** Entries of each shard's requests the endpoint fails (the adapter resubmits them). */
const FAILED_ENTRIES_PER_SHARD = 5;

export interface ShardRun {
  readonly shard: number;
  readonly clubs: number;
  readonly messages: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** wall + cpu x (1/share - 1), seconds: the figure compared with the timeout. */
  readonly secondsAtShare: number;
  /** max(cpu / share, wall), seconds: the lower bound. */
  readonly secondsAtShareLow: number;
  readonly tableReads: number;
  readonly sendMessageBatchRequests: number;
  readonly failedEntriesResubmitted: number;
  readonly notReached: number;
  readonly failed: number;
}

export interface DispatchAtScaleResult {
  readonly measured: true;
  readonly store: 'dynalite';
  readonly clubs: number;
  readonly shards: number;
  readonly memoryMb: number;
  readonly cpuShare: number;
  readonly timeoutSeconds: number;
  readonly spreadSeconds: number;
  readonly seedItems: number;
  readonly seedMs: number;
  readonly shardRuns: ShardRun[];
  /** The slowest shard at the share (upper bound), seconds. */
  readonly dispatchSeconds: number;
  /** Clubs whose messages the endpoint took per DelaySeconds, all shards together. */
  readonly messagesByDelaySeconds: number[];
}

export interface DispatchAtScaleInput {
  readonly template: readonly Cursor[];
  readonly nowMs: number;
  readonly clubs: number;
  readonly shards: number;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly spreadSeconds: number;
  /** Clubs a poll message carries (the stage's POLL_CLUBS_PER_MESSAGE). @default 1 */
  readonly clubsPerMessage?: number;
}

interface Rig {
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  readonly queueUrl: string;
  readonly tableName: string;
  readonly sqs: HostProcess;
}

/** One shard's run, with fresh clients (its own Lambda), measured. */
async function runShard(rig: Rig, input: DispatchAtScaleInput, shard: number): Promise<ShardRun> {
  const local = { region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } };
  const dynamo = new DynamoDBClient({ ...awsClientConfig(), ...local, endpoint: rig.dynamoEndpoint });
  const sqsClient = new SQSClient({
    ...awsClientConfig(),
    ...local,
    endpoint: rig.queueUrl.split('/0000')[0],
  });
  try {
    await rig.sqs.call('reset');
    await rig.sqs.call('failNextEntries', FAILED_ENTRIES_PER_SHARD);
    const registry = new DynamoDbClubRegistry({ client: dynamo, tableName: rig.tableName });
    const store = new DynamoDbStateStore({ client: dynamo, tableName: rig.tableName });
    // The queue counts each message's delay on the run's clock: the simulated `nowMs` at the run's
    // start, moving with real time (as the Lambda's clock moves while it runs).
    const startedReal = Date.now();
    const queue = new SqsPollQueue({
      client: sqsClient,
      queueUrl: rig.queueUrl,
      now: () => input.nowMs + (Date.now() - startedReal),
      clubsPerMessage: input.clubsPerMessage ?? 1,
    });
    const share = Math.min(1, input.memoryMb / ONE_VCPU_MB);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const summary = await dispatchDueClubs({
      registry,
      store,
      queue,
      now: input.nowMs,
      periodStartMs: input.nowMs,
      spreadSeconds: input.spreadSeconds,
      shard: { index: shard, count: input.shards },
    });
    const wallMs = performance.now() - t0;
    const cpuMs = cpuMsSince(cpu0);
    const stats = await rig.sqs.call<SqsEndpointStats>('stats');
    return {
      shard,
      clubs: summary.clubs,
      messages: summary.messages,
      wallMs,
      cpuMs,
      secondsAtShare: (wallMs + cpuMs * (1 / share - 1)) / 1000,
      secondsAtShareLow: Math.max(cpuMs / share, wallMs) / 1000,
      tableReads: summary.tableReads,
      sendMessageBatchRequests: stats.requests,
      failedEntriesResubmitted: stats.failedEntries,
      notReached: summary.notReached,
      failed: summary.failed,
    };
  } finally {
    dynamo.destroy();
    sqsClient.destroy();
  }
}

/** Seeds the fleet on dynalite, then runs and measures every shard in turn. */
export async function dispatchAtScale(input: DispatchAtScaleInput): Promise<DispatchAtScaleResult> {
  const db = await startDynaliteHost();
  const sqs = HostProcess.start(new URL('./sqs-host.ts', import.meta.url), 1024);
  try {
    const { endpoint: sqsEndpoint, queueUrl } = await sqs.call<{ endpoint: string; queueUrl: string }>(
      'start',
    );
    const tableName = `bench-scale-${process.pid}-${randomUUID().slice(0, 8)}`;
    await createStateTable(db.client, tableName);
    const { records, cursors } = syntheticFleet(input.clubs, input.template, input.nowMs);
    const seeded = await seedFleet(db.client, tableName, records, cursors, (i) =>
      lastPolledMinutesAgo(i + 1),
    );
    say(
      `scale: ${input.clubs} clubs seeded on dynalite (${seeded.items} items) in ${(seeded.wallMs / 1000).toFixed(0)} s`,
    );
    const rig: Rig = { dynamoEndpoint: await endpointOf(db.client), sqsEndpoint, queueUrl, tableName, sqs };
    const shardRuns: ShardRun[] = [];
    const byDelay: number[] = [];
    for (let shard = 0; shard < input.shards; shard++) {
      const run = await runShard(rig, input, shard);
      const stats = await sqs.call<SqsEndpointStats>('stats');
      stats.byDelaySeconds.forEach((n, s) => {
        byDelay[s] = (byDelay[s] ?? 0) + n;
      });
      shardRuns.push(run);
      say(
        `scale: shard ${shard + 1}/${input.shards}: ${run.clubs} clubs, ${run.messages} messages in ${(run.wallMs / 1000).toFixed(1)} s (CPU ${(run.cpuMs / 1000).toFixed(1)} s): ${run.secondsAtShare.toFixed(1)} s at ${input.memoryMb} MB`,
      );
    }
    return {
      measured: true,
      store: 'dynalite',
      clubs: shardRuns.reduce((n, r) => n + r.clubs, 0),
      shards: input.shards,
      memoryMb: input.memoryMb,
      cpuShare: Math.min(1, input.memoryMb / ONE_VCPU_MB),
      timeoutSeconds: input.timeoutSeconds,
      spreadSeconds: input.spreadSeconds,
      seedItems: seeded.items,
      seedMs: seeded.wallMs,
      shardRuns,
      dispatchSeconds: Math.max(...shardRuns.map((r) => r.secondsAtShare)),
      messagesByDelaySeconds: Array.from(byDelay, (n) => n ?? 0),
    };
  } finally {
    await sqs.close();
    await db.close();
  }
}

/** The endpoint URL a DynamoDB client was built with. */
async function endpointOf(client: DynamoDBClient): Promise<string> {
  const endpoint = await client.config.endpoint?.();
  if (!endpoint) throw new Error('the dynalite client has no endpoint');
  return `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}${endpoint.path === '/' ? '' : endpoint.path}`;
}
