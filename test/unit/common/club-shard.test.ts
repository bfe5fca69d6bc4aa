/** A club's directory bucket, dispatch shard and phase: stable, complete, spread. */
import { describe, expect, it } from 'vitest';
import {
  bucketsOfShard,
  CLUB_DIRECTORY_BUCKETS,
  ClubShardError,
  checkShard,
  clubBucket,
  clubPhaseSeconds,
  clubShardIndex,
  inShard,
  spreadSecondsFor,
  stableHash,
} from '../../../lambdas/common/club-shard';

const ids = Array.from({ length: 6000 }, (_, i) => `club-${String(i).padStart(5, '0')}`);

describe('club shards', () => {
  it('hashes a club id the same way everywhere (FNV-1a, 32 bit: known values)', () => {
    expect(stableHash('')).toBe(0x811c9dc5);
    expect(stableHash('a')).toBe(0xe40c292c);
    expect(stableHash('foobar')).toBe(0xbf9cf968);
    // Pinned: a change here moves every club to another bucket and phase (a migration).
    expect(['club-00001', 'club-42', 'a'].map((id) => [clubBucket(id), clubPhaseSeconds(id, 60)])).toEqual([
      [62, 34],
      [4, 3],
      [51, 4],
    ]);
  });

  it('puts every club in exactly one shard, for every shard count, and a shard lists only its buckets', () => {
    for (const count of [1, 2, 3, 7, 8, 64]) {
      const buckets = Array.from({ length: count }, (_, index) => bucketsOfShard({ index, count }));
      expect(buckets.flat().sort((a, b) => a - b)).toEqual(
        Array.from({ length: CLUB_DIRECTORY_BUCKETS }, (_, b) => b),
      );
      for (const id of ids.slice(0, 500)) {
        const owners = Array.from({ length: count }, (_, index) => index).filter((index) =>
          inShard(id, { index, count }),
        );
        expect(owners).toEqual([clubShardIndex(id, count)]);
        expect(buckets[clubShardIndex(id, count)]).toContain(clubBucket(id));
      }
    }
  });

  it('balances shards and phases: 6,000 clubs over 8 shards within 10%, over 60 seconds within 35%', () => {
    const perShard = new Array(8).fill(0);
    const perSecond = new Array(60).fill(0);
    for (const id of ids) {
      perShard[clubShardIndex(id, 8)]++;
      perSecond[clubPhaseSeconds(id, 60)]++;
    }
    expect(Math.max(...perShard) / (ids.length / 8)).toBeLessThan(1.1);
    expect(Math.min(...perShard) / (ids.length / 8)).toBeGreaterThan(0.9);
    expect(Math.max(...perSecond) / (ids.length / 60)).toBeLessThan(1.35);
    expect(Math.min(...perSecond) / (ids.length / 60)).toBeGreaterThan(0.65);
    // The phase does not follow the shard: each shard's clubs cover the whole minute.
    const shardZeroSeconds = new Set(
      ids.filter((id) => inShard(id, { index: 0, count: 8 })).map((id) => clubPhaseSeconds(id, 60)),
    );
    expect(shardZeroSeconds.size).toBe(60);
  });

  it("keeps a phase inside the spread, and the spread inside SQS's 900 s", () => {
    for (const id of ids.slice(0, 200)) {
      expect(clubPhaseSeconds(id, 60)).toBeGreaterThanOrEqual(0);
      expect(clubPhaseSeconds(id, 60)).toBeLessThan(60);
      expect(clubPhaseSeconds(id, 1)).toBe(0);
    }
    expect(spreadSecondsFor(60)).toBe(60);
    expect(spreadSecondsFor(3600)).toBe(900);
  });

  it('refuses a shard outside its count, naming what is wrong', () => {
    expect(() => checkShard({ index: 2, count: 2 })).toThrow(ClubShardError);
    expect(() => checkShard({ index: 2, count: 2 })).toThrow(
      /shard must be an integer in 0\.\.1 \(of 2 shards\), got 2/,
    );
    expect(() => checkShard({ index: 0, count: 65 })).toThrow(/shards must be an integer in 1\.\.64, got 65/);
    expect(() => checkShard({ index: 0.5, count: 2 })).toThrow(/got 0.5/);
  });
});
