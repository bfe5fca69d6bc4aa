/**
 * A simulated hour of typical clubs (one sandbox process serving all of them) through the poll
 * path: the real dispatcher every simulated minute, then a bounded pool of workers polls its
 * messages, as the poll Lambda's maximum concurrency would.
 */
import { randomUUID } from 'node:crypto';
import { parseClubsFile } from '../../lambdas/clubs/club-config';
import { clubRecordFrom } from '../../lambdas/clubs/club-record';
import type { PollMessage } from '../../lambdas/common/deployment-contract';
import { MemoryStateStore } from '../../lambdas/state';
import { SANDBOX_HOST, type SandboxInfo } from '../big-club';
import { CountingSink } from '../counting-sink';
import { type CountingStateStore, countingStore, type StoreCounts } from '../counting-store';
import { HostProcess } from '../hosts/rpc';
import { CountingRegistry, CountingSecretsClient, ProductionPath } from '../production-path';
import { CountingClientFactory } from '../sim-clients';
import { cpuMsSince, median, percentile } from '../stats';
import { MINUTE, ZONES } from './synthetic-fleet';

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

export interface FleetHourOptions {
  readonly clubs: number;
  readonly members: number;
  readonly visitsPerDay: number;
  readonly historyDays: number;
  readonly minutes: number;
  readonly workers: number;
  readonly pollDeadlineMs: number;
  readonly seed: number;
}

/** The production path over the sandbox's clubs, with its counting stand-ins and the simulated clock. */
interface FleetRig {
  readonly path: ProductionPath;
  readonly store: CountingStateStore;
  readonly sink: CountingSink;
  readonly clients: CountingClientFactory;
  readonly clock: { nowMs: number };
}

/** What the polls came to: polls and rows since the last reset, failures since the start. */
interface PollTally {
  polls: number;
  rows: number;
  failures: number;
}

function startFleetSandbox(host: HostProcess, options: FleetHourOptions): Promise<SandboxInfo> {
  return host.call<SandboxInfo>('start', {
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
}

function fleetRig(info: SandboxInfo, pollDeadlineMs: number): FleetRig {
  const configs = parseClubsFile(info.clubsFile, 'bench sandbox');
  const prefix = 'gym-bridge/bench/clubs/';
  const clock = { nowMs: info.nowMs };
  const registry = new CountingRegistry(
    configs.map((c) => clubRecordFrom(c, `${prefix}${c.clubId}`)),
    () => clock.nowMs,
  );
  const secrets = new CountingSecretsClient(
    new Map(configs.map((c) => [`${prefix}${c.clubId}`, JSON.stringify(c.credentials)])),
  );
  const store = countingStore(new MemoryStateStore());
  const sink = new CountingSink();
  const clients = new CountingClientFactory();
  const path = new ProductionPath({
    registry,
    secretsClient: secrets,
    store,
    sink,
    clients,
    simNow: () => clock.nowMs,
    pollDeadlineMs,
    secretPrefix: prefix,
    owner: `bench-fleet-${randomUUID()}`,
  });
  return { path, store, sink, clients, clock };
}

/** Polls the messages with `workers` side by side; returns each poll's wall time. */
async function drain(
  rig: FleetRig,
  workers: number,
  messages: PollMessage[],
  tally: PollTally,
): Promise<number[]> {
  const durations: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < messages.length) {
      const message = messages[next++]!;
      const started = performance.now();
      const report = await rig.path.poll(message);
      durations.push(performance.now() - started);
      if (report) {
        tally.polls++;
        tally.failures += report.failures.length;
        tally.rows += report.sources.reduce((a, s) => a + s.records, 0);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, messages.length) }, worker));
  return durations;
}

/** The silent baseline of every club (the first dispatch finds every source due); its wall time. */
async function baseline(rig: FleetRig, workers: number, tally: PollTally): Promise<number> {
  const started = performance.now();
  await rig.path.dispatch();
  await drain(rig, workers, rig.path.queue.drain(), tally);
  const wallMs = performance.now() - started;
  tally.polls = 0;
  tally.rows = 0;
  rig.store.take();
  rig.sink.take();
  rig.clients.take();
  return wallMs;
}

/** Each simulated minute: the sandbox advances, the dispatcher runs, the workers drain its messages. */
async function runMinutes(
  host: HostProcess,
  rig: FleetRig,
  options: FleetHourOptions,
  tally: PollTally,
): Promise<FleetMinute[]> {
  const minutes: FleetMinute[] = [];
  for (let m = 0; m < options.minutes; m++) {
    rig.clock.nowMs = (await host.call<{ nowMs: number }>('advance', MINUTE)).nowMs;
    const d0 = performance.now();
    await rig.path.dispatch();
    const dispatchWallMs = performance.now() - d0;
    const messages = rig.path.queue.drain();
    const p0 = performance.now();
    const pollWallMs = await drain(rig, options.workers, messages, tally);
    minutes.push({
      messages: messages.length,
      dispatchWallMs,
      drainWallMs: performance.now() - p0,
      pollWallMs,
    });
  }
  return minutes;
}

/** `clubs` typical clubs for `minutes` simulated minutes: dispatch every minute, then a pool of `workers` polls. */
export async function fleetHour(options: FleetHourOptions): Promise<FleetHourResult> {
  const host = HostProcess.start(SANDBOX_HOST, 6144);
  try {
    const info = await startFleetSandbox(host, options);
    const rig = fleetRig(info, options.pollDeadlineMs);
    const tally: PollTally = { polls: 0, rows: 0, failures: 0 };
    const baselineWallMs = await baseline(rig, options.workers, tally);
    const sandboxCpu0 = await host.cpuMs();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const minutes = await runMinutes(host, rig, options, tally);
    const wallMs = performance.now() - t0;
    const cpuMs = cpuMsSince(cpu0);
    const sandboxCpuMs = (await host.cpuMs()) - sandboxCpu0;
    const pollWallMs = minutes.flatMap((m) => m.pollWallMs);
    return {
      clubs: options.clubs,
      workers: options.workers,
      sandboxStartupMs: info.startupMs,
      baselineWallMs,
      minutes,
      polls: tally.polls,
      pollWallMsMedian: median(pollWallMs),
      pollWallMsP95: percentile(pollWallMs, 95),
      requests: rig.clients.take().data,
      rows: tally.rows,
      events: rig.sink.take().events,
      cpuMs,
      wallMs,
      sandboxCpuMs,
      store: rig.store.take(),
      failures: tally.failures,
    };
  } finally {
    await host.close();
  }
}
