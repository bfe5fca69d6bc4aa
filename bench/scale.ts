/**
 * Scale: the dispatcher over 5,000 clubs (the real `dispatchDueClubs`, in memory and against
 * dynalite through the real DynamoDB adapters), and a simulated hour of 200 typical clubs through
 * the poll path with a bounded worker pool, extrapolated on paper to 5,000 clubs.
 */
import { randomUUID } from 'node:crypto';
import { type ClubConfig, parseClubsFile } from '../lambdas/clubs/club-config';
import { type ClubRecord, clubRecordFrom } from '../lambdas/clubs/club-record';
import { DynamoDbClubRegistry } from '../lambdas/clubs/dynamodb-club-registry';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import { dispatchDueClubs } from '../lambdas/handlers/dispatch-due-clubs';
import { DynamoDbStateStore, MemoryStateStore } from '../lambdas/state';
import type { Cursor } from '../lambdas/state/store';
import { createStateTable } from '../lambdas/state/table';
import { SANDBOX_HOST, type SandboxInfo } from './big-club';
import { CountingSink } from './counting-sink';
import { CountingStateStore, type StoreCounts } from './counting-store';
import { HostProcess } from './hosts/rpc';
import { CollectingQueue, CountingRegistry, CountingSecretsClient, ProductionPath } from './production-path';
import { CountingClientFactory } from './sim-clients';
import { cpuMsSince, median, percentile } from './stats';
import type { DynaliteContext } from './throughput';

const MINUTE = 60_000;
const ZONES = [
  'Australia/Sydney',
  'Europe/London',
  'America/New_York',
  'Asia/Singapore',
  'America/Los_Angeles',
];

function syntheticClub(i: number): ClubConfig {
  return parseClubsFile(
    {
      clubs: [
        {
          clubId: `club-${String(i).padStart(5, '0')}`,
          baseUrl: 'https://api.example.com/v1',
          timeZone: ZONES[i % ZONES.length],
          plan: i % 3 === 1 ? 'advanced' : 'basic',
          credentials: { username: 'integrator', password: 'x', apiKey: `key-${i}` },
        },
      ],
    },
    'synthetic',
  )[0]!;
}

/**
 * The cursors of a club in steady state (taken from the typical-club simulation), for another club,
 * with every time shifted back by `shiftMs` so that clubs fall due at different minutes.
 */
function cursorsFor(template: readonly Cursor[], clubId: string, shiftMs: number): Cursor[] {
  const shift = (iso: string | undefined) => (iso ? new Date(Date.parse(iso) - shiftMs).toISOString() : iso);
  return template.map((c) => {
    const health = { ...c.health };
    for (const key of ['lastPollAt', 'lastSuccessAt'] as const) {
      const v = shift(health[key]);
      if (v) health[key] = v;
    }
    const stats = c.stats ? { ...c.stats } : undefined;
    if (stats?.lastSweepAtMs !== undefined) stats.lastSweepAtMs -= shiftMs;
    const copy: Cursor = { ...c, clubId, version: 0, health };
    if (stats) copy.stats = stats;
    const watermark = shift(c.watermark);
    if (watermark) copy.watermark = watermark;
    delete copy.scan;
    return copy;
  });
}

export interface DispatchRun {
  readonly store: 'memory' | 'dynalite';
  readonly clubs: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly messages: number;
  readonly dueSources: number;
  readonly sendMessageBatchRequests: number;
  /** Table requests the dispatcher reports (registry pages + 2 per club). */
  readonly tableReads: number;
  readonly readUnits: number;
}

interface Fleet {
  readonly records: ClubRecord[];
  readonly cursors: Cursor[];
}

function fleet(clubs: number, template: readonly Cursor[], nowMs: number): Fleet {
  const records: ClubRecord[] = [];
  const cursors: Cursor[] = [];
  const lastPoll = Math.max(
    ...template.map((c) => Date.parse(c.health.lastPollAt ?? '1970-01-01T00:00:00Z')),
  );
  for (let i = 1; i <= clubs; i++) {
    const config = syntheticClub(i);
    records.push(clubRecordFrom(config, `gym-bridge/bench/clubs/${config.clubId}`));
    // Each club last polled 0..14 minutes before `nowMs` (deterministic spread).
    const shift = lastPoll - (nowMs - ((i * 7919) % 15) * MINUTE);
    cursors.push(...cursorsFor(template, config.clubId, shift));
  }
  return { records, cursors };
}

async function runDispatch(
  kind: 'memory' | 'dynalite',
  registry: CountingRegistry | DynamoDbClubRegistry,
  store: CountingStateStore,
  nowMs: number,
  clubs: number,
): Promise<DispatchRun> {
  const queue = new CollectingQueue();
  store.take();
  if (registry instanceof CountingRegistry) registry.take();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await dispatchDueClubs({ registry, store, queue, now: nowMs });
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const counts: StoreCounts = store.take();
  const registryUnits =
    registry instanceof CountingRegistry ? registry.take().readUnits : Math.ceil((clubs * 400) / 4096);
  return {
    store: kind,
    clubs: summary.clubs,
    wallMs,
    cpuMs,
    messages: summary.messages,
    dueSources: summary.due,
    sendMessageBatchRequests: queue.sendMessageBatchRequests,
    tableReads: summary.tableReads,
    readUnits: counts.readUnits + registryUnits,
  };
}

/** Dispatch for `clubs` clubs in memory, at `runs` successive minutes. */
export async function dispatchInMemory(
  template: readonly Cursor[],
  nowMs: number,
  clubs: number,
  runs: number,
) {
  const { records, cursors } = fleet(clubs, template, nowMs);
  const inner = new MemoryStateStore();
  for (const c of cursors) await inner.putCursor(c);
  const store = new CountingStateStore(inner);
  const registry = new CountingRegistry(records, () => nowMs);
  const out: DispatchRun[] = [];
  for (let r = 0; r < runs; r++)
    out.push(await runDispatch('memory', registry, store, nowMs + r * MINUTE, clubs));
  return out;
}

export interface DynaliteDispatchResult {
  readonly runs: DispatchRun[];
  readonly seedMs: number;
}

/** The same through DynamoDbClubRegistry and DynamoDbStateStore against dynalite (own process). */
export async function dispatchOnDynalite(
  db: DynaliteContext,
  template: readonly Cursor[],
  nowMs: number,
  clubs: number,
  runs: number,
): Promise<DynaliteDispatchResult> {
  const tableName = `bench-dispatch-${process.pid}-${randomUUID().slice(0, 8)}`;
  await createStateTable(db.client, tableName);
  const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
  const inner = new DynamoDbStateStore({ client: db.client, tableName });
  const { records, cursors } = fleet(clubs, template, nowMs);
  const t0 = performance.now();
  await forEachLimited(records, 32, (r) => registry.put(r));
  await forEachLimited(cursors, 32, async (c) => {
    await inner.putCursor(c);
  });
  const seedMs = performance.now() - t0;
  const store = new CountingStateStore(inner);
  const out: DispatchRun[] = [];
  for (let r = 0; r < runs; r++)
    out.push(await runDispatch('dynalite', registry, store, nowMs + r * MINUTE, clubs));
  return { runs: out, seedMs };
}

async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export interface FleetMinute {
  readonly messages: number;
  readonly dispatchWallMs: number;
  /** Wall time from the first poll message taken to the last one finished. */
  readonly drainWallMs: number;
  readonly pollWallMs: number[];
}

export interface FleetHourResult {
  readonly clubs: number;
  readonly workers: number;
  readonly sandboxStartupMs: number;
  readonly baselineWallMs: number;
  readonly minutes: FleetMinute[];
  readonly polls: number;
  /** Local wall time of the poll invocations of the hour: median and p95, ms. */
  readonly pollWallMsMedian: number;
  readonly pollWallMsP95: number;
  readonly requests: number;
  readonly rows: number;
  readonly events: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly sandboxCpuMs: number;
  readonly store: StoreCounts;
  readonly failures: number;
}

const cpuOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** `clubs` typical clubs for `minutes` simulated minutes: dispatch every minute, then a pool of `workers` polls. */
export async function fleetHour(options: {
  clubs: number;
  members: number;
  visitsPerDay: number;
  historyDays: number;
  minutes: number;
  workers: number;
  pollDeadlineMs: number;
  seed: number;
}): Promise<FleetHourResult> {
  const host = HostProcess.start(SANDBOX_HOST, 6144);
  try {
    const info = await host.call<SandboxInfo>('start', {
      seed: options.seed,
      startTime: '2026-03-02T00:00:00Z',
      historyDays: options.historyDays,
      clubs: Array.from({ length: options.clubs }, (_, i) => ({
        clubId: `club-${String(i + 1).padStart(4, '0')}`,
        members: options.members,
        visits: options.visitsPerDay * options.historyDays,
        plan: 'basic',
        timeZone: ZONES[i % ZONES.length],
      })),
    });
    const configs = parseClubsFile(info.clubsFile, 'bench sandbox');
    const prefix = 'gym-bridge/bench/clubs/';
    let simNow = info.nowMs;
    const registry = new CountingRegistry(
      configs.map((c) => clubRecordFrom(c, `${prefix}${c.clubId}`)),
      () => simNow,
    );
    const secrets = new CountingSecretsClient(
      new Map(configs.map((c) => [`${prefix}${c.clubId}`, JSON.stringify(c.credentials)])),
    );
    const store = new CountingStateStore(new MemoryStateStore());
    const sink = new CountingSink();
    const clients = new CountingClientFactory();
    const path = new ProductionPath({
      registry,
      secretsClient: secrets,
      store,
      sink,
      clients,
      simNow: () => simNow,
      pollDeadlineMs: options.pollDeadlineMs,
      secretPrefix: prefix,
      owner: `bench-fleet-${randomUUID()}`,
    });
    let failures = 0;
    let polls = 0;
    let rows = 0;
    const drain = async (messages: PollMessage[]) => {
      const durations: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < messages.length) {
          const message = messages[next++]!;
          const started = performance.now();
          const report = await path.poll(message);
          durations.push(performance.now() - started);
          if (report) {
            polls++;
            failures += report.failures.length;
            rows += report.sources.reduce((a, s) => a + s.records, 0);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.workers, messages.length) }, worker));
      return durations;
    };
    const baselineStarted = performance.now();
    await path.dispatch();
    await drain(path.queue.drain());
    const baselineWallMs = performance.now() - baselineStarted;
    polls = 0;
    rows = 0;
    store.take();
    sink.take();
    clients.take();
    const sandboxCpu0 = cpuOf(await host.call<NodeJS.CpuUsage>('cpu'));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const minutes: FleetMinute[] = [];
    for (let m = 0; m < options.minutes; m++) {
      simNow = (await host.call<{ nowMs: number }>('advance', MINUTE)).nowMs;
      const d0 = performance.now();
      await path.dispatch();
      const dispatchWallMs = performance.now() - d0;
      const messages = path.queue.drain();
      const p0 = performance.now();
      const pollWallMs = await drain(messages);
      minutes.push({
        messages: messages.length,
        dispatchWallMs,
        drainWallMs: performance.now() - p0,
        pollWallMs,
      });
    }
    const wallMs = performance.now() - t0;
    const cpuMs = cpuMsSince(cpu0);
    const sandboxCpuMs = cpuOf(await host.call<NodeJS.CpuUsage>('cpu')) - sandboxCpu0;
    return {
      clubs: options.clubs,
      workers: options.workers,
      sandboxStartupMs: info.startupMs,
      baselineWallMs,
      minutes,
      polls,
      pollWallMsMedian: median(minutes.flatMap((m) => m.pollWallMs)),
      pollWallMsP95: percentile(
        minutes.flatMap((m) => m.pollWallMs),
        95,
      ),
      requests: clients.take().data,
      rows,
      events: sink.take().events,
      cpuMs,
      wallMs,
      sandboxCpuMs,
      store: store.take(),
      failures,
    };
  } finally {
    await host.close();
  }
}

export const medianOf = (runs: readonly DispatchRun[], key: keyof DispatchRun) =>
  median(runs.map((r) => Number(r[key])));
