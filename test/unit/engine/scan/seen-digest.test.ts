import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../../../lambdas/common/time-units';
import { fingerprint } from '../../../../lambdas/engine/scan/fingerprint';
import {
  type DigestBucket,
  decodeSeenDigest,
  encodeSeenDigest,
  HourSums,
  hourOf,
  MAX_DIGEST_BUCKETS,
  nextSeenDigest,
  vouchedHours,
} from '../../../../lambdas/engine/scan/seen-digest';

const NOW = Date.parse('2026-03-10T12:30:00.000Z');
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * HOUR_MS).toISOString();

/** Sums of `n` keys in each of these hours ago. */
function sumsOf(hoursAgo: readonly number[], n = 3, salt = ''): HourSums {
  const sums = new HourSums();
  for (const h of hoursAgo) for (let i = 0; i < n; i++) sums.add(fingerprint(`${salt}${h}/${i}`), at(h));
  return sums;
}

describe('seen digest', () => {
  it('round-trips hour and day buckets, and refuses bytes it did not write', () => {
    // Prepare
    const buckets: DigestBucket[] = [
      { startHour: 490_000 * 24, hours: 24, count: 123_456, xor: 0xffff_ffff_ffff_ffffn },
      { startHour: 490_001 * 24 + 5, hours: 1, count: 1, xor: 1n },
      { startHour: 490_001 * 24 + 6, hours: 1, count: 300, xor: 0x0123_4567_89ab_cdefn },
    ];
    // Act
    const bytes = encodeSeenDigest(buckets);
    // Assess
    expect(decodeSeenDigest(bytes)).toEqual(buckets);
    expect(bytes.length).toBeLessThan(3 * 14);
    expect(decodeSeenDigest(Uint8Array.from([9, ...bytes.slice(1)]))).toBeUndefined();
    expect(decodeSeenDigest(bytes.slice(0, -1))).toBeUndefined();
    expect(decodeSeenDigest(Uint8Array.from([...bytes, 0]))).toBeUndefined();
    expect(decodeSeenDigest(Uint8Array.from([1, 0xff]))).toBeUndefined();
  });

  it('vouches for the hours whose keys are exactly the stored ones, by hour or by day', () => {
    // Prepare
    const stored = nextSeenDigest([], sumsOf([1, 2, 3, 70, 71]), {
      nowMs: NOW,
      days: true,
      pruneBeforeMs: NOW - 20 * 24 * HOUR_MS,
    });
    // Act: the same keys; a key added in hour 2; a key replaced in hour 3 (same count)
    const same = vouchedHours(stored, sumsOf([1, 2, 3, 70, 71]));
    const added = sumsOf([1, 2, 3, 70, 71]);
    added.add(fingerprint('late'), at(2));
    const replaced = sumsOf([1, 2, 70, 71]);
    replaced.add(fingerprint('3/0'), at(3));
    replaced.add(fingerprint('3/1'), at(3));
    replaced.add(fingerprint('other'), at(3));
    // Assess
    expect(stored.filter((b) => b.hours === 24)).toHaveLength(1);
    expect([...same].filter((h) => [1, 2, 3].map((a) => hourOf(NOW) - a).includes(h))).toHaveLength(3);
    expect(same.has(hourOf(NOW) - 70)).toBe(true);
    expect(vouchedHours(stored, added).has(hourOf(NOW) - 2)).toBe(false);
    expect(vouchedHours(stored, added).has(hourOf(NOW) - 1)).toBe(true);
    expect(vouchedHours(stored, replaced).has(hourOf(NOW) - 3)).toBe(false);
  });

  it('counts a key once however often it is read', () => {
    // Prepare
    const stored = nextSeenDigest([], sumsOf([1]), { nowMs: NOW, days: false, pruneBeforeMs: 0 });
    const twice = sumsOf([1]);
    // Act
    twice.add(fingerprint('1/0'), at(1));
    // Assess
    expect(twice.size).toBe(3);
    expect(vouchedHours(stored, twice).size).toBe(1);
  });

  it("keeps the buckets a scan did not read (a tail keeps the sweep's days); a tail writes no day", () => {
    // Prepare
    const swept = nextSeenDigest([], sumsOf([1, 70, 100]), {
      nowMs: NOW,
      days: true,
      pruneBeforeMs: NOW - 10 * 24 * HOUR_MS,
    });
    // Act
    const tail = nextSeenDigest(swept, sumsOf([0, 1, 80], 2, 'x'), {
      nowMs: NOW,
      days: false,
      pruneBeforeMs: NOW - 10 * 24 * HOUR_MS,
    });
    // Assess
    const days = (d: DigestBucket[]) => d.filter((b) => b.hours === 24).map((b) => b.startHour);
    expect(days(tail)).toEqual(days(swept));
    expect(tail.find((b) => b.startHour === hourOf(NOW) - 1)).toMatchObject({ count: 2 });
    expect(tail.find((b) => b.startHour === hourOf(NOW))).toMatchObject({ count: 2 });
  });

  it('drops buckets older than the windows and keeps at most the most recent MAX_DIGEST_BUCKETS', () => {
    // Prepare
    const sums = sumsOf([1, 24 * 30], 1);
    const many = new HourSums();
    for (let d = 0; d < MAX_DIGEST_BUCKETS + 50; d++) many.add(fingerprint(`d${d}`), at(24 * (d + 3)));
    // Act
    const pruned = nextSeenDigest([], sums, {
      nowMs: NOW,
      days: true,
      pruneBeforeMs: NOW - 20 * 24 * HOUR_MS,
    });
    const capped = nextSeenDigest([], many, { nowMs: NOW, days: true, pruneBeforeMs: 0 });
    // Assess
    expect(pruned.map((b) => b.hours)).toEqual([1]);
    expect(capped).toHaveLength(MAX_DIGEST_BUCKETS);
    expect(capped.at(-1)!.startHour).toBeGreaterThan(capped[0]!.startHour);
    expect(decodeSeenDigest(encodeSeenDigest(capped))).toEqual(capped);
  });
});
