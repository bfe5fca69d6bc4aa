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
import type { Cursor, StateStore } from '../lambdas/state/store';
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
  await seedCursors(inner, cursors, 1);
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
  await seedCursors(inner, cursors, 32);
  const seedMs = performance.now() - t0;
  const store = new CountingStateStore(inner);
  const out: DispatchRun[] = [];
  for (let r = 0; r < runs; r++)
    out.push(await runDispatch('dynalite', registry, store, nowMs + r * MINUTE, clubs));
  return { runs: out, seedMs };
}

/** Stores each club's cursors as its poll would: one session (two writes) per club. */
async function seedCursors(
  store: StateStore,
  cursors: readonly Cursor[],
  concurrency: number,
): Promise<void> {
  const byClub = new Map<string, Cursor[]>();
  for (const c of cursors) byClub.set(c.clubId, [...(byClub.get(c.clubId) ?? []), c]);
  await forEachLimited([...byClub], concurrency, async ([clubId, list]) => {
    const session = await store.openClub(clubId, 'bench-seed', 60_000, Date.now());
    if (!session) throw new Error(`could not seed club ${clubId}: its lease is held`);
    for (const c of list) await session.putCursor(c);
    await session.close();
  });
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

/** What the report needs of the 5,000-club fleet (docs/benchmarks.json `scale.*`). */
export interface Fleet5000Result {
  readonly clubs: number;
  /** The dispatcher's run at the CPU share of its memory, with its requests' latency: seconds. */
  readonly dispatchSeconds: number;
  readonly dispatchTimeoutSeconds: number;
  readonly dispatchCpuMs: number;
  readonly dispatchWallMs: number;
  /** CPU time stretch at the dispatcher's memory (1,769 MB = one vCPU). */
  readonly cpuStretch: number;
  readonly messages: number;
  readonly readRequests: number;
  readonly sendMessageBatchRequests: number;
  /** When the first messages were handed to the queue, as a share of the run (sends as it goes). */
  readonly firstSendShare: number;
  /** A run stopped half-way (its deadline at half the run): what it had queued, and what it left. */
  readonly halfDeadline: { readonly messages: number; readonly notReached: number };
  /** Poll Lambdas busy at once in the steady state: invocations a minute x billed seconds / 60. */
  readonly pollConcurrencyNeeded: number;
  /** What the stage configures for this many clubs (lib/stage-config.ts pollConcurrencyFor). */
  readonly pollConcurrencyConfigured: number;
  readonly pollInvocationSeconds: number;
  /** Account quotas against the fleet's rates (us-east-1 defaults). */
  readonly rates: {
    readonly putEventsRequestsPerSecond: number;
    readonly putEventsQuotaPerSecond: number;
    readonly getSecretValuePerSecond: number;
    readonly getSecretValueQuotaPerSecond: number;
  };
  /** Requests one DynamoDB key gets a minute at most: a club's state item (read once, written twice). */
  readonly maxRequestsPerKeyPerMinute: number;
}

/** Latency assumed per dispatcher request (same region), ms. */
const DISPATCH_REQUEST_MS = 10;

export interface Fleet5000Input {
  readonly template: readonly Cursor[];
  readonly nowMs: number;
  readonly clubs: number;
  readonly dispatchMemoryMb: number;
  readonly dispatchTimeoutSeconds: number;
  readonly batchSize: number;
  readonly pollConcurrencyConfigured: number;
  /** Billed seconds of one poll invocation (a full batch), from the cost model. */
  readonly pollInvocationSeconds: number;
  /** Per club per month, from the typical club. */
  readonly putEventsRequestsPerClubMonth: number;
  /** GetSecretValue calls a second for the fleet (containers x secrets / TTL). */
  readonly getSecretValuePerSecond: number;
}

export async function fleet5000(input: Fleet5000Input): Promise<Fleet5000Result> {
  const { records, cursors } = fleet(input.clubs, input.template, input.nowMs);
  const inner = new MemoryStateStore();
  await seedCursors(inner, cursors, 1);
  const store = new CountingStateStore(inner);
  const registry = new CountingRegistry(records, () => input.nowMs);
  const sends: number[] = [];
  const queue = {
    messages: 0,
    requests: 0,
    async sendBatch(messages: readonly PollMessage[]) {
      sends.push(performance.now());
      this.messages += messages.length;
      this.requests += Math.ceil(messages.length / 10);
    },
  };
  store.take();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await dispatchDueClubs({ registry, store, queue, now: input.nowMs });
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const cpuStretch = Math.max(1, 1769 / input.dispatchMemoryMb);
  const dispatchSeconds = (cpuMs * cpuStretch + (summary.tableReads + 2) * DISPATCH_REQUEST_MS) / 1000;
  // The same run stopped half-way: what it queued before its deadline.
  const half = {
    messages: 0,
    requests: 0,
    async sendBatch(m: readonly PollMessage[]) {
      this.messages += m.length;
    },
  };
  const halfSummary = await dispatchDueClubs({
    registry,
    store,
    queue: half,
    now: input.nowMs,
    deadlineMs: Date.now() + wallMs / 2,
  });
  const invocationsPerMinute = Math.ceil(input.clubs / input.batchSize);
  return {
    clubs: summary.clubs,
    dispatchSeconds,
    dispatchTimeoutSeconds: input.dispatchTimeoutSeconds,
    dispatchCpuMs: cpuMs,
    dispatchWallMs: wallMs,
    cpuStretch,
    messages: summary.messages,
    readRequests: summary.tableReads,
    sendMessageBatchRequests: queue.requests,
    firstSendShare: sends.length > 0 ? ((sends[0] ?? t0) - t0) / wallMs : 1,
    halfDeadline: { messages: half.messages, notReached: halfSummary.notReached },
    pollConcurrencyNeeded: (invocationsPerMinute * input.pollInvocationSeconds) / 60,
    pollConcurrencyConfigured: input.pollConcurrencyConfigured,
    pollInvocationSeconds: input.pollInvocationSeconds,
    rates: {
      putEventsRequestsPerSecond: (input.putEventsRequestsPerClubMonth * input.clubs) / (30 * 86_400),
      putEventsQuotaPerSecond: 10_000,
      getSecretValuePerSecond: input.getSecretValuePerSecond,
      getSecretValueQuotaPerSecond: 10_000,
    },
    maxRequestsPerKeyPerMinute: 3,
  };
}
