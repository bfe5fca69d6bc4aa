/**
 * The club registry port: which clubs the deployed bridge polls and how (never their credentials,
 * which live in Secrets Manager). Adapters: `DynamoDbClubRegistry` (the state table) and
 * `MemoryClubRegistry` (tests, benchmarks).
 */
import type { DispatchShard } from '../common/club-shard';
import type { ClubRecord } from './club-record';

export interface ClubListing {
  readonly clubs: ClubRecord[];
  /** Table requests the listing took (one per page), for cost accounting. */
  readonly requests: number;
}

export interface ClubRegistry {
  /**
   * Enabled clubs, ordered by club id: those of one dispatch shard (common/club-shard.ts), every
   * club by default. An adapter reads only the shard's part of the directory.
   */
  listEnabled(shard?: DispatchShard): Promise<ClubListing>;
  /** Every club, disabled ones included, ordered by club id. */
  listAll(): Promise<ClubListing>;
  /** The authoritative record of one club (strongly consistent), or undefined. */
  get(clubId: string): Promise<ClubRecord | undefined>;
  /** Creates or replaces a club. */
  put(record: ClubRecord): Promise<void>;
  /** Stops polling a club (its record, cursors and secret stay). False if the club is unknown. */
  disable(clubId: string): Promise<boolean>;
}

/** The registry could not be read or written. Names the operation; the cause is the store's error. */
export class ClubRegistryError extends Error {
  override readonly name = 'ClubRegistryError';
}
