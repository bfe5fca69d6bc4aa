/**
 * What a fleet of N clubs needs, from the club count (docs/deploy.md, "Sizing for a fleet";
 * docs/scale.md): the poll function's concurrency, the dispatch shards and the dispatcher's memory,
 * and the largest fleet one deployment polls. The constants are the bench's measured figures
 * (docs/benchmarks.md, section 6), rounded towards safety.
 */

import { CLUB_DIRECTORY_BUCKETS } from '../lambdas/common/club-shard';

/**
 * Seconds a poll invocation of a full batch lasts at its 95th percentile, for sizing: the clubs
 * of a batch are polled side by side, so an invocation lasts about its slowest club (a first
 * request, then the other sources side by side, a few pages, at 400 ms a request against a distant
 * API, plus the batch's CPU at the function's share of a vCPU). docs/benchmarks.md measures it.
 */
export const POLL_INVOCATION_SECONDS_P95 = 8;
/** Headroom over the concurrency the steady state needs: retries, slow clubs, a late minute. */
export const POLL_CONCURRENCY_HEADROOM = 2;
/** The most concurrent invocations one SQS event source runs (its maximum concurrency). */
export const MAX_POLL_CONCURRENCY = 1000;

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
 * The poll function's maximum concurrency for `clubs` clubs polled every minute in batches of
 * `batchSize`: invocations a minute x seconds each / 60, times the headroom, within the SQS event
 * source's 2..1000.
 */
export function pollConcurrencyFor(
  clubs: number,
  batchSize: number,
  invocationSeconds: number = POLL_INVOCATION_SECONDS_P95,
  rateMinutes = 1,
): number {
  const steady = (Math.ceil(clubs / batchSize) * invocationSeconds) / (60 * rateMinutes);
  return Math.min(MAX_POLL_CONCURRENCY, Math.max(2, Math.ceil(steady * POLL_CONCURRENCY_HEADROOM)));
}

/**
 * The most clubs one deployment polls: its steady poll concurrency (no headroom) within the event
 * source's 1,000. Past it, a second deployment (its own queue and event source) takes the rest.
 */
export function maxClubsFor(batchSize: number, rateMinutes = 1): number {
  return Math.floor((MAX_POLL_CONCURRENCY * 60 * rateMinutes * batchSize) / POLL_INVOCATION_SECONDS_P95);
}

/** Dispatch shards for `clubs` clubs: one per CLUBS_PER_DISPATCH_SHARD, 1..CLUB_DIRECTORY_BUCKETS. */
export function dispatchShardsFor(clubs: number): number {
  return Math.min(CLUB_DIRECTORY_BUCKETS, Math.max(1, Math.ceil(clubs / CLUBS_PER_DISPATCH_SHARD)));
}

/** The fewest shards that keep each one within MAX_CLUBS_PER_DISPATCH_SHARD. */
export function minDispatchShardsFor(clubs: number): number {
  return Math.max(1, Math.ceil(clubs / MAX_CLUBS_PER_DISPATCH_SHARD));
}
