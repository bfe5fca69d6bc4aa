/**
 * A simulated hour of typical clubs (one sandbox process serving all of them) through the poll
 * path: the real dispatcher every simulated minute, its polls spread over the minute as deployed
 * (DISPATCH_SPREAD_SECONDS); the simulated clock moves a second at a time and a bounded pool of
 * workers polls the messages due in that second, as the poll Lambda's maximum concurrency would.
 * Each second's polls, DynamoDB units and PutEvents requests make the minute's shape
 * (minute-shape.ts).
 */

import { randomUUID } from 'node:crypto';
import { parseClubsFile } from '../../lambdas/clubs/club-config';
import { clubRecordFrom } from '../../lambdas/clubs/club-record';
import type { PollMessage } from '../../lambdas/common/deployment-contract';
import type { PollQueueEntry } from '../../lambdas/common/poll-queue';
import { MINUTE_MS } from '../../lambdas/common/time-units';
import { MemoryStateStore } from '../../lambdas/state';
import { SANDBOX_HOST, type SandboxInfo } from '../big-club';
import { addSinkCounts, CountingSink, emptySinkCounts, type SinkCounts } from '../counting-sink';
import {
  addStoreCounts,
  type CountingStateStore,
  countingStore,
  emptyStoreCounts,
  type StoreCounts,
} from '../counting-store';
import { HostProcess } from '../hosts/rpc';
import { CountingRegistry, CountingSecretsClient, ProductionPath } from '../production-path';
import { CountingClientFactory } from '../sim-clients';
import { cpuMsSince, median, percentile } from '../stats';
import { type MinuteShape, minuteShape, type SecondLoad } from './minute-shape';
import { ZONES } from './synthetic-fleet';

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
  /** Seconds of each minute the polls were spread over (as deployed). */
  readonly spreadSeconds: number;
  /** The per-second shape of the hour's load over a minute. */
  readonly minuteShape: MinuteShape;
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
  /** @default 60 (the deployed spread of a one-minute period) */
  readonly spreadSeconds?: number;
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

function fleetRig(info: SandboxInfo, pollDeadlineMs: number, spreadSeconds: number): FleetRig {
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
    spreadSeconds,
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

/** What the hour's seconds carried, and the totals they add up to. */
interface HourLoad {
  readonly seconds: SecondLoad[];
  readonly store: StoreCounts;
  readonly sink: SinkCounts;
}

/** One simulated second: the messages due by then are polled, and what it carried is counted. */
async function pollSecond(
  rig: FleetRig,
  workers: number,
  pending: PollQueueEntry[],
  tally: PollTally,
  load: HourLoad,
): Promise<number[]> {
  const now = rig.clock.nowMs;
  const due = pending.filter((e) => (e.notBeforeMs ?? 0) <= now);
  const left = pending.filter((e) => (e.notBeforeMs ?? 0) > now);
  pending.splice(0, pending.length, ...left);
  const pollWallMs = await drain(
    rig,
    workers,
    due.map((e) => e.message),
    tally,
  );
  const store = rig.store.take();
  const sink = rig.sink.take();
  addStoreCounts(load.store, store);
  addSinkCounts(load.sink, sink);
  load.seconds.push({
    polls: due.length,
    readUnits: store.readUnits,
    writeUnits: store.writeUnits,
    putEventsRequests: sink.putEventsRequests,
  });
  return pollWallMs;
}

/**
 * Each simulated minute: the dispatcher runs at its start, then the clock moves a second at a
 * time (the sandbox with it) and the messages due in each second are polled.
 */
async function runMinutes(
  host: HostProcess,
  rig: FleetRig,
  options: FleetHourOptions,
  tally: PollTally,
): Promise<{ minutes: FleetMinute[]; load: HourLoad }> {
  const minutes: FleetMinute[] = [];
  const load: HourLoad = { seconds: [], store: emptyStoreCounts(), sink: emptySinkCounts() };
  for (let m = 0; m < options.minutes; m++) {
    const d0 = performance.now();
    await rig.path.dispatch();
    const dispatchWallMs = performance.now() - d0;
    const pending = rig.path.queue.drainEntries();
    const messages = pending.length;
    const p0 = performance.now();
    const pollWallMs: number[] = [];
    for (let second = 0; second < 60; second++) {
      pollWallMs.push(...(await pollSecond(rig, options.workers, pending, tally, load)));
      rig.clock.nowMs = (await host.call<{ nowMs: number }>('advance', 1000)).nowMs;
    }
    minutes.push({ messages, dispatchWallMs, drainWallMs: performance.now() - p0, pollWallMs });
  }
  return { minutes, load };
}

/** `clubs` typical clubs for `minutes` simulated minutes: dispatch every minute, then a pool of `workers` polls. */
export async function fleetHour(options: FleetHourOptions): Promise<FleetHourResult> {
  const host = HostProcess.start(SANDBOX_HOST, 6144);
  try {
    const info = await startFleetSandbox(host, options);
    const spreadSeconds = options.spreadSeconds ?? 60;
    const rig = fleetRig(info, options.pollDeadlineMs, spreadSeconds);
    const tally: PollTally = { polls: 0, rows: 0, failures: 0 };
    const baselineWallMs = await baseline(rig, options.workers, tally);
    // The hour starts a minute after the baselines (every club polled at once): then each club is
    // due at its own second, as in the steady state.
    rig.clock.nowMs = (await host.call<{ nowMs: number }>('advance', MINUTE_MS)).nowMs;
    rig.store.take();
    rig.sink.take();
    const sandboxCpu0 = await host.cpuMs();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { minutes, load } = await runMinutes(host, rig, options, tally);
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
      events: load.sink.events,
      cpuMs,
      wallMs,
      sandboxCpuMs,
      store: load.store,
      failures: tally.failures,
      spreadSeconds,
      minuteShape: minuteShape(load.seconds),
    };
  } finally {
    await host.close();
  }
}
