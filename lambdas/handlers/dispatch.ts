/**
 * Dispatch Lambda (EventBridge Scheduler, every minute): reads the enabled clubs and their cursors,
 * asks the scheduler (engine/scheduling.ts) which sources are due, and queues ONE poll message per
 * club with any source due (SQS SendMessageBatch, 10 per call, failed entries retried).
 *
 * Overlap: two polls of the same club/source never run at once because pollSource takes a lease
 * (a conditional write) before it reads anything; a second message for a club being polled finds
 * the lease taken and does nothing. The dispatcher adds no second mechanism.
 *
 * The handler is thin: `dispatchDueClubs` is the whole decision, with its dependencies passed in,
 * so tests and benchmarks run it in process. AWS clients and configuration are created once per
 * container, on the first invocation (importing this module never reads the environment, so the
 * core can be imported anywhere).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { ClubRecord } from '../clubs/club-record';
import type { ClubRegistry } from '../clubs/club-registry';
import { DynamoDbClubRegistry } from '../clubs/dynamodb-club-registry';
import { ENV, type PollMessage } from '../common/deployment-contract';
import { logger } from '../common/logger';
import { createMetrics, publishClubFreshnessMetrics, publishDispatchMetrics } from '../common/metrics';
import { type ClubSchedule, DEFAULT_QUOTA_RESERVE, monthBounds, scheduleClub } from '../engine/scheduling';
import { DynamoDbStateStore } from '../state/dynamodb-store';
import type { Cursor, StateStore } from '../state/store';
import { quotaReserveEnv, requiredEnv, sourceOverdueMinutesEnv } from './runtime-env';
import {
  assessOverdue,
  type ClubOverdueAssessment,
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  SOURCE_OVERDUE_LOG_MESSAGE,
} from './source-overdue';
import { type PollQueue, SqsPollQueue } from './sqs-poll-queue';

export interface DispatchDeps {
  readonly registry: ClubRegistry;
  readonly store: StateStore;
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

/** Picks the clubs with any source due and queues one poll message per club. */
export async function dispatchDueClubs(deps: DispatchDeps): Promise<DispatchSummary> {
  const nowMs = typeof deps.now === 'function' ? deps.now() : (deps.now ?? Date.now());
  const dispatchedAt = new Date(nowMs).toISOString();
  const { month } = monthBounds(nowMs);
  const listing = await deps.registry.listEnabled();
  let tableReads = listing.requests;
  let failed = 0;
  let due = 0;
  let sourcesOverdue = 0;
  let oldestSuccessAgeSeconds: number | undefined;
  const overdueMinimumMs = deps.overdueMinimumMs ?? DEFAULT_SOURCE_OVERDUE_MINUTES * 60_000;
  const messages: PollMessage[] = [];

  await forEachLimited(listing.clubs, deps.concurrency ?? 16, async (record) => {
    let cursors: Cursor[];
    let quotaUsed: number;
    try {
      [cursors, quotaUsed] = await Promise.all([
        deps.store.listCursors(record.clubId),
        deps.store.getQuotaUsage(record.clubId, month),
      ]);
    } catch (err) {
      failed++;
      logger.error('club state unreadable: not dispatched this run', { clubId: record.clubId, err });
      return;
    } finally {
      tableReads += 2;
    }
    const schedule = scheduleClub({
      plan: record.plan,
      ...(record.sources ? { sources: record.sources } : {}),
      cursors,
      quotaUsed,
      nowMs,
      ...(deps.reserve === undefined ? {} : { reserve: deps.reserve }),
    });
    const overdue = assessOverdue({ record, cursors, schedule, nowMs, minimumMs: overdueMinimumMs });
    sourcesOverdue += overdue.overdue.length;
    if (overdue.oldestSuccessAgeSeconds !== undefined) {
      oldestSuccessAgeSeconds = Math.max(oldestSuccessAgeSeconds ?? 0, overdue.oldestSuccessAgeSeconds);
    }
    // One line per overdue club/source: the per-club detail behind the fleet-wide SourceOverdue
    // alarm (docs/deploy.md lists the Logs Insights query). The reason is the engine's stored text.
    for (const o of overdue.overdue) logger.warn(SOURCE_OVERDUE_LOG_MESSAGE, { ...o });
    deps.onClub?.({ record, cursors, quotaUsed, schedule, overdue });
    if (schedule.due.length === 0) return;
    due += schedule.due.length;
    messages.push({ clubId: record.clubId, sources: schedule.due, dispatchedAt });
  });

  if (failed > 0 && failed === listing.clubs.length) {
    throw new DispatchError(`the state of all ${failed} clubs was unreadable: nothing dispatched`);
  }
  messages.sort((a, b) => (a.clubId < b.clubId ? -1 : 1));
  if (messages.length > 0) await deps.queue.sendBatch(messages);
  return {
    clubs: listing.clubs.length,
    due,
    messages: messages.length,
    tableReads,
    failed,
    sourcesOverdue,
    ...(oldestSuccessAgeSeconds === undefined ? {} : { oldestSuccessAgeSeconds }),
  };
}

async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

// ------------------------------------------------------------------------------------------------
// The Lambda entry point.

interface DispatchRuntime {
  readonly registry: ClubRegistry;
  readonly store: StateStore;
  readonly queue: PollQueue;
  readonly reserve: number;
  readonly overdueMinimumMs: number;
  readonly metrics: Metrics;
}

let runtime: DispatchRuntime | undefined;

/** Clients and configuration, built once per container from the environment. */
function dispatchRuntime(): DispatchRuntime {
  if (runtime) return runtime;
  const env = process.env;
  const tableName = requiredEnv(env, ENV.stateTable);
  const queueUrl = requiredEnv(env, ENV.pollQueueUrl);
  const reserve = quotaReserveEnv(env, DEFAULT_QUOTA_RESERVE);
  const overdueMinimumMs = sourceOverdueMinutesEnv(env, DEFAULT_SOURCE_OVERDUE_MINUTES) * 60_000;
  const dynamo = new DynamoDBClient({});
  runtime = {
    registry: new DynamoDbClubRegistry({ client: dynamo, tableName }),
    store: new DynamoDbStateStore({ client: dynamo, tableName }),
    queue: new SqsPollQueue({ client: new SQSClient({}), queueUrl }),
    reserve,
    overdueMinimumMs,
    metrics: createMetrics(),
  };
  return runtime;
}

export const handler = middy<unknown, DispatchSummary>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    const rt = dispatchRuntime();
    const nowMs = Date.now();
    const summary = await dispatchDueClubs({
      registry: rt.registry,
      store: rt.store,
      queue: rt.queue,
      now: nowMs,
      reserve: rt.reserve,
      overdueMinimumMs: rt.overdueMinimumMs,
      onClub: ({ record, cursors, quotaUsed, schedule }) => {
        publishClubFreshnessMetrics(rt.metrics, {
          clubId: record.clubId,
          plan: record.plan,
          cursors,
          quotaUsed,
          nowMs,
        });
        if (schedule.due.length > 0 || schedule.pausedUntilMs !== undefined) {
          logger.debug('club schedule', {
            clubId: record.clubId,
            due: schedule.due,
            stretch: schedule.stretch,
            ...(schedule.pausedUntilMs
              ? { pausedUntil: new Date(schedule.pausedUntilMs).toISOString() }
              : {}),
          });
        }
      },
    });
    publishDispatchMetrics(rt.metrics, summary);
    logger.info('dispatch done', { ...summary });
    return summary;
  });
