/**
 * The dispatch handler of a runtime (EventBridge Scheduler, every minute): runs the dispatcher's
 * decision (dispatch-due-clubs.ts), which queues one SQS poll message per club with any source due,
 * and publishes its metrics. The Lambda entry point (dispatch.ts) builds it once with the runtime
 * from the environment; tests build it with their own runtime.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { logger } from '../common/logger';
import { publishClubFreshnessMetrics, publishDispatchMetrics } from '../common/metrics';
import { type ClubDecision, type DispatchSummary, dispatchDueClubs } from './dispatch-due-clubs';
import type { DispatchRuntime } from './dispatch-runtime';

/** Metrics and a debug line per club evaluated. */
function reportClub(
  rt: DispatchRuntime,
  nowMs: number,
  { record, cursors, quotaUsed, schedule }: ClubDecision,
) {
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
      ...(schedule.pausedUntilMs ? { pausedUntil: new Date(schedule.pausedUntilMs).toISOString() } : {}),
    });
  }
}

export function createDispatchHandler(rt: DispatchRuntime) {
  return middy<unknown, DispatchSummary>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async () => {
      const nowMs = Date.now();
      const summary = await dispatchDueClubs({
        registry: rt.registry,
        store: rt.store,
        queue: rt.queue,
        now: nowMs,
        reserve: rt.reserve,
        overdueMinimumMs: rt.overdueMinimumMs,
        onClub: (decision) => reportClub(rt, nowMs, decision),
      });
      publishDispatchMetrics(rt.metrics, summary);
      logger.info('dispatch done', { ...summary });
      return summary;
    });
}
