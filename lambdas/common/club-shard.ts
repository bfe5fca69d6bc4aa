/**
 * Where a club sits in a fleet, from its id alone (docs/scale.md, "The sharded dispatcher"):
 *
 * - its **directory bucket** (0..CLUB_DIRECTORY_BUCKETS-1): the club directory is written in that
 *   many partitions (`CLUBS#<bucket>`, lambdas/clubs/dynamodb-club-registry.ts), so no partition is
 *   read by every shard;
 * - its **dispatch shard** for a deployment of N shards: `bucket mod N`. Every club has exactly one
 *   shard, and a shard lists only its buckets. Changing N moves clubs between shards without
 *   rewriting anything (the buckets stay);
 * - its **phase**: the second of the dispatch period at which its poll starts, so the fleet's polls
 *   are spread evenly over the period instead of all starting in its first seconds. The phase
 *   never changes for a club, so each club keeps its poll period.
 *
 * Both come from FNV-1a (32 bit) of the club id, mixed by MurmurHash3's finalizer: stable across
 * releases, processes and Node versions, and independent of the other clubs (adding a club moves
 * no other). The bucket takes the low bits of one mix, the phase the high part of another, so a
 * shard's clubs are spread over the whole period too.
 */

/** Partitions of the club directory. The most dispatch shards a deployment can have. */
export const CLUB_DIRECTORY_BUCKETS = 64;
/** SQS's largest per-message delay: the spread of a period never exceeds it. */
export const MAX_SPREAD_SECONDS = 900;

/** One dispatcher of a deployment's `count`: shard `index` (0-based). */
export interface DispatchShard {
  readonly index: number;
  readonly count: number;
}

/** The only shard of a deployment with one dispatcher. */
export const WHOLE_FLEET: DispatchShard = { index: 0, count: 1 };

export class ClubShardError extends Error {
  override readonly name = 'ClubShardError';
}

/** FNV-1a, 32 bit, of the UTF-16 code units of `text` (club ids are ASCII). */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** MurmurHash3's 32-bit finalizer: every input bit reaches every output bit. */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The club directory partition of a club (0..CLUB_DIRECTORY_BUCKETS-1). */
export function clubBucket(clubId: string): number {
  return mix32(stableHash(clubId)) % CLUB_DIRECTORY_BUCKETS;
}

/** Throws a ClubShardError unless `shard` is one of 1..CLUB_DIRECTORY_BUCKETS shards. */
export function checkShard(shard: DispatchShard): DispatchShard {
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || count > CLUB_DIRECTORY_BUCKETS) {
    throw new ClubShardError(`shards must be an integer in 1..${CLUB_DIRECTORY_BUCKETS}, got ${count}`);
  }
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new ClubShardError(
      `shard must be an integer in 0..${count - 1} (of ${count} shards), got ${index}`,
    );
  }
  return shard;
}

/** The directory buckets a shard lists (every bucket belongs to exactly one shard). */
export function bucketsOfShard(shard: DispatchShard): number[] {
  checkShard(shard);
  const out: number[] = [];
  for (let b = shard.index; b < CLUB_DIRECTORY_BUCKETS; b += shard.count) out.push(b);
  return out;
}

/** The shard (0..count-1) that dispatches a club. */
export function clubShardIndex(clubId: string, count: number): number {
  return clubBucket(clubId) % count;
}

/** True when `shard` dispatches the club. */
export function inShard(clubId: string, shard: DispatchShard): boolean {
  return clubShardIndex(clubId, shard.count) === shard.index;
}

/** The spread of a dispatch period: its length, at most SQS's largest delay (seconds). */
export function spreadSecondsFor(periodSeconds: number): number {
  return Math.max(0, Math.min(MAX_SPREAD_SECONDS, Math.floor(periodSeconds)));
}

/**
 * A club's slot among `slots` (0..slots-1) for a periodic task that is `salt`-named (each task its
 * own salt, so a club's slots of different tasks are independent): a fleet's runs of the task are
 * spread evenly instead of all falling in the same period.
 */
export function clubSlot(clubId: string, slots: number, salt: number): number {
  if (!Number.isInteger(slots) || slots < 1)
    throw new ClubShardError(`slots must be a positive integer, got ${slots}`);
  return mix32(stableHash(clubId) ^ salt) % slots;
}

/** The second (0..spreadSeconds-1) of each dispatch period at which the club's poll starts. */
export function clubPhaseSeconds(clubId: string, spreadSeconds: number): number {
  if (spreadSeconds <= 1) return 0;
  const mixed = mix32(stableHash(clubId) ^ 0x9e3779b9);
  return Math.floor((mixed / 2 ** 32) * Math.floor(spreadSeconds));
}
