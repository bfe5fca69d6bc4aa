/**
 * The dispatch handler of a runtime (EventBridge Scheduler, every minute): runs the dispatcher's
 * decision (dispatch-due-clubs.ts), which queues one SQS poll message per club with any source due,
 * and publishes its metrics. The Lambda entry point (dispatch.ts) builds it once with the runtime
 * from the environment; tests build it with their own runtime.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../common/logger';
import { publishDispatchMetrics } from '../common/metrics';
import { PLAN_QUOTAS } from '../common/plans';
import { type ClubDecision, type DispatchSummary, dispatchDueClubs } from './dispatch-due-clubs';
import type { DispatchRuntime } from './dispatch-runtime';

/** A debug line per club with something due or paused (its metrics are aggregated per run). */
function reportClub({ record, schedule }: ClubDecision) {
  if (schedule.due.length > 0 || schedule.pausedUntilMs !== undefined) {
    logger.debug('club schedule', {
      clubId: record.clubId,
      due: schedule.due,
      stretch: schedule.stretch,
      ...(schedule.pausedUntilMs ? { pausedUntil: new Date(schedule.pausedUntilMs).toISOString() } : {}),
    });
  }
}

/** Time kept between the last club read and the end of the invocation. */
export const DISPATCH_SAFETY_MS = 5_000;

export function createDispatchHandler(rt: DispatchRuntime) {
  return middy<unknown, DispatchSummary>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (_event, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
      const nowMs = Date.now();
      // Clubs are read and queued a hundred at a time: stopping 5 s before the timeout still
      // queues every club read so far, and the summary says how many were not reached.
      let quotaUsedShareMax: number | undefined;
      const deadlineMs = nowMs + Math.max(0, context.getRemainingTimeInMillis() - DISPATCH_SAFETY_MS);
      const summary = await dispatchDueClubs({
        registry: rt.registry,
        store: rt.store,
        queue: rt.queue,
        now: nowMs,
        reserve: rt.reserve,
        overdueMinimumMs: rt.overdueMinimumMs,
        deadlineMs,
        onClub: (decision) => {
          reportClub(decision);
          const share = decision.quotaUsed / PLAN_QUOTAS[decision.record.plan];
          quotaUsedShareMax = Math.max(quotaUsedShareMax ?? 0, share);
        },
      });
      publishDispatchMetrics(rt.metrics, {
        ...summary,
        ...(quotaUsedShareMax === undefined ? {} : { quotaUsedShareMax }),
      });
      logger.info('dispatch done', { ...summary });
      return summary;
    });
}
