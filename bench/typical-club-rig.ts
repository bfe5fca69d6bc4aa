/**
 * The typical club in a sandbox of its own (in its own process) and the production path over it:
 * the counting registry, secrets, store, sink and clients, on the simulated clock, with every
 * published event handed to the freshness tracker stamped in simulated time.
 */
import { randomUUID } from 'node:crypto';
import { type ClubConfig, parseClubsFile } from '../lambdas/clubs/club-config';
import { clubRecordFrom } from '../lambdas/clubs/club-record';
import type { BridgeEvent } from '../lambdas/events/catalog';
import { type BridgeStateStore, MemoryStateStore } from '../lambdas/state';
import { SANDBOX_HOST, type SandboxInfo } from './big-club';
import { CountingSink } from './counting-sink';
import { type CountingStateStore, countingStore } from './counting-store';
import { FreshnessTracker } from './freshness';
import { HostProcess } from './hosts/rpc';
import { CountingRegistry, CountingSecretsClient, ProductionPath } from './production-path';
import { CountingClientFactory } from './sim-clients';

/** What a simulated club is made of and how it is polled (simulateClub, club-simulation.ts). */
export interface ClubSimulationOptions {
  readonly seed: number;
  readonly members: number;
  readonly visitsPerDay: number;
  readonly historyDays: number;
  /** Simulated span after the baseline, ms. */
  readonly spanMs: number;
  /** Dispatch period (the schedule rate), ms. */
  readonly stepMs: number;
  /** Deadline each poll invocation gets (POLL_DEADLINE_MS). */
  readonly pollDeadlineMs: number;
  readonly startTime: string;
  /**
   * Poll every source at every step instead of asking the dispatcher (a schedule to compare the
   * default one with). @default false
   */
  readonly everySourceEveryStep?: boolean;
  /**
   * The club's reading of the API's unstated zone is confirmed (short tails). The sandbox writes
   * those times in the club's local zone, as the club reads them. @default true
   */
  readonly zoneConfirmed?: boolean;
  /** The club's lifecycle events (docs/lifecycle.md) with their defaults; false: off. @default true */
  readonly lifecycle?: boolean;
  /** The visits fast lane (engine/schedule/fast-lane.ts); false: off, visits every minute. @default true */
  readonly fastLane?: boolean;
  /**
   * The state store to poll into: the caller's store, or a function that makes a fresh one for this
   * simulation (the bench's typical runs: a table of their own on dynalite in another process, so
   * each poll's CPU holds the AWS SDK's work and not the server's). Default in memory.
   */
  readonly stateStore?: BridgeStateStore | (() => Promise<BridgeStateStore>);
  /**
   * Clubs a poll invocation carries (the deployed event source batch size, deployment.ts
   * `pollBatchSize`): each poll counts its share of the invocation's EMF document and context line.
   * @default 1 (each poll pays a whole invocation's: an upper bound)
   */
  readonly pollBatchSize?: number;
  /** Sees every batch of events the club publishes (the webhook bench keeps them). */
  readonly onEvents?: (events: readonly BridgeEvent[]) => void;
}

/** When the current poll started, in simulated and in wall time: an event is stamped from it. */
export interface PollStart {
  sim: number;
  wall: number;
}

export interface TypicalClubRig {
  readonly host: HostProcess;
  readonly info: SandboxInfo;
  readonly club: ClubConfig;
  /** The simulated clock: the sandbox's time, advanced step by step. */
  readonly clock: { nowMs: number };
  readonly pollStart: PollStart;
  readonly tracker: FreshnessTracker;
  readonly store: CountingStateStore;
  readonly sink: CountingSink;
  readonly clients: CountingClientFactory;
  readonly registry: CountingRegistry;
  readonly secretsClient: CountingSecretsClient;
  readonly path: ProductionPath;
}

async function startSandbox(host: HostProcess, options: ClubSimulationOptions): Promise<SandboxInfo> {
  return host.call<SandboxInfo>('start', {
    seed: options.seed,
    startTime: options.startTime,
    historyDays: options.historyDays,
    clubs: [
      {
        clubId: 'typical-club',
        timeZone: 'Australia/Sydney',
        plan: 'basic',
        members: options.members,
        visits: Math.round(options.visitsPerDay * options.historyDays),
      },
    ],
  });
}

/** Starts the sandbox (left running for the caller to close) and builds the path over it. */
export async function startTypicalClub(options: ClubSimulationOptions): Promise<TypicalClubRig> {
  const host = HostProcess.start(SANDBOX_HOST, 2048);
  const info = await startSandbox(host, options);
  const club: ClubConfig = {
    ...parseClubsFile(info.clubsFile, 'bench sandbox')[0]!,
    unstatedZone: 'local',
    unstatedZoneConfirmed: options.zoneConfirmed ?? true,
    ...(options.lifecycle === false
      ? { lifecycle: { enabled: false, inactiveDays: 14, expiringDays: 14, trialEndingHours: 24 } }
      : {}),
    ...(options.fastLane === false ? { fastLane: { enabled: false } } : {}),
  };
  const given = options.stateStore;
  const store = countingStore(
    typeof given === 'function' ? await given() : (given ?? new MemoryStateStore()),
  );
  const tracker = new FreshnessTracker();
  const clock = { nowMs: info.nowMs };
  const pollStart: PollStart = { sim: clock.nowMs, wall: performance.now() };
  const sink = new CountingSink((events) => {
    tracker.published(events, pollStart.sim + (performance.now() - pollStart.wall));
    options.onEvents?.(events);
  });
  // Counts each request's bytes on the client's sockets (wire-counter.ts) as well.
  const clients = new CountingClientFactory(new URL(info.url).origin);
  const secretPrefix = 'gym-bridge/bench/clubs/';
  const secretName = `${secretPrefix}${club.clubId}`;
  const registry = new CountingRegistry([clubRecordFrom(club, secretName)], () => clock.nowMs);
  const secretsClient = new CountingSecretsClient(new Map([[secretName, JSON.stringify(club.credentials)]]));
  const path = new ProductionPath({
    registry,
    secretsClient,
    store,
    sink,
    clients,
    simNow: () => clock.nowMs,
    pollDeadlineMs: options.pollDeadlineMs,
    secretPrefix,
    owner: `bench-${randomUUID()}`,
  });
  return { host, info, club, clock, pollStart, tracker, store, sink, clients, registry, secretsClient, path };
}
