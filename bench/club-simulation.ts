/**
 * A typical club through the bridge in simulated time: the sandbox (in its own process) advances
 * in steps of the dispatch period; at each step the engine's scheduler decides which sources are
 * due (as the dispatcher does every minute) and the club is polled with those sources; every
 * request, row, store call and event is counted, and every event is matched with the journal entry
 * of the change it reports (freshness).
 */
import { randomUUID } from 'node:crypto';
import { type ClubConfig, parseClubsFile } from '../lambdas/clubs/club-config';
import { clubRecordFrom } from '../lambdas/clubs/club-record';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import { publishClubPollMetrics } from '../lambdas/common/metrics';
import type { ClubReport } from '../lambdas/engine/poll-club';
import type { JournalEntry } from '../lambdas/sandbox';
import { enabledSources, SOURCE_ORDER } from '../lambdas/sources';
import { MemoryStateStore } from '../lambdas/state';
import type { Cursor, SourceName } from '../lambdas/state/store';
import type { SandboxInfo } from './big-club';
import { SANDBOX_HOST } from './big-club';
import { addSinkCounts, CountingSink, emptySinkCounts, type SinkCounts } from './counting-sink';
import { addStoreCounts, CountingStateStore, emptyStoreCounts, type StoreCounts } from './counting-store';
import { EmfCapture } from './emf-capture';
import { FreshnessTracker } from './freshness';
import { HostProcess } from './hosts/rpc';
import { LogCapture } from './log-capture';
import { CountingRegistry, CountingSecretsClient, ProductionPath } from './production-path';
import { CountingClientFactory, emptyRequestCounts, type RequestCounts } from './sim-clients';
import { cpuMsSince, entryOf } from './stats';

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
}

/** One poll invocation. */
export interface PollSample {
  readonly simMs: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly sources: readonly SourceName[];
  readonly requests: number;
  readonly rows: number;
  readonly events: number;
  readonly storeRequests: number;
  readonly putEventsRequests: number;
  readonly apiWallMs: number;
  /**
   * Data requests on the poll's critical path: pollClub polls its first source alone and the
   * others side by side, so a poll waits for the first source's requests plus the busiest other's.
   */
  readonly criticalRequests: number;
}

export interface SourceTotals {
  polls: number;
  requests: number;
  rows: number;
  events: number;
}

export interface ClubSimulationResult {
  readonly options: ClubSimulationOptions;
  readonly club: ClubConfig;
  readonly sandboxStartupMs: number;
  readonly wallMs: number;
  /** The silent baseline (first poll of every source): a one-off per club. */
  readonly baseline: { requests: number; rows: number; wallMs: number; store: StoreCounts };
  /** Everything after the baseline. */
  readonly dispatchSteps: number;
  readonly polls: PollSample[];
  readonly requests: RequestCounts;
  readonly rows: number;
  readonly events: number;
  readonly sink: SinkCounts;
  /** Store use of the poll invocations. */
  readonly pollStore: StoreCounts;
  /** Store use of the scheduling decisions (what the dispatcher reads). */
  readonly dispatchStore: StoreCounts;
  /** Registry reads (dispatcher listing + poll handler's club lookups), DynamoDB units. */
  readonly registryReads: { readRequests: number; readUnits: number };
  readonly secretsApiCalls: number;
  /** CloudWatch EMF written by the poll and dispatch metric helpers for this club (after the baseline). */
  readonly emf: { bytes: number; documents: number; perClubMetrics: number };
  /** INFO log lines the poll handler writes for these polls. */
  readonly logs: { bytes: number; lines: number };
  readonly sqsMessages: number;
  readonly sendMessageBatchRequests: number;
  readonly bySource: Record<string, SourceTotals>;
  readonly freshness: FreshnessTracker;
  readonly overdue: Record<string, number>;
  readonly failures: number;
  /** Journal changes in the span. */
  readonly journalChanges: number;
  /** Records served by every endpoint at the start and end of the span (what a full read costs). */
  readonly fullReadRows: { start: number; end: number };
  /** Members and prospects at the end: the snapshots the club keeps in the table. */
  readonly stateRecords: number;
  readonly sandboxCpuMs: number;
  readonly host: HostProcess;
  readonly lastSeq: number;
  /** The club's cursors at the end: a steady-state template for the scale benchmark. */
  readonly cursors: Cursor[];
  readonly endSimMs: number;
}

const OPERATIONS_READ_FULLY = [
  'members',
  'prospects',
  'visits',
  'paymentHistory',
  'posTransactions',
  'disbursements',
  'debtCollection',
  'classAttendance',
] as const;

export async function fullReadRows(host: HostProcess, clubId: string): Promise<number> {
  let total = 0;
  for (const op of OPERATIONS_READ_FULLY) total += await host.call<number>('count', clubId, op);
  return total;
}

const cpuOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** Runs the simulation; the sandbox host is left running (the naive poller reuses it) for the caller to close. */
export async function simulateClub(options: ClubSimulationOptions): Promise<ClubSimulationResult> {
  const t0 = performance.now();
  const host = HostProcess.start(SANDBOX_HOST, 2048);
  const info = await host.call<SandboxInfo>('start', {
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
  const club: ClubConfig = {
    ...parseClubsFile(info.clubsFile, 'bench sandbox')[0]!,
    unstatedZone: 'local',
    unstatedZoneConfirmed: options.zoneConfirmed ?? true,
  };
  const store = new CountingStateStore(new MemoryStateStore());
  const tracker = new FreshnessTracker();
  const pollsClasses = enabledSources(club).includes('classAttendance');
  let simNow = info.nowMs;
  let lastSeq = info.lastSeq;
  let pollStarted = { sim: simNow, wall: performance.now() };
  const sink = new CountingSink((events) =>
    tracker.published(events, pollStarted.sim + (performance.now() - pollStarted.wall)),
  );
  const clients = new CountingClientFactory();
  const secretPrefix = 'gym-bridge/bench/clubs/';
  const secretName = `${secretPrefix}${club.clubId}`;
  const registry = new CountingRegistry([clubRecordFrom(club, secretName)], () => simNow);
  const secretsClient = new CountingSecretsClient(new Map([[secretName, JSON.stringify(club.credentials)]]));
  const path = new ProductionPath({
    registry,
    secretsClient,
    store,
    sink,
    clients,
    simNow: () => simNow,
    pollDeadlineMs: options.pollDeadlineMs,
    secretPrefix,
    owner: `bench-${randomUUID()}`,
  });
  const bySource: Record<string, SourceTotals> = {};
  const polls: PollSample[] = [];
  const requests = emptyRequestCounts();
  const sinkTotals = emptySinkCounts();
  const pollStore = emptyStoreCounts();
  const dispatchStore = emptyStoreCounts();
  let failures = 0;
  const emf = new EmfCapture();
  const logs = new LogCapture();

  const poll = async (message: PollMessage): Promise<ClubReport | undefined> => {
    pollStarted = { sim: simNow, wall: performance.now() };
    const cpu0 = process.cpuUsage();
    const report = await path.poll(message);
    const wallMs = performance.now() - pollStarted.wall;
    const cpuMs = cpuMsSince(cpu0);
    const req = clients.take();
    const storeCounts = store.take();
    const sinkCounts = sink.take();
    if (!report) return undefined;
    logs.poll(report, randomUUID());
    publishClubPollMetrics(emf.metrics, {
      report,
      plan: club.plan,
      durationMs: wallMs,
      rateLimited: 0,
      nowMs: simNow,
    });
    if (report.failures.length > 0) failures += report.failures.length;
    const rows = report.sources.reduce((a, s) => a + s.records, 0);
    polls.push({
      simMs: simNow,
      wallMs,
      cpuMs,
      sources: report.sources.map((s) => s.source as SourceName),
      requests: req.data,
      rows,
      events: sinkCounts.events,
      storeRequests: storeCounts.apiRequests,
      putEventsRequests: sinkCounts.putEventsRequests,
      apiWallMs: req.dataWallMs,
      criticalRequests: criticalRequests(report, req.bySource),
    });
    requests.data += req.data;
    requests.reauth401 += req.reauth401;
    requests.token += req.token;
    requests.dataWallMs += req.dataWallMs;
    addSinkCounts(sinkTotals, sinkCounts);
    addStoreCounts(pollStore, storeCounts);
    for (const s of report.sources) {
      const t = entryOf(bySource, s.source, () => ({ polls: 0, requests: 0, rows: 0, events: 0 }));
      t.polls++;
      t.rows += s.records;
      t.events += s.events;
      t.requests += s.pages;
    }
    return report;
  };

  // The silent baseline: every source's first poll (the first dispatch finds them all due).
  const baselineStarted = performance.now();
  await path.dispatch();
  for (const message of path.queue.drain()) await poll(message);
  const base = polls.pop()!;
  store.take();
  registry.take();
  const secretsCalls0 = secretsClient.calls;
  emf.bytes = 0;
  emf.documents = 0;
  logs.bytes = 0;
  logs.lines = 0;
  const batches0 = path.queue.sendMessageBatchRequests;
  let sqsMessages = 0;
  const baseline = {
    requests: base.requests,
    rows: base.rows,
    wallMs: performance.now() - baselineStarted,
    store: { ...pollStore },
  };
  Object.assign(requests, emptyRequestCounts());
  Object.assign(pollStore, emptyStoreCounts());
  Object.assign(sinkTotals, emptySinkCounts());
  for (const key of Object.keys(bySource)) delete bySource[key];

  const fullStart = await fullReadRows(host, club.clubId);
  const sandboxCpu0 = cpuOf(await host.call<NodeJS.CpuUsage>('cpu'));
  const startSim = simNow;
  let journalChanges = 0;
  let steps = 0;
  while (simNow - startSim < options.spanMs) {
    const advanced = await host.call<{ nowMs: number; lastSeq: number }>('advance', options.stepMs);
    simNow = advanced.nowMs;
    const entries = await host.call<JournalEntry[]>('journal', lastSeq);
    lastSeq = advanced.lastSeq;
    journalChanges += entries.length;
    // Class sessions are journaled whether or not the club polls the (opt-in) classAttendance
    // source; the typical club does not, so they are no change it could report.
    tracker.addEntries(entries.filter((e) => e.kind !== 'classAttendance' || pollsClasses));
    steps++;
    if (options.everySourceEveryStep) {
      sqsMessages++;
      await poll({
        clubId: club.clubId,
        sources: SOURCE_ORDER,
        dispatchedAt: new Date(simNow).toISOString(),
      });
      continue;
    }
    // The dispatcher's decision at this minute, then the poll Lambda for each message.
    await path.dispatch();
    addStoreCounts(dispatchStore, store.take());
    // The dispatch handler's metrics are one document per run for the whole fleet (not per club).
    store.take();
    for (const message of path.queue.drain()) {
      sqsMessages++;
      await poll(message);
    }
  }
  const sandboxCpuMs = cpuOf(await host.call<NodeJS.CpuUsage>('cpu')) - sandboxCpu0;
  const fullEnd = await fullReadRows(host, club.clubId);
  const cursors = await store.listCursors(club.clubId);
  store.take();
  const stateRecords =
    (await host.call<number>('count', club.clubId, 'members')) +
    (await host.call<number>('count', club.clubId, 'prospects'));
  return {
    options,
    club,
    sandboxStartupMs: info.startupMs,
    wallMs: performance.now() - t0,
    baseline,
    dispatchSteps: steps,
    polls,
    requests,
    rows: polls.reduce((a, p) => a + p.rows, 0),
    events: sinkTotals.events,
    sink: sinkTotals,
    pollStore,
    dispatchStore,
    registryReads: registry.take(),
    secretsApiCalls: secretsClient.calls - secretsCalls0,
    emf: { bytes: emf.bytes, documents: emf.documents, perClubMetrics: emf.perClubMetrics(club.clubId) },
    logs: { bytes: logs.bytes, lines: logs.lines },
    sqsMessages,
    sendMessageBatchRequests: path.queue.sendMessageBatchRequests - batches0,
    bySource,
    freshness: tracker,
    overdue: tracker.overdue(simNow, 2 * 3_600_000),
    failures,
    journalChanges,
    fullReadRows: { start: fullStart, end: fullEnd },
    stateRecords,
    sandboxCpuMs,
    host,
    lastSeq,
    cursors,
    endSimMs: simNow,
  };
}

/** The first source's requests plus the busiest of the others' (they run side by side). */
export function criticalRequests(report: ClubReport, bySource: Readonly<Record<string, number>>): number {
  const [first, ...rest] = report.sources.map((s) => bySource[s.source] ?? 0);
  return (bySource[''] ?? 0) + (first ?? 0) + Math.max(0, ...rest);
}
