/**
 * The dispatcher's decision: reads the enabled clubs of its shard (common/club-shard.ts: a
 * deployment runs N shards side by side, each club in exactly one), then their state items a
 * hundred at a time (one BatchGetItem: cursors and quota counter), asks the scheduler
 * (engine/schedule/scheduling.ts) which sources are due, and queues ONE poll message per club with any
 * source due, as it goes: each hundred's messages are sent while the next hundred is read, so a
 * dispatcher stopped half-way (its deadline, a timeout) has queued what it found. Its work is
 * linear in its shard's clubs: one listing of its directory buckets, one read per hundred clubs,
 * one SendMessageBatch per ten messages.
 *
 * With a spread (spread.ts), each club is decided as of its own moment of the period and its
 * message is queued to become visible then, in the order the moments come.
 *
 * Its dependencies are passed in, so tests and benchmarks run it in process; the Lambda entry
 * point is dispatch.ts.
 *
 * Overlap: two polls of the same club never run at once because pollClub takes the club lease (a
 * conditional write) before it reads anything; a second message for a club being polled finds the
 * lease taken and does nothing. The dispatcher adds no second mechanism.
 */
import type { ClubRecord } from '../../clubs/club-record';
import type { ClubRegistry } from '../../clubs/club-registry';
import { type DispatchShard, WHOLE_FLEET } from '../../common/club-shard';
import { chunk } from '../../common/concurrency';
import { DEFAULT_SOURCE_OVERDUE_MINUTES, type PollMessage } from '../../common/deployment-contract';
import { logger } from '../../common/logger';
import { PLAN_QUOTAS } from '../../common/plans';
import type { PollQueue, PollQueueEntry } from '../../common/poll-queue';
import type { ClubStateStore, ClubStateSummary, Cursor, SourceName } from '../../state/store';
import { FAST_LANE_WINDOW_MS, type FastLane } from '../schedule/fast-lane';
import { monthBounds } from '../schedule/quota-budget';
import { type ClubSchedule, scheduleClub } from '../schedule/scheduling';
import { assessOverdue, type ClubOverdueAssessment, SOURCE_OVERDUE_LOG_MESSAGE } from './source-overdue';
import { inPhaseOrder, pollMomentMs } from './spread';

export interface DispatchDeps {
  readonly registry: ClubRegistry;
  readonly store: Pick<ClubStateStore, 'readClubStates'>;
  readonly queue: PollQueue;
  /** The dispatch time: epoch ms, or a clock. @default Date.now */
  readonly now?: number | (() => number);
  /** The shard this run dispatches. @default WHOLE_FLEET (one dispatcher for every club) */
  readonly shard?: DispatchShard;
  /**
   * Seconds of the period the polls are spread over (spread.ts; at most SQS's 900). 0: every
   * message is visible at once and every club is decided as of `now`. @default 0
   */
  readonly spreadSeconds?: number;
  /** When the run's period starts (its scheduled time), epoch ms: the moments count from it. @default now */
  readonly periodStartMs?: number;
  /** Share of each plan's quota kept free. @default DEFAULT_QUOTA_RESERVE */
  readonly reserve?: number;
  /**
   * A source with no successful poll for longer than max(3 x its cadence, this) is overdue
   * (source-overdue.ts). @default DEFAULT_SOURCE_OVERDUE_MINUTES minutes
   */
  readonly overdueMinimumMs?: number;
  /** Clubs whose state is read in one BatchGetItem. @default 100 (DynamoDB's limit) */
  readonly readChunk?: number;
  /** Epoch ms after which no more clubs are read (those read are still queued). @default none */
  readonly deadlineMs?: number;
  /** Told about every club evaluated (metrics, logs). Must not throw. */
  readonly onClub?: (club: ClubDecision) => void;
}

export interface ClubDecision {
  readonly record: ClubRecord;
  readonly cursors: readonly Cursor[];
  readonly quotaUsed: number;
  readonly schedule: ClubSchedule;
  readonly overdue: ClubOverdueAssessment;
}

export interface DispatchSummary {
  /** Enabled clubs evaluated. */
  readonly clubs: number;
  /** Club/source pairs due now. */
  readonly due: number;
  /** Poll messages queued: one per club with any source due. */
  readonly messages: number;
  /** Fast-lane probes queued behind them (schedule/fast-lane.ts). */
  readonly probes: number;
  /** DynamoDB requests made: the registry listing, plus one BatchGetItem per hundred clubs. */
  readonly tableReads: number;
  /** Clubs whose state could not be read (logged; the others are dispatched). */
  readonly failed: number;
  /** Clubs not read because the deadline came first (dispatched by the next run). */
  readonly notReached: number;
  /**
   * Club/sources without a successful poll for longer than their allowance (paused, unavailable and
   * quota-held sources excluded): one `source overdue` log line each.
   */
  readonly sourcesOverdue: number;
  /** Longest time since a checked source's last success, in seconds (absent: nothing to measure). */
  readonly oldestSuccessAgeSeconds?: number;
}

export class DispatchError extends Error {
  override readonly name = 'DispatchError';
}

/** What the summary keeps of one club's decision (not its cursors: a fleet is thousands of clubs). */
interface ClubOutcome {
  readonly clubId: string;
  /** The moment the club was decided as of, and its poll may start (epoch ms). */
  readonly momentMs: number;
  readonly due: readonly SourceName[];
  /** The visits fast lane for the club's coming minute (probes queued behind its poll when on). */
  readonly fastLane: FastLane;
  readonly overdue: number;
  readonly oldestSuccessAgeSeconds?: number;
}

/** When each club of the run is decided and polled: its moment of the period, never before the run. */
interface RunClock {
  readonly nowMs: number;
  readonly periodStartMs: number;
  readonly spreadSeconds: number;
}

const momentOf = (clock: RunClock, clubId: string) =>
  clock.spreadSeconds > 1
    ? Math.max(clock.nowMs, pollMomentMs(clubId, clock.periodStartMs, clock.spreadSeconds))
    : clock.nowMs;

/** One club's decision from its state, as of its moment. */
function decideClub(
  deps: DispatchDeps,
  record: ClubRecord,
  state: ClubStateSummary,
  clock: RunClock,
): ClubOutcome {
  const nowMs = momentOf(clock, record.clubId);
  const { cursors, quotaUsed } = state;
  const schedule = scheduleClub({
    plan: record.plan,
    ...(record.sources ? { sources: record.sources } : {}),
    cursors: [...cursors],
    quotaUsed,
    nowMs,
    ...(deps.reserve === undefined ? {} : { reserve: deps.reserve }),
    ...(record.fastLane ? { fastLane: record.fastLane } : {}),
    timeZone: record.timeZone,
  });
  const minimumMs = deps.overdueMinimumMs ?? DEFAULT_SOURCE_OVERDUE_MINUTES * 60_000;
  const overdue = assessOverdue({ record, cursors: [...cursors], schedule, nowMs, minimumMs });
  // One line per overdue club/source: the per-club detail behind the fleet-wide SourceOverdue
  // alarm (docs/deploy.md lists the Logs Insights query). The reason is the engine's stored text.
  for (const o of overdue.overdue) logger.warn(SOURCE_OVERDUE_LOG_MESSAGE, { ...o });
  deps.onClub?.({ record, cursors, quotaUsed, schedule, overdue });
  const age = overdue.oldestSuccessAgeSeconds;
  return {
    clubId: record.clubId,
    momentMs: nowMs,
    due: schedule.due,
    fastLane: schedule.fastLane,
    overdue: overdue.overdue.length,
    ...(age === undefined ? {} : { oldestSuccessAgeSeconds: age }),
  };
}

/** The decisions of one hundred clubs (one read), or undefined when their state could not be read. */
async function decideChunk(
  deps: DispatchDeps,
  records: readonly ClubRecord[],
  clock: RunClock,
): Promise<ClubOutcome[] | undefined> {
  let states: Map<string, ClubStateSummary>;
  try {
    states = await deps.store.readClubStates(
      records.map((r) => r.clubId),
      monthBounds(clock.nowMs).month,
    );
  } catch (err) {
    logger.error('club state unreadable: not dispatched this run', {
      clubIds: records.map((r) => r.clubId).join(','),
      err,
    });
    return undefined;
  }
  const empty: ClubStateSummary = { cursors: [], quotaUsed: 0 };
  return records.map((record) => decideClub(deps, record, states.get(record.clubId) ?? empty, clock));
}

/** The run's clock: now, the period's start and its spread. */
function runClock(deps: DispatchDeps): RunClock {
  const nowMs = typeof deps.now === 'function' ? deps.now() : (deps.now ?? Date.now());
  const spreadSeconds = Math.max(0, Math.min(900, Math.floor(deps.spreadSeconds ?? 0)));
  return { nowMs, periodStartMs: deps.periodStartMs ?? nowMs, spreadSeconds };
}

/**
 * A club's poll message, queued to become visible at its moment when the period is spread, and
 * with the fast lane on, the probes behind it (one each period until the next moment), which it
 * pays for.
 */
function queueEntries(outcome: ClubOutcome, dispatchedAt: string, clock: RunClock): PollQueueEntry[] {
  const { clubId, momentMs, fastLane } = outcome;
  const probes = fastLane.on && fastLane.periodMs !== undefined ? fastLane.probes : 0;
  const message: PollMessage = {
    clubId,
    sources: outcome.due,
    dispatchedAt,
    ...(probes > 0
      ? { probes: { count: probes, until: new Date(momentMs + FAST_LANE_WINDOW_MS).toISOString() } }
      : {}),
  };
  const entries: PollQueueEntry[] = [
    clock.spreadSeconds > 1 ? { message, notBeforeMs: momentMs } : { message },
  ];
  for (let k = 1; k <= probes; k++) {
    const probe: PollMessage = { clubId, sources: ['visits'], dispatchedAt, lane: 'fast' };
    entries.push({ message: probe, notBeforeMs: momentMs + k * (fastLane.periodMs ?? FAST_LANE_WINDOW_MS) });
  }
  return entries;
}

/** Entries in the order they become visible (stable): the queue groups neighbours into one message. */
function inQueueOrder(entries: PollQueueEntry[]): PollQueueEntry[] {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => (a.entry.notBeforeMs ?? 0) - (b.entry.notBeforeMs ?? 0) || a.index - b.index)
    .map((e) => e.entry);
}

/** Picks the clubs of its shard with any source due and queues one poll message per club, as it goes. */
export async function dispatchDueClubs(deps: DispatchDeps): Promise<DispatchSummary> {
  const clock = runClock(deps);
  // When the state was read: a poll that succeeded after it makes the message stale
  // (club-poll/stale-sources.ts).
  const dispatchedAt = new Date(clock.nowMs).toISOString();
  const listing = await deps.registry.listEnabled(deps.shard ?? WHOLE_FLEET);
  const ordered = inPhaseOrder(listing.clubs, clock.spreadSeconds);
  const chunks = chunk(ordered, Math.max(1, Math.min(100, deps.readChunk ?? 100)));
  const decided: ClubOutcome[] = [];
  let failed = 0;
  let reads = 0;
  let messages = 0;
  let probes = 0;
  let sending: Promise<unknown> = Promise.resolve();
  const sendErrors: unknown[] = [];
  let next = 0;
  for (; next < chunks.length; next++) {
    if (deps.deadlineMs !== undefined && Date.now() >= deps.deadlineMs) break;
    const records = chunks[next] ?? [];
    reads++;
    const outcomes = await decideChunk(deps, records, clock);
    if (!outcomes) {
      failed += records.length;
      continue;
    }
    decided.push(...outcomes);
    const batch = inQueueOrder(
      outcomes.filter((o) => o.due.length > 0).flatMap((o) => queueEntries(o, dispatchedAt, clock)),
    );
    if (batch.length === 0) continue;
    messages += batch.filter((e) => e.message.lane === undefined).length;
    probes += batch.length - batch.filter((e) => e.message.lane === undefined).length;
    // This hundred's messages go while the next hundred is read; sends stay in order.
    sending = sending.then(() => deps.queue.sendBatch(batch).catch((err: unknown) => sendErrors.push(err)));
  }
  await sending;
  const notReached = chunks.slice(next).reduce((n, c) => n + c.length, 0);
  if (failed > 0 && failed === listing.clubs.length) {
    throw new DispatchError(`the state of all ${failed} clubs was unreadable: nothing dispatched`);
  }
  if (sendErrors.length > 0) throw sendErrors[0];
  const oldest = decided.reduce<number | undefined>(
    (max, o) =>
      o.oldestSuccessAgeSeconds === undefined ? max : Math.max(max ?? 0, o.oldestSuccessAgeSeconds),
    undefined,
  );
  return {
    clubs: listing.clubs.length,
    due: decided.reduce((n, o) => n + o.due.length, 0),
    messages,
    probes,
    tableReads: listing.requests + reads,
    failed,
    notReached,
    sourcesOverdue: decided.reduce((n, o) => n + o.overdue, 0),
    ...(oldest === undefined ? {} : { oldestSuccessAgeSeconds: oldest }),
  };
}

/** A debug line per club with something due or paused (its metrics are aggregated per run). */
function logClubSchedule({ record, schedule }: ClubDecision): void {
  if (schedule.due.length > 0 || schedule.pausedUntilMs !== undefined) {
    logger.debug('club schedule', {
      clubId: record.clubId,
      due: schedule.due,
      stretch: schedule.stretch,
      ...(schedule.pausedUntilMs ? { pausedUntil: new Date(schedule.pausedUntilMs).toISOString() } : {}),
    });
  }
}

export interface DispatchRun {
  readonly summary: DispatchSummary;
  /** Highest share of its plan's monthly quota any club has used (absent: no club evaluated). */
  readonly quotaUsedShareMax?: number;
}

/** The dispatcher as a deployed run reports it: the summary, the fleet's highest quota share. */
export async function runDispatch(deps: Omit<DispatchDeps, 'onClub'>): Promise<DispatchRun> {
  let quotaUsedShareMax: number | undefined;
  const summary = await dispatchDueClubs({
    ...deps,
    onClub: (decision) => {
      logClubSchedule(decision);
      const share = decision.quotaUsed / PLAN_QUOTAS[decision.record.plan];
      quotaUsedShareMax = Math.max(quotaUsedShareMax ?? 0, share);
    },
  });
  return { summary, ...(quotaUsedShareMax === undefined ? {} : { quotaUsedShareMax }) };
}
