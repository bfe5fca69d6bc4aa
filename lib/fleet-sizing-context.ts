/**
 * The stage configuration's fleet sizing from CDK context (lib/stage-config.ts reads the rest):
 * a fleet larger than one deployment polls is refused, and the dispatch shards and memory are
 * sized from the club count (lib/fleet-sizing.ts) unless given, each value checked with a message
 * naming the key and the rule.
 */
import { CLUB_DIRECTORY_BUCKETS } from '../lambdas/common/club-shard';
import { type ContextReader, readNumber, StageConfigError } from './context-values';
import {
  DISPATCH_MEMORY_MB,
  dispatchShardsFor,
  MAX_CLUBS_PER_DISPATCH_SHARD,
  maxClubsFor,
  minDispatchShardsFor,
} from './fleet-sizing';

/** The fleet's size and cadence, as the stage configuration read them. */
interface PollCadence {
  readonly clubs: number;
  readonly pollBatchSize: number;
  readonly pollRateMinutes: number;
}

const isInteger = Number.isInteger;

/** Refuses a fleet larger than one deployment polls (its poll concurrency past the event source's 1,000). */
export function checkFleetSize({ clubs, pollBatchSize, pollRateMinutes }: PollCadence): void {
  const most = maxClubsFor(pollBatchSize, pollRateMinutes);
  if (clubs > most) {
    throw new StageConfigError(
      `context clubs=${clubs}: one deployment polls at most ${most} clubs at pollBatchSize ${pollBatchSize} every ${pollRateMinutes} min (its poll Lambdas would pass the SQS event source's 1,000 at once); split the fleet over two deployments (docs/deploy.md, "Sizing for a fleet")`,
    );
  }
}

export type DispatchSizing = { readonly dispatchShards: number; readonly dispatchMemoryMb: number };

/** `dispatchShards` and `dispatchMemoryMb`, sized from the club count unless given. */
export function readDispatchSizing(read: ContextReader, { clubs }: PollCadence): DispatchSizing {
  const fewest = minDispatchShardsFor(clubs);
  return {
    dispatchShards: readNumber(
      read,
      'dispatchShards',
      dispatchShardsFor(clubs),
      (n) => isInteger(n) && n >= fewest && n <= CLUB_DIRECTORY_BUCKETS,
      `an integer in ${fewest}..${CLUB_DIRECTORY_BUCKETS} for ${clubs} clubs (a shard dispatches at most ${MAX_CLUBS_PER_DISPATCH_SHARD} clubs within its timeout; 64 is the club directory's buckets)`,
    ),
    dispatchMemoryMb: readNumber(
      read,
      'dispatchMemoryMb',
      DISPATCH_MEMORY_MB,
      (n) => isInteger(n) && n >= 128 && n <= 10_240,
      "an integer in 128..10240 (MB, Lambda's range)",
    ),
  };
}
