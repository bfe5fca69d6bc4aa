/**
 * The stage configuration's fleet sizing from CDK context (lib/stage-config.ts reads the rest):
 * a fleet larger than one deployment polls is refused, the dispatch shards and memory are sized
 * from the club count (lib/fleet-sizing.ts) unless given, and the state table's capacity mode is
 * read, a provisioned table's auto scaling range checked against the table quota; each value
 * checked with a message naming the key and the rule.
 */
import { CLUB_DIRECTORY_BUCKETS } from '../lambdas/common/club-shard';
import { type ContextReader, readChoice, readNumber, StageConfigError } from './context-values';
import {
  DEFAULT_TABLE_MAX_UNITS,
  DEFAULT_TABLE_TARGET_UTILIZATION,
  DISPATCH_MEMORY_MB,
  dispatchShardsFor,
  MAX_CLUBS_PER_DISPATCH_SHARD,
  maxClubsFor,
  minDispatchShardsFor,
  TABLE_CAPACITY_MODES,
  type TableCapacityMode,
  tableCapacityFor,
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

/** The state table's capacity settings of the stage configuration (docs/deploy.md, "State table capacity"). */
export interface TableCapacitySettings {
  /**
   * 'on-demand' (billed per request) or 'provisioned' (capacity with auto scaling, sized from
   * `clubs` by `tableCapacityFor`).
   */
  readonly tableCapacity: TableCapacityMode;
  /** Provisioned: the utilization auto scaling keeps, percent (20..90). */
  readonly tableTargetUtilization: number;
  /**
   * Provisioned: the table-level throughput quota assumed (read and write units a second); a max
   * capacity above it is refused. 40,000 by default: give the raised quota's value once raised.
   */
  readonly tableMaxUnits: number;
}

/**
 * `tableCapacity` (default `fallback`), `tableTargetUtilization` and `tableMaxUnits`; a provisioned
 * table whose max capacity for the fleet would pass `tableMaxUnits` is refused, naming the quotas.
 */
export function readTableCapacity(
  read: ContextReader,
  { clubs }: Pick<PollCadence, 'clubs'>,
  fallback: TableCapacityMode,
): TableCapacitySettings {
  const settings: TableCapacitySettings = {
    tableCapacity: readChoice(read, 'tableCapacity', TABLE_CAPACITY_MODES, fallback),
    tableTargetUtilization: readNumber(
      read,
      'tableTargetUtilization',
      DEFAULT_TABLE_TARGET_UTILIZATION,
      (n) => isInteger(n) && n >= 20 && n <= 90,
      'a whole percentage in 20..90 (the utilization auto scaling keeps)',
    ),
    tableMaxUnits: readNumber(
      read,
      'tableMaxUnits',
      DEFAULT_TABLE_MAX_UNITS,
      (n) => isInteger(n) && n >= 1,
      'a whole number of capacity units >= 1 (the table-level throughput quota: L-CF0CBE56 reads, L-AB614373 writes; 40,000 unless raised)',
    ),
  };
  if (settings.tableCapacity === 'provisioned') checkTableQuota(clubs, settings);
  return settings;
}

/** Refuses a provisioned max capacity above the table-level quota assumed (`tableMaxUnits`). */
function checkTableQuota(clubs: number, s: TableCapacitySettings): void {
  const { read, write } = tableCapacityFor(clubs, s.tableTargetUtilization);
  const over = [
    read.max > s.tableMaxUnits ? `${read.max} read units (quota L-CF0CBE56)` : '',
    write.max > s.tableMaxUnits ? `${write.max} write units (quota L-AB614373)` : '',
  ].filter(Boolean);
  if (over.length === 0) return;
  throw new StageConfigError(
    `context tableCapacity=provisioned: ${clubs} clubs at tableTargetUtilization ${s.tableTargetUtilization}% need a max of ${over.join(' and ')}, above tableMaxUnits=${s.tableMaxUnits}, the table-level throughput quota assumed; raise the quota (aws service-quotas request-service-quota-increase --service-code dynamodb --quota-code ...) and give -c tableMaxUnits=<the raised value>, or use -c tableCapacity=on-demand (docs/deploy.md, "State table capacity")`,
  );
}
