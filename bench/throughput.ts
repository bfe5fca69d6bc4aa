/**
 * Engine throughput: a backfill of the large club through parse + validate + detect + state +
 * publish, once with the state in memory (the whole club) and once in dynalite (a time-boxed slice
 * of each source, since dynalite writes a few thousand items a second: see the report).
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { awsClientConfig } from '../lambdas/common/aws-clients';
import { DAY_MS, HOUR_MS } from '../lambdas/common/time-units';
import { pollSource, type SourceReport } from '../lambdas/engine/club-poll/poll-source';
import { EventBridgeSink } from '../lambdas/events/publisher';
import type { GymApiClient } from '../lambdas/gym-api';
import { SOURCES } from '../lambdas/sources';
import {
  type BridgeStateStore,
  DynamoDbStateStore,
  MemoryStateStore,
  withClubSession,
} from '../lambdas/state';
import { createStateTable } from '../lambdas/state/table';
import { startLocalEventBridge } from '../local-aws/local-eventbridge';
import type { BigClub } from './big-club';
import { CountingSink, type SinkCounts } from './counting-sink';
import { type CountingStateStore, countingStore, type StoreCounts } from './counting-store';
import { HostProcess } from './hosts/rpc';
import { CountingClientFactory } from './sim-clients';
import { cpuMsSince } from './stats';

export interface SourceRunFigures {
  readonly source: string;
  readonly outcome: string;
  readonly records: number;
  readonly pages: number;
  readonly events: number;
  /** Reads of the scan (more than 1: the scan was re-read, see poll-source.ts). */
  readonly attempts: number;
  readonly wallMs: number;
  readonly cpuMs: number;
}

export interface ThroughputRun {
  readonly store: 'memory' | 'dynalite';
  readonly records: number;
  readonly pages: number;
  readonly events: number;
  readonly wallMs: number;
  /** CPU of the bench process (the bridge: HTTP client, parse, validate, detect, state, publish). */
  readonly cpuMs: number;
  /** CPU of the sandbox process serving the pages. */
  readonly sandboxCpuMs: number;
  /** CPU of the dynalite process (dynalite runs only). */
  readonly storeServerCpuMs?: number;
  readonly recordsPerSec: number;
  readonly recordsPerCpuSec: number;
  readonly cpuUsPerRecord: number;
  /** CPU outside store and sink calls: client (HTTP + parse + validate) and detect, per CPU second. */
  readonly parseValidateDetectPerCpuSec: number;
  readonly dataWallMs: number;
  readonly storeCounts: StoreCounts;
  readonly sinkCounts: SinkCounts;
  readonly sources: SourceRunFigures[];
}

interface RunPlan {
  readonly source: 'visits' | 'members';
  /** Real ms of work before the scan saves progress and stops; undefined: to the end. */
  readonly budgetMs?: number;
}

/** What a backfill runs with: the counting store, sink and clients over the large club. */
interface BackfillRig {
  readonly big: BigClub;
  readonly kind: 'memory' | 'dynalite';
  readonly store: CountingStateStore;
  readonly sink: CountingSink;
  readonly clients: CountingClientFactory;
  readonly client: GymApiClient;
}

/** `pollSource` for each planned source in turn, from before the history starts. */
async function pollSources(rig: BackfillRig, plans: readonly RunPlan[]): Promise<SourceRunFigures[]> {
  const { big, kind, store, sink, client } = rig;
  const nowMs = big.info.nowMs;
  const sources: SourceRunFigures[] = [];
  for (const plan of plans) {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    const reserveMs = 250;
    const owner = `bench-${kind}`;
    const report: SourceReport = await withClubSession(store, big.club.clubId, owner, (session) =>
      pollSource({ store: session, sink, client, now: () => nowMs, owner }, big.ctx, SOURCES[plan.source], {
        deadlineMs: Date.now() + (plan.budgetMs === undefined ? HOUR_MS : plan.budgetMs + reserveMs),
        backfillFromMs: big.historyStartMs,
        reserveMs,
      }),
    );
    sources.push({
      source: plan.source,
      outcome: report.outcome,
      records: report.records,
      pages: report.pages,
      events: report.events,
      attempts: report.attempts,
      wallMs: performance.now() - started,
      cpuMs: cpuMsSince(cpuStart),
    });
  }
  return sources;
}

async function backfill(
  big: BigClub,
  kind: 'memory' | 'dynalite',
  inner: BridgeStateStore,
  plans: readonly RunPlan[],
  storeServer?: HostProcess,
): Promise<ThroughputRun> {
  const clients = new CountingClientFactory();
  const rig: BackfillRig = {
    big,
    kind,
    store: countingStore(inner),
    sink: new CountingSink(),
    clients,
    client: clients.forClub(big.club, () => {}),
  };
  const sandboxCpu0 = await big.host.cpuMs();
  const serverCpu0 = storeServer ? await storeServer.cpuMs() : 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const sources = await pollSources(rig, plans);
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const sandboxCpuMs = (await big.host.cpuMs()) - sandboxCpu0;
  const storeServerCpuMs = storeServer ? (await storeServer.cpuMs()) - serverCpu0 : undefined;
  const records = sources.reduce((a, s) => a + s.records, 0);
  const storeCounts = rig.store.take();
  const sinkCounts = rig.sink.take();
  const requests = rig.clients.take();
  // In memory, store and sink calls are synchronous work: their wall time is CPU time.
  const engineOnlyCpu = Math.max(1, cpuMs - (kind === 'memory' ? storeCounts.wallMs : 0) - sinkCounts.wallMs);
  return {
    store: kind,
    records,
    pages: sources.reduce((a, s) => a + s.pages, 0),
    events: sinkCounts.events,
    wallMs,
    cpuMs,
    sandboxCpuMs,
    ...(storeServerCpuMs === undefined ? {} : { storeServerCpuMs }),
    recordsPerSec: records / (wallMs / 1000),
    recordsPerCpuSec: records / (cpuMs / 1000),
    cpuUsPerRecord: (cpuMs * 1000) / records,
    parseValidateDetectPerCpuSec: records / (engineOnlyCpu / 1000),
    dataWallMs: requests.dataWallMs,
    storeCounts,
    sinkCounts,
    sources,
  };
}

export function memoryBackfill(big: BigClub): Promise<ThroughputRun> {
  return backfill(big, 'memory', new MemoryStateStore(), [{ source: 'visits' }, { source: 'members' }]);
}

export interface DynaliteContext {
  readonly host: HostProcess;
  readonly client: DynamoDBClient;
  close(): Promise<void>;
}

export async function startDynaliteHost(): Promise<DynaliteContext> {
  const host = HostProcess.start(new URL('./hosts/dynalite-host.ts', import.meta.url), 4096);
  const { endpoint } = await host.call<{ endpoint: string }>('start');
  const client = new DynamoDBClient({
    ...awsClientConfig(),
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  return {
    host,
    client,
    async close() {
      client.destroy();
      await host.close();
    },
  };
}

let tableCounter = 0;

/**
 * A fresh state table on `db` for each call, behind the real DynamoDB adapter: what a simulation
 * polls into when its CPU must hold the AWS SDK's work (serialising, signing, the HTTP client) as
 * the poll Lambda's does, and not the server's (dynalite runs in the host's process).
 */
export function stateTables(db: DynaliteContext): () => Promise<BridgeStateStore> {
  return async () => {
    const tableName = `bench-${process.pid}-${++tableCounter}`;
    await createStateTable(db.client, tableName);
    return new DynamoDbStateStore({ client: db.client, tableName });
  };
}

/** A time-boxed slice of the visits and the members backfill, each `sliceMs` of work, into a fresh table. */
export async function dynaliteBackfill(big: BigClub, db: DynaliteContext, sliceMs: number) {
  const store = await stateTables(db)();
  return backfill(
    big,
    'dynalite',
    store,
    [
      { source: 'visits', budgetMs: sliceMs },
      { source: 'members', budgetMs: sliceMs },
    ],
    db.host,
  );
}

export interface PublishSdkRun {
  readonly events: number;
  readonly putEventsRequests: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly eventsPerSec: number;
}

/**
 * The last step the in-memory run leaves out: PutEvents through the real AWS SDK to the local
 * EventBridge endpoint (in this process), for `count` visit events of the large club.
 */
export async function publishOverSdk(big: BigClub, count: number): Promise<PublishSdkRun> {
  const collected: Parameters<CountingSink['publish']>[0][] = [];
  const collector = new CountingSink((events) => collected.push(events));
  const clients = new CountingClientFactory();
  await withClubSession(new MemoryStateStore(), big.club.clubId, 'bench-sdk', (session) =>
    pollSource(
      {
        store: session,
        sink: collector,
        client: clients.forClub(big.club, () => {}),
        now: () => big.info.nowMs,
        owner: 'bench-sdk',
      },
      big.ctx,
      SOURCES.visits,
      { deadlineMs: Date.now() + 60_000, backfillFromMs: big.info.nowMs - 2 * DAY_MS, reserveMs: 250 },
    ),
  );
  const events = collected.flat().slice(0, count);
  const bus = await startLocalEventBridge({ port: 0 });
  const client = new EventBridgeClient({
    endpoint: bus.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const sink = new EventBridgeSink({ client, busName: 'bench-bus', baseDelayMs: 1 });
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < events.length; i += 500) await sink.publish(events.slice(i, i + 500));
    const wallMs = performance.now() - t0;
    return {
      events: events.length,
      putEventsRequests: Math.ceil(events.length / 10),
      wallMs,
      cpuMs: cpuMsSince(cpu0),
      eventsPerSec: events.length / (wallMs / 1000),
    };
  } finally {
    client.destroy();
    await bus.close();
  }
}
