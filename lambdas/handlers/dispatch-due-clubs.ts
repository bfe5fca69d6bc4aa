/**
 * The dispatcher's decision: reads the enabled clubs and their cursors, asks the scheduler
 * (engine/scheduling.ts) which sources are due, and queues ONE poll message per club with any
 * source due. Its dependencies are passed in, so tests and benchmarks run it in process; the Lambda
 * entry point is dispatch.ts.
 *
 * Overlap: two polls of the same club never run at once because pollClub takes the club lease (a
 * conditional write) before it reads anything; a second message for a club being polled finds the
 * lease taken and does nothing. The dispatcher adds no second mechanism.
 */
import type { ClubRecord } from '../clubs/club-record';
import type { ClubRegistry } from '../clubs/club-registry';
import { mapWithConcurrency } from '../common/concurrency';
import { DEFAULT_SOURCE_OVERDUE_MINUTES, type PollMessage } from '../common/deployment-contract';
import { logger } from '../common/logger';
import { type ClubSchedule, monthBounds, scheduleClub } from '../engine/scheduling';
import type { Cursor, CursorStore, QuotaStore, SourceName } from '../state/store';
import { assessOverdue, type ClubOverdueAssessment, SOURCE_OVERDUE_LOG_MESSAGE } from './source-overdue';
import type { PollQueue } from './sqs-poll-queue';

export interface DispatchDeps {
  readonly registry: ClubRegistry;
  readonly store: CursorStore & QuotaStore;
  readonly queue: PollQueue;
  /** The dispatch time: epoch ms, or a clock. @default Date.now */
  readonly now?: number | (() => number);
  /** Share of each plan's quota kept free. @default DEFAULT_QUOTA_RESERVE */
  readonly reserve?: number;
  /**
   * A source with no successful poll for longer than max(3 x its cadence, this) is overdue
   * (source-overdue.ts). @default DEFAULT_SOURCE_OVERDUE_MINUTES minutes
   */
  readonly overdueMinimumMs?: number;
  /** Clubs whose state is read at once. @default 16 */
  readonly concurrency?: number;
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
  /** DynamoDB requests made: the registry listing, plus cursors and quota counter per club. */
  readonly tableReads: number;
  /** Clubs whose state could not be read (logged; the others are dispatched). */
  readonly failed: number;
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
  readonly due: readonly SourceName[];
  readonly overdue: number;
  readonly oldestSuccessAgeSeconds?: number;
}

/** One club's decision, or undefined when its state could not be read (logged). */
async function decideClub(
  deps: DispatchDeps,
  record: ClubRecord,
  nowMs: number,
): Promise<ClubOutcome | undefined> {
  let cursors: Cursor[];
  let quotaUsed: number;
  try {
    [cursors, quotaUsed] = await Promise.all([
      deps.store.listCursors(record.clubId),
      deps.store.getQuotaUsage(record.clubId, monthBounds(nowMs).month),
    ]);
  } catch (err) {
    logger.error('club state unreadable: not dispatched this run', { clubId: record.clubId, err });
    return undefined;
  }
  const schedule = scheduleClub({
    plan: record.plan,
    ...(record.sources ? { sources: record.sources } : {}),
    cursors,
    quotaUsed,
    nowMs,
    ...(deps.reserve === undefined ? {} : { reserve: deps.reserve }),
  });
  const minimumMs = deps.overdueMinimumMs ?? DEFAULT_SOURCE_OVERDUE_MINUTES * 60_000;
  const overdue = assessOverdue({ record, cursors, schedule, nowMs, minimumMs });
  // One line per overdue club/source: the per-club detail behind the fleet-wide SourceOverdue
  // alarm (docs/deploy.md lists the Logs Insights query). The reason is the engine's stored text.
  for (const o of overdue.overdue) logger.warn(SOURCE_OVERDUE_LOG_MESSAGE, { ...o });
  deps.onClub?.({ record, cursors, quotaUsed, schedule, overdue });
  const age = overdue.oldestSuccessAgeSeconds;
  return {
    clubId: record.clubId,
    due: schedule.due,
    overdue: overdue.overdue.length,
    ...(age === undefined ? {} : { oldestSuccessAgeSeconds: age }),
  };
}

/** Picks the clubs with any source due and queues one poll message per club. */
export async function dispatchDueClubs(deps: DispatchDeps): Promise<DispatchSummary> {
  const nowMs = typeof deps.now === 'function' ? deps.now() : (deps.now ?? Date.now());
  const dispatchedAt = new Date(nowMs).toISOString();
  const listing = await deps.registry.listEnabled();
  const outcomes = await mapWithConcurrency(listing.clubs, deps.concurrency ?? 16, (record) =>
    decideClub(deps, record, nowMs),
  );
  const decided = outcomes.filter((o): o is ClubOutcome => o !== undefined);
  const failed = listing.clubs.length - decided.length;
  if (failed > 0 && failed === listing.clubs.length) {
    throw new DispatchError(`the state of all ${failed} clubs was unreadable: nothing dispatched`);
  }
  const messages: PollMessage[] = decided
    .filter((o) => o.due.length > 0)
    .map((o) => ({ clubId: o.clubId, sources: o.due, dispatchedAt }))
    .sort((a, b) => (a.clubId < b.clubId ? -1 : 1));
  if (messages.length > 0) await deps.queue.sendBatch(messages);
  const oldest = decided.reduce<number | undefined>(
    (max, o) =>
      o.oldestSuccessAgeSeconds === undefined ? max : Math.max(max ?? 0, o.oldestSuccessAgeSeconds),
    undefined,
  );
  return {
    clubs: listing.clubs.length,
    due: decided.reduce((n, o) => n + o.due.length, 0),
    messages: messages.length,
    tableReads: listing.requests + 2 * listing.clubs.length,
    failed,
    sourcesOverdue: decided.reduce((n, o) => n + o.overdue, 0),
    ...(oldest === undefined ? {} : { oldestSuccessAgeSeconds: oldest }),
  };
}
