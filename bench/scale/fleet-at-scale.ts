/**
 * The fleet at scale (docs/benchmarks.json `scale.*`): the dispatcher measured over every shard
 * the stage configures for `clubs` clubs (dispatch-at-scale.ts), the poll side from the measured
 * invocation time, the account quotas against the fleet's rates, and the minute's per-second load
 * at that size (minute-shape.ts, from the bench fleet's measured load per poll).
 */

import { spreadSecondsFor } from '../../lambdas/common/club-shard';
import { MAX_FAST_LANE_PROBES, MAX_PROBES_PER_MESSAGE } from '../../lambdas/common/deployment-contract';
import { PROBE_GROUP_SPAN_MS } from '../../lambdas/common/poll-queue';
import { MINUTE_MS } from '../../lambdas/common/time-units';
import type { Cursor } from '../../lambdas/state/store';
import { readDeploymentSettings } from '../deployment';
import { type DispatchAtScaleResult, dispatchAtScale } from './dispatch-at-scale';
import { type FleetMinuteShape, fleetMinuteShape, type SecondLoad } from './minute-shape';

export interface FleetAtScaleResult {
  readonly measured: true;
  readonly clubs: number;
  readonly dispatchShards: number;
  /** The slowest shard at the CPU share of its memory, measured (upper bound): seconds. */
  readonly dispatchSeconds: number;
  readonly dispatchTimeoutSeconds: number;
  readonly dispatch: DispatchAtScaleResult;
  /** Poll Lambdas busy at once in the steady state: invocations a minute x billed seconds / 60. */
  readonly pollConcurrencyNeeded: number;
  /** Fast-lane invocations a minute at the peak (every club's lane on), and the billed seconds of each. */
  readonly laneInvocationsPerMinute?: number;
  readonly laneInvocationSeconds?: number;
  /** What the stage configures for this many clubs (lib/stage-config.ts). */
  readonly pollConcurrencyConfigured: number;
  readonly pollInvocationSeconds: number;
  readonly pollBatchSize: number;
  /** Account quotas against the fleet's rates (us-east-1 defaults). */
  readonly rates: {
    readonly putEventsRequestsPerSecond: number;
    readonly putEventsQuotaPerSecond: number;
    readonly getSecretValuePerSecond: number;
    readonly getSecretValueQuotaPerSecond: number;
  };
  /** Requests one DynamoDB key gets a minute at most: a club's state item (read once, written twice). */
  readonly maxRequestsPerKeyPerMinute: number;
  /** The minute's per-second load at this size, spread (absent: no fleet hour measured). */
  readonly minuteShape?: FleetMinuteShape;
}

/** What the fleet at scale needs of a stage's settings. */
export interface StageAtScale {
  readonly dispatchShards: number;
  readonly dispatchMemoryMb: number;
  readonly dispatchTimeoutSeconds: number;
  readonly spreadSeconds: number;
  readonly pollBatchSize: number;
  /** Clubs a poll message carries. */
  readonly pollClubsPerMessage: number;
  readonly pollMaxConcurrency: number;
}

/** The prod stage's settings for `clubs` clubs, as the synthesized template has them. */
export function stageAtScale(clubs: number): StageAtScale {
  // The table's quota raised as docs/deploy.md says a provisioned fleet this size needs (80,000, the
  // account-level default): otherwise the stage refuses a first hour's max capacity past 40,000.
  const d = readDeploymentSettings('prod', { clubs, tableMaxUnits: 80_000 });
  return {
    dispatchShards: d.dispatchShards ?? 1,
    dispatchMemoryMb: d.dispatch.memoryMb,
    dispatchTimeoutSeconds: d.dispatch.timeoutSec,
    spreadSeconds: spreadSecondsFor(d.scheduleRateMinutes * 60),
    pollBatchSize: d.pollBatchSize,
    pollClubsPerMessage: d.pollClubsPerMessage ?? 1,
    pollMaxConcurrency: d.pollMaxConcurrency,
  };
}

export interface FleetAtScaleInput {
  readonly template: readonly Cursor[];
  readonly nowMs: number;
  readonly clubs: number;
  /** The stage's settings for `clubs` clubs (`stageAtScale`). */
  readonly stage: StageAtScale;
  /** Billed seconds of one poll invocation (a full batch), from the cost model. */
  readonly pollInvocationSeconds: number;
  /**
   * Billed seconds of one fast-lane invocation (a batch of probes), from the cost model: counted at
   * the peak, every club's lane on at 15 s (MAX_FAST_LANE_PROBES probes a minute).
   */
  readonly laneInvocationSeconds?: number;
  /** Per club per month, from the typical club. */
  readonly putEventsRequestsPerClubMonth: number;
  /** GetSecretValue calls a second for the fleet (containers x secrets / TTL). */
  readonly getSecretValuePerSecond: number;
  /** The bench fleet's measured share of clubs polled a minute and load per poll. */
  readonly perPoll?: { readonly polledShare: number; readonly load: Omit<SecondLoad, 'polls'> };
}

export async function fleetAtScale(input: FleetAtScaleInput): Promise<FleetAtScaleResult> {
  const { stage } = input;
  const dispatch = await dispatchAtScale({
    template: input.template,
    nowMs: input.nowMs,
    clubs: input.clubs,
    shards: stage.dispatchShards,
    memoryMb: stage.dispatchMemoryMb,
    timeoutSeconds: stage.dispatchTimeoutSeconds,
    spreadSeconds: stage.spreadSeconds,
    clubsPerMessage: stage.pollClubsPerMessage,
  });
  const invocationsPerMinute = Math.ceil(input.clubs / stage.pollBatchSize);
  // Probes travel as many a message as fall within a group's span of the spread minute (poll-queue.ts).
  const perMessage = Math.max(
    1,
    Math.min(MAX_PROBES_PER_MESSAGE, Math.floor((input.clubs * PROBE_GROUP_SPAN_MS) / MINUTE_MS)),
  );
  const laneInvocationsPerMinute = Math.ceil((input.clubs * MAX_FAST_LANE_PROBES) / perMessage);
  const laneSeconds = input.laneInvocationSeconds ?? 0;
  return {
    measured: true,
    clubs: dispatch.clubs,
    dispatchShards: dispatch.shards,
    dispatchSeconds: dispatch.dispatchSeconds,
    dispatchTimeoutSeconds: dispatch.timeoutSeconds,
    dispatch,
    pollConcurrencyNeeded:
      (invocationsPerMinute * input.pollInvocationSeconds + laneInvocationsPerMinute * laneSeconds) / 60,
    ...(laneSeconds > 0 ? { laneInvocationsPerMinute, laneInvocationSeconds: laneSeconds } : {}),
    pollConcurrencyConfigured: stage.pollMaxConcurrency,
    pollInvocationSeconds: input.pollInvocationSeconds,
    pollBatchSize: stage.pollBatchSize,
    rates: {
      putEventsRequestsPerSecond: (input.putEventsRequestsPerClubMonth * input.clubs) / (30 * 86_400),
      putEventsQuotaPerSecond: 10_000,
      getSecretValuePerSecond: input.getSecretValuePerSecond,
      getSecretValueQuotaPerSecond: 10_000,
    },
    maxRequestsPerKeyPerMinute: 3,
    ...(input.perPoll
      ? { minuteShape: fleetMinuteShape(input.clubs, input.perPoll.polledShare, input.perPoll.load) }
      : {}),
  };
}
