/**
 * The typical club's figures from one simulation run and its naive-poller comparison: API
 * efficiency, freshness, and the monthly counts the cost model prices.
 */

import { DAY_MS, MINUTE_MS } from '../lambdas/common/time-units';
import { monthlyBytesOut } from './bytes-out';
import type { PollSample } from './club-poll-recorder';
import type { ClubSimulationResult } from './club-simulation';
import type { MonthlyClubCounts } from './cost';
import type { LanePolls } from './cost-model';
import { addStoreCounts, emptyStoreCounts } from './counting-store';
import { LATE_CHANGE_KINDS } from './freshness';
import { type PollWork, samplePollWork } from './lambda-batches';
import type { NaiveResult } from './naive-poller';
import { entryOf, linearFit, median, percentile, sum } from './stats';

export const BASIC_QUOTA = 1_000_000;
const MONTH_DAYS = 30;

/** Histogram bins of the freshness chart (upper bounds, seconds). */
export const FRESHNESS_BINS = [
  30,
  60,
  90,
  120,
  180,
  300,
  600,
  1200,
  2400,
  3600,
  Number.POSITIVE_INFINITY,
] as const;

export interface Distribution {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

export function distribution(values: readonly number[]): Distribution {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

export interface NaiveFigures {
  readonly cyclesMeasured: number;
  readonly requestsPerCycle: number;
  readonly rowsPerCycle: number;
  readonly wallMsPerCycle: number;
  readonly tokenRequestsPerDataRequest: number;
  readonly changesDetected: number;
  readonly journalChanges: number;
  readonly monthRequests: number;
  readonly monthRows: number;
  readonly requestsPerChange: number;
  readonly rowsPerChange: number;
  readonly quotaShareBasic: number;
  /** The longest cycle (minutes) at which the naive poller stays within 50% of the Basic quota. */
  readonly cycleMinutesAtHalfQuota: number;
}

export interface TypicalClubRun {
  readonly seed: number;
  readonly simulatedDays: number;
  readonly wallMs: number;
  readonly dispatchSteps: number;
  readonly pollInvocations: number;
  readonly perDay: {
    readonly requests: number;
    readonly rows: number;
    readonly events: number;
    readonly tokenRequests: number;
    readonly reauth401: number;
    readonly journalChanges: number;
  };
  readonly requestsPerChange: number;
  readonly rowsPerChange: number;
  readonly tokenRequestsPerDataRequest: number;
  readonly quotaShareBasic: number;
  readonly freshness: Distribution & {
    readonly superseded: number;
    readonly foldedIntoCreation: number;
    readonly unmatchedEvents: number;
    readonly pendingAtEnd: number;
    readonly overdue: Record<string, number>;
    /** Counts per FRESHNESS_BINS bin. */
    readonly histogram: number[];
  };
  readonly freshnessByType: Record<string, Distribution>;
  /** Delays (s) of the late changes (LATE_CHANGE_KINDS): a dishonour or refund of an earlier payment. */
  readonly lateChanges: readonly number[];
  readonly bySource: Record<string, { polls: number; requests: number; rows: number; events: number }>;
  readonly poll: { readonly wallMsMedian: number; readonly wallMsP95: number; readonly cpuMsMedian: number };
  /**
   * The minute's polls' CPU (ms, on this machine) as a line through their rows: what a poll costs
   * whatever it reads (its requests, state, logs) and what each row read adds (absent in reports
   * from before it). With `bySource`'s rows, where the poll's CPU goes.
   */
  readonly pollCpu?: {
    readonly polls: number;
    readonly meanMs: number;
    readonly fixedMs: number;
    readonly perRowMs: number;
  };
  readonly baseline: { readonly requests: number; readonly rows: number; readonly wallMs: number };
  readonly failures: number;
  readonly monthly: MonthlyClubCounts;
  /** The fast lane's polls a month (absent before the lane): probes, and those that opened a session. */
  readonly lane?: { readonly probes: number; readonly sessions: number };
  /** DynamoDB items and units per store method, per month (polls and dispatch). */
  readonly storeByMethodMonthly: Record<string, { items: number; readUnits: number; writeUnits: number }>;
  readonly naive?: NaiveFigures;
}

export function summariseRun(
  sim: ClubSimulationResult,
  naive: NaiveResult | undefined,
  seed: number,
): TypicalClubRun {
  const days = sim.options.spanMs / DAY_MS;
  const scale = MONTH_DAYS / days;
  const events = sim.events;
  const { freshness, freshnessByType, lateChanges } = freshnessFigures(sim);
  const run: TypicalClubRun = {
    seed,
    simulatedDays: days,
    wallMs: sim.wallMs,
    dispatchSteps: sim.dispatchSteps,
    pollInvocations: sim.polls.length,
    perDay: {
      requests: sim.requests.data / days,
      rows: sim.rows / days,
      events: events / days,
      tokenRequests: sim.requests.token / days,
      reauth401: sim.requests.reauth401 / days,
      journalChanges: sim.journalChanges / days,
    },
    requestsPerChange: sim.requests.data / Math.max(1, events),
    rowsPerChange: sim.rows / Math.max(1, events),
    tokenRequestsPerDataRequest: sim.requests.token / Math.max(1, sim.requests.data),
    quotaShareBasic: (sim.requests.data * scale) / BASIC_QUOTA,
    freshness,
    freshnessByType,
    lateChanges,
    bySource: sim.bySource,
    poll: {
      wallMsMedian: median(sim.polls.map((p) => p.wallMs)),
      wallMsP95: percentile(
        sim.polls.map((p) => p.wallMs),
        95,
      ),
      cpuMsMedian: median(sim.polls.map((p) => p.cpuMs)),
    },
    pollCpu: pollCpuFit(sim.polls),
    baseline: { requests: sim.baseline.requests, rows: sim.baseline.rows, wallMs: sim.baseline.wallMs },
    failures: sim.failures,
    monthly: monthlyCounts(sim, days),
    lane: laneCounts(sim, days),
    storeByMethodMonthly: storeByMethodMonthly(sim, scale),
  };
  if (!naive || naive.cycles.length === 0) return run;
  return { ...run, naive: naiveFigures(sim, naive, days) };
}

/** The minute's polls' CPU against their rows (the fast lane's probes left out). */
function pollCpuFit(polls: readonly PollSample[]): TypicalClubRun['pollCpu'] {
  const minute = polls.filter((p) => p.lane !== 'fast');
  const fit = linearFit(minute.map((p) => [p.rows, p.cpuMs] as const));
  const meanMs = sum(minute.map((p) => p.cpuMs)) / Math.max(1, minute.length);
  return { polls: minute.length, meanMs, fixedMs: fit.intercept, perRowMs: fit.slope };
}

/** Delays from change to event (s): all of them, by event type, the late changes, and the histogram. */
function freshnessFigures(
  sim: ClubSimulationResult,
): Pick<TypicalClubRun, 'freshness' | 'freshnessByType' | 'lateChanges'> {
  const delays = sim.freshness.samples.map((s) => s.delayMs / 1000);
  const lateDelays = sim.freshness.samples
    .filter((s) => LATE_CHANGE_KINDS.has(s.kind))
    .map((s) => s.delayMs / 1000);
  const byType: Record<string, number[]> = {};
  for (const s of sim.freshness.samples) entryOf(byType, s.detailType, () => []).push(s.delayMs / 1000);
  const histogram = FRESHNESS_BINS.map(() => 0);
  for (const d of delays) {
    const bin = FRESHNESS_BINS.findIndex((b) => d <= b);
    histogram[bin] = (histogram[bin] ?? 0) + 1;
  }
  return {
    freshness: {
      ...distribution(delays),
      superseded: sim.freshness.superseded,
      foldedIntoCreation: sim.freshness.foldedIntoCreation,
      unmatchedEvents: sim.freshness.unmatchedEvents,
      pendingAtEnd: sim.freshness.pendingCount,
      overdue: sim.overdue,
      histogram,
    },
    freshnessByType: Object.fromEntries(Object.entries(byType).map(([k, v]) => [k, distribution(v)])),
    lateChanges: lateDelays,
  };
}

/**
 * The fast lane's probes a month, and those that found rows and opened a session (a store request
 * past the probe's one read of the club state item: the session's lease).
 */
function laneCounts(sim: ClubSimulationResult, days: number): TypicalClubRun['lane'] {
  const probes = sim.polls.filter((p) => p.lane === 'fast');
  const scale = MONTH_DAYS / days;
  return {
    probes: probes.length * scale,
    sessions: probes.filter((p) => p.storeRequests > 1).length * scale,
  };
}

/** What a measured poll gives the Lambda model (lambda-batches.ts). */
const workOf = (p: PollSample): PollWork => ({
  // On-CPU time: the process's CPU, or its wall time if lower (CPU counts GC and pool threads too);
  // a wall time alone grows with whatever else the machine runs.
  localMs: Math.min(p.wallMs, p.cpuMs),
  criticalApiRequests: p.criticalRequests,
  storeRequests: p.storeRequests + 1, // + the club lookup
  putEventsRequests: p.putEventsRequests,
});

/** The Lambda model's counts of some polls (the minute's, or the fast lane's), scaled to a month. */
function pollCounts(polls: readonly PollSample[], scale: number): LanePolls {
  return {
    pollInvocations: polls.length * scale,
    pollLocalMs: sum(polls.map((p) => p.wallMs)) * scale,
    criticalApiRequests: sum(polls.map((p) => p.criticalRequests)) * scale,
    pollStoreRequests: sum(polls.map((p) => p.storeRequests + 1)) * scale, // + the club lookup each
    putEventsRequests: sum(polls.map((p) => p.putEventsRequests)) * scale,
    pollWork: samplePollWork(polls.map(workOf)),
  };
}

/** What the cost model prices: the run's counts scaled to a 30-day month. */
function monthlyCounts(sim: ClubSimulationResult, days: number): MonthlyClubCounts {
  const scale = MONTH_DAYS / days;
  const readUnits = sim.pollStore.readUnits + sim.dispatchStore.readUnits + sim.registryReads.readUnits;
  const seenWritesPerDay = (sim.pollStore.byMethod.putSeen?.items ?? 0) / days;
  const minute = pollCounts(
    sim.polls.filter((p) => p.lane === undefined),
    scale,
  );
  const lanePolls = sim.polls.filter((p) => p.lane === 'fast');
  return {
    ...minute,
    apiRequests: sim.requests.data * scale,
    tokenRequests: sim.requests.token * scale,
    secretsCalls: sim.secretsApiCalls * scale,
    readUnits: readUnits * scale,
    writeUnits: sim.pollStore.writeUnits * scale,
    billedEvents: sim.sink.billedEvents * scale,
    eventBytes: sim.sink.bytes * scale,
    sqsMessages: sim.sqsMessages * scale,
    emfBytes: sim.emf.bytes * scale,
    logBytes: sim.logs.bytes * scale,
    perClubMetrics: sim.emf.perClubMetrics,
    // Estimate: a snapshot per member and prospect (~300 B) and seen keys kept ~12 days (~100 B).
    storedBytes: sim.stateRecords * 300 + seenWritesPerDay * 12 * 100,
    ...(sim.requests.wire?.data.requests
      ? { bytesOut: monthlyBytesOut(sim.requests.wire, scale, sim.answerInflation) }
      : {}),
    ...(lanePolls.length > 0 ? { lane: pollCounts(lanePolls, scale) } : {}),
  };
}

/** DynamoDB items and units per store method (polls and dispatch), scaled to a month. */
function storeByMethodMonthly(
  sim: ClubSimulationResult,
  scale: number,
): TypicalClubRun['storeByMethodMonthly'] {
  const byMethod = addStoreCounts(
    addStoreCounts(emptyStoreCounts(), sim.pollStore),
    sim.dispatchStore,
  ).byMethod;
  return Object.fromEntries(
    Object.entries(byMethod).map(([k, v]) => [
      k,
      { items: v.items * scale, readUnits: v.readUnits * scale, writeUnits: v.writeUnits * scale },
    ]),
  );
}

/** The naive poller's month: its measured cycles at one cycle per dispatch period, on growing data. */
function naiveFigures(sim: ClubSimulationResult, naive: NaiveResult, days: number): NaiveFigures {
  const scale = MONTH_DAYS / days;
  const stepMinutes = sim.options.stepMs / MINUTE_MS;
  const cyclesPerMonth = (MONTH_DAYS * 24 * 60) / stepMinutes;
  const rowsPerCycle = median(naive.cycles.map((c) => c.rows));
  const requestsPerCycle = median(naive.cycles.map((c) => c.requests));
  // A full read grows with the data: average it over the month from the growth the span showed.
  const growthPerDay = (sim.fullReadRows.end - sim.fullReadRows.start) / days;
  const averageRows = sim.fullReadRows.start + growthPerDay * (MONTH_DAYS / 2);
  const monthRows = cyclesPerMonth * averageRows;
  const monthRequests = cyclesPerMonth * requestsPerCycle * (averageRows / Math.max(1, rowsPerCycle));
  const changesPerMonth = sim.events * scale;
  return {
    cyclesMeasured: naive.cycles.length,
    requestsPerCycle,
    rowsPerCycle,
    wallMsPerCycle: median(naive.cycles.map((c) => c.wallMs)),
    tokenRequestsPerDataRequest: naive.tokenRequests / Math.max(1, sum(naive.cycles.map((c) => c.requests))),
    changesDetected: sum(naive.cycles.map((c) => c.changes)),
    journalChanges: naive.journalChanges,
    monthRequests,
    monthRows,
    requestsPerChange: monthRequests / changesPerMonth,
    rowsPerChange: monthRows / changesPerMonth,
    quotaShareBasic: monthRequests / BASIC_QUOTA,
    cycleMinutesAtHalfQuota: (requestsPerCycle * MONTH_DAYS * 24 * 60) / (BASIC_QUOTA / 2),
  };
}
