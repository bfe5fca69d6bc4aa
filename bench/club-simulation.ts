/**
 * A typical club through the bridge in simulated time: the sandbox (in its own process) advances
 * in steps of the dispatch period; at each step the engine's scheduler decides which sources are
 * due (as the dispatcher does every minute) and the club is polled with those sources; every
 * request, row, store call and event is counted, and every event is matched with the journal entry
 * of the change it reports (freshness). The sandbox and the path over it are set up in
 * typical-club-rig.ts; each poll is counted by club-poll-recorder.ts.
 */

import type { ClubConfig } from '../lambdas/clubs/club-config';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import type { PollQueueEntry } from '../lambdas/common/poll-queue';
import { HOUR_MS } from '../lambdas/common/time-units';
import { enabledSources, SOURCE_ORDER, SOURCES } from '../lambdas/sources';
import { encodeLifecycle } from '../lambdas/state/lifecycle-items';
import type { Cursor } from '../lambdas/state/store';
import type { JournalEntry } from '../sandbox';
import type { PageBytes } from '../sandbox/sandbox-types';
import { ClubPollRecorder, type PollSample, type SourceTotals } from './club-poll-recorder';
import type { SinkCounts } from './counting-sink';
import { addStoreCounts, emptyStoreCounts, type StoreCounts } from './counting-store';
import type { FreshnessTracker } from './freshness';
import type { HostProcess } from './hosts/rpc';
import type { RequestCounts } from './sim-clients';
import { type ClubSimulationOptions, startTypicalClub, type TypicalClubRig } from './typical-club-rig';

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
  /** CloudWatch EMF of this club's polls (after the baseline): each poll's share of its invocation's document. */
  readonly emf: { bytes: number; documents: number; perClubMetrics: number };
  /** INFO log lines the poll handler writes for these polls, each with its share of its invocation's line. */
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
  /** The span's data pages: their JSON bytes over their bytes as sent (1: none compressed). */
  readonly answerInflation: number;
  readonly host: HostProcess;
  readonly lastSeq: number;
  /** The club's cursors at the end: a steady-state template for the scale benchmark. */
  readonly cursors: Cursor[];
  readonly endSimMs: number;
  /** The lifecycle evaluations after the baseline, and the club's lifecycle document at the end. */
  readonly lifecycle: {
    evaluations: number;
    published: number;
    ms: number;
    waiting: number;
    docBytes: number;
    /** The delta item's bytes gzipped at the end. */
    deltaBytes: number;
    /** API requests of the visit history read in the span (the first evaluation's, if it fell there). */
    historyRequests: number;
    /** API requests of the visit history the first evaluation read, wherever it fell (once a club). */
    historyRequestsOnce: number;
  };
}

/** The operations a full read of the club's data reads: one per source, in poll order. */
const OPERATIONS_READ_FULLY = SOURCE_ORDER.map((source) => SOURCES[source].operation);

export async function fullReadRows(host: HostProcess, clubId: string): Promise<number> {
  let total = 0;
  for (const op of OPERATIONS_READ_FULLY) total += await host.call<number>('count', clubId, op);
  return total;
}

/** What the baseline leaves behind: its figures, and the counters the span is measured from. */
interface BaselineRun {
  readonly baseline: ClubSimulationResult['baseline'];
  readonly secretsCalls0: number;
  readonly batches0: number;
}

/** The silent baseline: every source's first poll (the first dispatch finds them all due). */
async function runBaseline(rig: TypicalClubRig, recorder: ClubPollRecorder): Promise<BaselineRun> {
  const baselineStarted = performance.now();
  await rig.path.dispatch();
  for (const message of rig.path.queue.drain()) await recorder.poll(message);
  const base = recorder.polls.pop()!;
  rig.store.take();
  rig.registry.take();
  const secretsCalls0 = rig.secretsClient.calls;
  const batches0 = rig.path.queue.sendMessageBatchRequests;
  const baseline = {
    requests: base.requests,
    rows: base.rows,
    wallMs: performance.now() - baselineStarted,
    store: { ...recorder.pollStore },
  };
  recorder.resetCounts();
  return { baseline, secretsCalls0, batches0 };
}

/** What the span after the baseline came to, beside what the recorder counted. */
interface SpanRun {
  readonly journalChanges: number;
  readonly steps: number;
  readonly sqsMessages: number;
  readonly dispatchStore: StoreCounts;
  readonly lastSeq: number;
}

/**
 * The span after the baseline, step by step: the sandbox advances, its journal feeds the freshness
 * tracker, then the dispatcher decides and each of its messages is polled (or every source is
 * polled at every step, for the comparison schedule).
 */
async function runSpan(
  rig: TypicalClubRig,
  recorder: ClubPollRecorder,
  options: ClubSimulationOptions,
): Promise<SpanRun> {
  // Class sessions are journaled whether or not the club polls the (opt-in) classAttendance
  // source; the typical club does not, so they are no change it could report.
  const pollsClasses = enabledSources(rig.club).includes('classAttendance');
  const dispatchStore = emptyStoreCounts();
  const startSim = rig.clock.nowMs;
  let lastSeq = rig.info.lastSeq;
  let journalChanges = 0;
  let steps = 0;
  let sqsMessages = 0;
  // The sandbox moves to each message's moment before it is polled (a fast-lane probe comes 15 s
  // after its minute's poll: SQS DelaySeconds), then on to the next step.
  const advanceTo = async (atMs: number) => {
    if (atMs <= rig.clock.nowMs) return;
    const advanced = await rig.host.call<{ nowMs: number; lastSeq: number }>(
      'advance',
      atMs - rig.clock.nowMs,
    );
    rig.clock.nowMs = advanced.nowMs;
    const entries = await rig.host.call<JournalEntry[]>('journal', lastSeq);
    lastSeq = advanced.lastSeq;
    journalChanges += entries.length;
    rig.tracker.addEntries(entries.filter((e) => e.kind !== 'classAttendance' || pollsClasses));
  };
  let nextStepMs = startSim + options.stepMs;
  while (rig.clock.nowMs - startSim < options.spanMs) {
    await advanceTo(nextStepMs);
    nextStepMs += options.stepMs;
    steps++;
    const entries: PollQueueEntry[] = options.everySourceEveryStep
      ? [{ message: everySource(rig) }]
      : await dispatchStep(rig, dispatchStore);
    const ordered = [...entries].sort((a, b) => (a.notBeforeMs ?? 0) - (b.notBeforeMs ?? 0));
    for (const entry of ordered) {
      if (entry.notBeforeMs !== undefined) await advanceTo(Math.min(entry.notBeforeMs, nextStepMs));
      sqsMessages++;
      await recorder.poll(entry.message);
    }
  }
  return { journalChanges, steps, sqsMessages, dispatchStore, lastSeq };
}

/** A message for every source, at the current step (no dispatcher decision). */
function everySource(rig: TypicalClubRig): PollMessage {
  return {
    clubId: rig.club.clubId,
    sources: SOURCE_ORDER,
    dispatchedAt: new Date(rig.clock.nowMs).toISOString(),
  };
}

/** The dispatcher's decision at this minute: its messages and their moments, its store use added to `dispatchStore`. */
async function dispatchStep(rig: TypicalClubRig, dispatchStore: StoreCounts): Promise<PollQueueEntry[]> {
  await rig.path.dispatch();
  addStoreCounts(dispatchStore, rig.store.take());
  // The dispatch handler's metrics are one document per run for the whole fleet (not per club).
  rig.store.take();
  return rig.path.queue.drainEntries();
}

/** The club's members and prospects: the snapshots the bridge keeps. */
async function stateRecordsOf(host: HostProcess, clubId: string): Promise<number> {
  return (
    (await host.call<number>('count', clubId, 'members')) +
    (await host.call<number>('count', clubId, 'prospects'))
  );
}

/** The pages served between two counts: their JSON bytes over their bytes as sent (1: none). */
function inflationSince(before: PageBytes, after: PageBytes): number {
  const sent = after.sent - before.sent;
  return sent > 0 ? (after.json - before.json) / sent : 1;
}

/** Runs the simulation; the sandbox host is left running (the naive poller reuses it) for the caller to close. */
export async function simulateClub(options: ClubSimulationOptions): Promise<ClubSimulationResult> {
  const t0 = performance.now();
  const rig = await startTypicalClub(options);
  const { host, club } = rig;
  const recorder = new ClubPollRecorder(rig, { pollBatchSize: options.pollBatchSize ?? 1 });
  const { baseline, secretsCalls0, batches0 } = await runBaseline(rig, recorder);
  const fullStart = await fullReadRows(host, club.clubId);
  const sandboxCpu0 = await host.cpuMs();
  const pages0 = await host.call<PageBytes>('pageBytes');
  const span = await runSpan(rig, recorder, options);
  const sandboxCpuMs = (await host.cpuMs()) - sandboxCpu0;
  const answerInflation = inflationSince(pages0, await host.call<PageBytes>('pageBytes'));
  const fullEnd = await fullReadRows(host, club.clubId);
  const view = rig.store.view(club.clubId);
  const cursors = await view.listCursors();
  const doc = await view.getLifecycle();
  const delta = await view.getLifecycle('delta');
  rig.store.take();
  const stateRecords = await stateRecordsOf(host, club.clubId);
  const { polls, emf, logs } = recorder;
  return {
    options,
    club,
    sandboxStartupMs: rig.info.startupMs,
    wallMs: performance.now() - t0,
    baseline,
    dispatchSteps: span.steps,
    polls,
    requests: recorder.requests,
    rows: polls.reduce((a, p) => a + p.rows, 0),
    events: recorder.sinkTotals.events,
    sink: recorder.sinkTotals,
    pollStore: recorder.pollStore,
    dispatchStore: span.dispatchStore,
    registryReads: rig.registry.take(),
    secretsApiCalls: rig.secretsClient.calls - secretsCalls0,
    emf: { bytes: emf.bytes, documents: emf.documents, perClubMetrics: emf.perClubMetrics(club.clubId) },
    logs: { bytes: logs.bytes, lines: logs.lines },
    sqsMessages: span.sqsMessages,
    sendMessageBatchRequests: rig.path.queue.sendMessageBatchRequests - batches0,
    bySource: recorder.bySource,
    freshness: rig.tracker,
    overdue: rig.tracker.overdue(rig.clock.nowMs, 2 * HOUR_MS),
    failures: recorder.failures,
    journalChanges: span.journalChanges,
    fullReadRows: { start: fullStart, end: fullEnd },
    stateRecords,
    sandboxCpuMs,
    answerInflation,
    host,
    lastSeq: span.lastSeq,
    cursors,
    endSimMs: rig.clock.nowMs,
    lifecycle: {
      ...recorder.lifecycle,
      historyRequestsOnce: recorder.historyRequestsOnce,
      docBytes: doc ? encodeLifecycle(club.clubId, doc.doc).length : 0,
      deltaBytes: delta ? encodeLifecycle(club.clubId, delta.doc).length : 0,
    },
  };
}
