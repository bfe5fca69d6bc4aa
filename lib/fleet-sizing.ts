/**
 * What a fleet of N clubs needs, from the club count (docs/deploy.md, "Sizing for a fleet";
 * docs/scale.md): the poll function's concurrency, the dispatch shards and the dispatcher's memory,
 * the largest fleet one deployment polls, and the state table's provisioned capacity (docs/deploy.md,
 * "State table capacity"). The constants are the bench's measured figures (docs/benchmarks.md,
 * sections 5 and 6), rounded towards safety; each says where it comes from.
 */

import { CLUB_DIRECTORY_BUCKETS } from '../lambdas/common/club-shard';
import {
  MAX_CLUBS_PER_MESSAGE,
  MAX_EVENT_SOURCE_CONCURRENCY,
  MAX_PROBES_PER_MESSAGE,
} from '../lambdas/common/deployment-contract';

/**
 * Seconds a poll invocation of a full batch lasts on average, for sizing (the concurrency a steady
 * flow needs is invocations a second x seconds each): the clubs of a batch are polled side by side,
 * so an invocation lasts about its slowest club (a first request, then the other sources side by
 * side, a few pages, at 400 ms a request against a distant API, plus the batch's CPU at the
 * function's share of a vCPU). docs/benchmarks.md measures it: 12.5 s on 1bed67e at the top of its
 * CPU calibration (p95 17.8 s), rounded up. It was 8 s before the bench counted the AWS SDK's CPU.
 */
export const POLL_INVOCATION_SECONDS = 13;
/**
 * The fast lane's probes a club a minute at its fastest (a probe every 15 s between the minute's
 * polls: 3 a minute, 3.8 at a poll every 5 minutes), travelling MAX_PROBES_PER_MESSAGE to a message
 * and an invocation, each lasting FAST_LANE_INVOCATION_SECONDS: a fleet whose every club is active
 * at once (one time zone's evening) runs them beside its minute's polls, on the same function.
 */
export const FAST_LANE_PROBES_PER_MINUTE = (rateMinutes: number): number => 4 - 1 / rateMinutes;
/** Seconds a fast-lane invocation lasts on average: 5.87 s measured (docs/benchmarks.md), rounded up. */
export const FAST_LANE_INVOCATION_SECONDS = 6;
/**
 * The most clubs one poll invocation takes: the most one poll message carries (the deployment
 * contract's MAX_CLUBS_PER_MESSAGE). Measured at 20 (docs/benchmarks.md, "Memory of a poll
 * invocation"): a batch of 20 first polls peaks at about the RSS of one (heavy polls take
 * HEAVY_POLL_SLOTS at a time, derived from the function's budget of 192 MB of 256), 20 regular
 * polls under that budget too; the pages held are bounded by the process
 * (lambdas/gym-api/body-budget.ts).
 */
export const MAX_POLL_BATCH_SIZE = MAX_CLUBS_PER_MESSAGE;
/** Headroom over the concurrency the steady state needs: retries, slow clubs, a late minute. */
export const POLL_CONCURRENCY_HEADROOM = 2;
/** The SQS event source's maximum concurrency: from 2 to 1000 invocations at once. */
export const MIN_POLL_CONCURRENCY = 2;
export const MAX_POLL_CONCURRENCY = MAX_EVENT_SOURCE_CONCURRENCY;
/** Whether `n` is a maximum concurrency an SQS event source accepts; what it must be, in words. */
export const isPollConcurrency = (n: number): boolean =>
  Number.isInteger(n) && n >= MIN_POLL_CONCURRENCY && n <= MAX_POLL_CONCURRENCY;
export const POLL_CONCURRENCY_TEXT = `an integer in ${MIN_POLL_CONCURRENCY}..${MAX_POLL_CONCURRENCY} (SQS event source limit)`;

/**
 * Clubs a dispatch shard is sized for: the bench measured a shard of this size at
 * DISPATCH_MEMORY_MB in well under a quarter of its 50 s timeout (docs/benchmarks.md, section 6).
 */
export const CLUBS_PER_DISPATCH_SHARD = 5000;
/** The most clubs a shard may be given (`dispatchShards` set by hand): twice the sized load. */
export const MAX_CLUBS_PER_DISPATCH_SHARD = 2 * CLUBS_PER_DISPATCH_SHARD;
/** The dispatcher's memory (its CPU share: 1,769 MB is one vCPU). */
export const DISPATCH_MEMORY_MB = 1024;

/**
 * The poll function's invocations at once that `clubs` clubs keep busy in the steady state (no
 * headroom): the minute's polls (`clubs / batchSize` invocations every `rateMinutes`, of
 * `invocationSeconds` each) and the fast lane's at its fastest, every club active.
 */
export function steadyPollConcurrency(
  clubs: number,
  batchSize: number,
  invocationSeconds: number = POLL_INVOCATION_SECONDS,
  rateMinutes = 1,
): number {
  const polls = (Math.ceil(clubs / batchSize) * invocationSeconds) / (60 * rateMinutes);
  const laneInvocationsPerMinute =
    (clubs * FAST_LANE_PROBES_PER_MINUTE(rateMinutes)) / MAX_PROBES_PER_MESSAGE;
  return polls + (laneInvocationsPerMinute * FAST_LANE_INVOCATION_SECONDS) / 60;
}

/**
 * The poll function's maximum concurrency for `clubs` clubs polled every `rateMinutes` in batches
 * of `batchSize`: the steady concurrency (`steadyPollConcurrency`) times the headroom, within the
 * SQS event source's 2..1000. Past about 29,700 clubs (at the defaults) the cap leaves less than
 * the headroom: 1,000 against 842 needed at 50,000 clubs.
 */
export function pollConcurrencyFor(
  clubs: number,
  batchSize: number,
  invocationSeconds: number = POLL_INVOCATION_SECONDS,
  rateMinutes = 1,
): number {
  const steady = steadyPollConcurrency(clubs, batchSize, invocationSeconds, rateMinutes);
  return Math.min(
    MAX_POLL_CONCURRENCY,
    Math.max(MIN_POLL_CONCURRENCY, Math.ceil(steady * POLL_CONCURRENCY_HEADROOM)),
  );
}

/**
 * The most clubs one deployment polls: its steady poll concurrency (no headroom) within the event
 * source's 1,000 (59,400 clubs at the defaults), in whole batches. Past it, a second deployment (its own queue and
 * event source) takes the rest.
 */
export function maxClubsFor(batchSize: number, rateMinutes = 1): number {
  const perClub =
    steadyPollConcurrency(batchSize * 1000, batchSize, POLL_INVOCATION_SECONDS, rateMinutes) /
    (batchSize * 1000);
  return Math.floor(MAX_POLL_CONCURRENCY / perClub / batchSize) * batchSize;
}

/** Dispatch shards for `clubs` clubs: one per CLUBS_PER_DISPATCH_SHARD, 1..CLUB_DIRECTORY_BUCKETS. */
export function dispatchShardsFor(clubs: number): number {
  return Math.min(CLUB_DIRECTORY_BUCKETS, Math.max(1, Math.ceil(clubs / CLUBS_PER_DISPATCH_SHARD)));
}

/** The fewest shards that keep each one within MAX_CLUBS_PER_DISPATCH_SHARD. */
export function minDispatchShardsFor(clubs: number): number {
  return Math.max(1, Math.ceil(clubs / MAX_CLUBS_PER_DISPATCH_SHARD));
}

/** How the state table is billed: per request, or provisioned capacity with auto scaling. */
export const TABLE_CAPACITY_MODES = ['on-demand', 'provisioned'] as const;
export type TableCapacityMode = (typeof TABLE_CAPACITY_MODES)[number];

/**
 * Read units a club uses a second in the steady state: the typical club's 511,530 read units a
 * 30-day month (bench, quick plan after the tail probe) / 2,592,000 s = 0.197, rounded up.
 * Eventually consistent reads count half a unit, on demand and provisioned alike.
 */
export const STEADY_READ_UNITS_PER_CLUB_SECOND = 0.2;
/** Write units, the same way: 188,580 a month / 2,592,000 s = 0.0728, rounded up. */
export const STEADY_WRITE_UNITS_PER_CLUB_SECOND = 0.073;
/**
 * The auto scaling floor, as a share of the steady mean at the target: auto scaling, not the floor,
 * sets the capacity a fleet pays for (a quiet night scales in towards it), and the floor keeps a
 * night from leaving the table below half of what the day needs while scale-out catches up.
 */
export const MIN_OVER_STEADY = 0.5;
/**
 * Read units a club uses a second in a new fleet's first hour (every club's baseline, first
 * lifecycle evaluation and snapshots read back): ~59 units a poll, 48,981 a second at 50,000 clubs
 * (docs/scale.md, `scale.minuteShape.atScale.mean`) = 0.98 a club, rounded up.
 */
export const FIRST_HOUR_READ_UNITS_PER_CLUB_SECOND = 1;
/** Write units in the first hour, the same way: 3,165 a second at 50,000 clubs = 0.063, rounded up. */
export const FIRST_HOUR_WRITE_UNITS_PER_CLUB_SECOND = 0.07;
/**
 * The busiest hour of a club's day over the day's mean, for what grows with the club's activity:
 * the sandbox's visit traffic (`HOURLY_TRAFFIC`, sandbox/activity/visits.ts) peaks at 2.3x
 * its mean, and a fleet in one time zone peaks together; rounded down, as the state item's two writes
 * a poll (~45% of the writes) do not follow the hour. An assumption: the bench reports the month,
 * not its hours.
 */
export const BUSIEST_HOUR_OVER_MEAN = 2;
/** Provisioned capacity's default target utilization, percent (the console's default too). */
export const DEFAULT_TABLE_TARGET_UTILIZATION = 70;
/**
 * DynamoDB's default table-level throughput quota, read and write units a second alike (quota codes
 * L-CF0CBE56 and L-AB614373): auto scaling cannot provision past it.
 */
export const DEFAULT_TABLE_MAX_UNITS = 40_000;

/** One dimension's auto scaling range, capacity units. */
export interface CapacityRange {
  readonly min: number;
  readonly max: number;
}

/** The state table's provisioned capacity for a fleet: reads and writes, each a range. */
export interface TableCapacitySizing {
  readonly read: CapacityRange;
  readonly write: CapacityRange;
}

/**
 * Provisioned capacity for `clubs` clubs at `targetUtilizationPercent`: the min is half the steady
 * mean at the target (MIN_OVER_STEADY; at least 1 unit), the max the busier of a whole fleet's first hour and the steady
 * state's busiest hour, at the target. Units = clubs x units a club a second / target, rounded up.
 */
export function tableCapacityFor(clubs: number, targetUtilizationPercent: number): TableCapacitySizing {
  // The epsilon keeps a product like 0.07 x 1000 / 0.7 (100.00000000000001) from rounding up a unit.
  const units = (perClubSecond: number) =>
    Math.max(1, Math.ceil((clubs * perClubSecond * 100) / targetUtilizationPercent - 1e-9));
  const range = (steady: number, firstHour: number): CapacityRange => ({
    min: units(steady * MIN_OVER_STEADY),
    max: units(Math.max(firstHour, BUSIEST_HOUR_OVER_MEAN * steady)),
  });
  return {
    read: range(STEADY_READ_UNITS_PER_CLUB_SECOND, FIRST_HOUR_READ_UNITS_PER_CLUB_SECOND),
    write: range(STEADY_WRITE_UNITS_PER_CLUB_SECOND, FIRST_HOUR_WRITE_UNITS_PER_CLUB_SECOND),
  };
}
