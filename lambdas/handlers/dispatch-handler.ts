/**
 * The dispatch handler of a runtime (EventBridge Scheduler, every minute, one schedule per shard):
 * runs the engine's dispatcher (engine/dispatch/dispatch-due-clubs.ts) over the shard its event
 * names (engine/dispatch/dispatch-input.ts), which queues one SQS poll message per club with any
 * source due, spread over the period from the event's scheduled time, and publishes its metrics.
 * Its logging is set up as every handler's: the Lambda context once per invocation, on its last
 * line (common/logger.ts InvocationLog). The Lambda entry point (dispatch.ts) builds it once with
 * the runtime from the environment; tests build it with their own runtime.
 */
import type { Context } from 'aws-lambda';
import { InvocationLog, logger } from '../common/logger';
import { publishDispatchMetrics } from '../common/metrics';
import { type DispatchSummary, runDispatch } from '../engine/dispatch/dispatch-due-clubs';
import { parseDispatchEvent } from '../engine/dispatch/dispatch-input';
import type { DispatchRuntime } from './dispatch-runtime';

/** Time kept between the last club read and the end of the invocation. */
export const DISPATCH_SAFETY_MS = 5_000;

export function createDispatchHandler(rt: DispatchRuntime) {
  const invocationLog = new InvocationLog(logger);
  return async (event: unknown, context: Context): Promise<DispatchSummary> => {
    invocationLog.start(context);
    try {
      const { shard, periodStartMs } = parseDispatchEvent(event);
      const nowMs = Date.now();
      // Clubs are read and queued a hundred at a time: stopping 5 s before the timeout still
      // queues every club read so far, and the summary says how many were not reached.
      const deadlineMs = nowMs + Math.max(0, context.getRemainingTimeInMillis() - DISPATCH_SAFETY_MS);
      const { registry, store, queue, reserve, overdueMinimumMs, spreadSeconds } = rt;
      const run = await runDispatch({
        registry,
        store,
        queue,
        now: nowMs,
        shard,
        spreadSeconds,
        ...(periodStartMs === undefined ? {} : { periodStartMs }),
        reserve,
        overdueMinimumMs,
        deadlineMs,
      });
      publishDispatchMetrics(rt.metrics, { ...run.summary, ...quotaShare(run.quotaUsedShareMax) });
      invocationLog.end('dispatch done', { ...run.summary, shard: shard.index, shards: shard.count });
      return run.summary;
    } catch (err) {
      invocationLog.end('dispatch failed', { err });
      throw err;
    }
  };
}

const quotaShare = (share: number | undefined) => (share === undefined ? {} : { quotaUsedShareMax: share });
