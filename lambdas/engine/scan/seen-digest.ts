/**
 * Seen digests: what lets a scan of a long window skip reading the seen set (docs/state.md,
 * "Seen digests"). For each hour (recent) or UTC day (older) of record time, the digest holds the
 * count and the XOR (64 bits) of the seen fingerprints a scan vouched for: keys it read from the
 * API and that were in the seen set (or filed there) when it finished. A later scan computes the
 * same sums from what it reads; where a bucket's sums equal the stored ones, every key of that
 * bucket is seen and its seen entries are not read.
 *
 * Why it is safe: a digest is put only after every key it counts is in the seen set, and the seen
 * set only grows within its expiry (longer than any window). A stale digest (an older put, an
 * eventually consistent read) vouches for an older set of keys, still all seen: the scan only reads
 * more. Two different sets match only with the same count and the same 64-bit XOR (a key replaced
 * by another whose fingerprint's first 64 bits are equal: 2^-64).
 */
import { HOUR_MS } from '../../common/time-units';
/** Hours older than this (from the start of that UTC day) are summed by day, and only by sweeps. */
export const DIGEST_HOURLY_SPAN_HOURS = 38;
/** The most buckets a digest keeps (the most recent): about 12 bytes each. */
export const MAX_DIGEST_BUCKETS = 600;
const FORMAT_VERSION = 1;

export interface DigestBucket {
  /** Hours since the epoch (UTC) of the bucket's first hour. */
  readonly startHour: number;
  /** 1 (an hour) or 24 (a UTC day: startHour is a multiple of 24). */
  readonly hours: 1 | 24;
  readonly count: number;
  readonly xor: bigint;
}

/** The first 64 bits of a fingerprint (base64url of a SHA-256). */
function bitsOf(fingerprint: string): bigint {
  const bytes = Buffer.from(fingerprint.slice(0, 11), 'base64url');
  if (bytes.length < 8) throw new Error(`fingerprint too short for a seen digest: ${fingerprint.length}`);
  return bytes.readBigUInt64BE(0);
}

/** Each base64url character's 6 bits, by character code (-1: not base64url). */
const SEXTETS = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries())
  SEXTETS[c.charCodeAt(0)] = i;

/**
 * bitsOf as two 32-bit halves (high, low), decoded from the first 11 characters without a Buffer
 * or a BigInt; through bitsOf when one of them is not base64url (or the fingerprint is short).
 */
function halvesOf(fingerprint: string, out: Uint32Array): void {
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 11; i++) {
    const v = SEXTETS[fingerprint.charCodeAt(i)] ?? -1;
    if (v < 0) {
      const bits = bitsOf(fingerprint);
      out[0] = Number(bits >> 32n);
      out[1] = Number(bits & 0xffff_ffffn);
      return;
    }
    // Characters 0-4 and the top 2 bits of 5 are the high half; the rest of 5, 6-9 and the top 4 of 10 the low.
    if (i < 5) hi = (hi << 6) | v;
    else if (i === 5) {
      hi = (hi << 2) | (v >> 4);
      lo = v & 15;
    } else if (i < 10) lo = (lo << 6) | v;
    else lo = (lo << 4) | (v >> 2);
  }
  out[0] = hi >>> 0;
  out[1] = lo >>> 0;
}

const xorOf = (hi: number, lo: number): bigint => (BigInt(hi) << 32n) | BigInt(lo);

export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);

/** The distinct keys a scan read, summed by hour of their record time. */
export class HourSums {
  readonly #keys = new Set<string>();
  /** Per hour: the count and the XOR of the keys' first 64 bits, as two 32-bit halves. */
  readonly #hours = new Map<number, { count: number; hi: number; lo: number }>();
  readonly #halves = new Uint32Array(2);

  /**
   * Adds a key with its record time (ISO, or the epoch ms it reads as); a key added before is not
   * counted twice.
   */
  add(fingerprint: string, at: string | number): void {
    if (this.#keys.has(fingerprint)) return;
    const ms = typeof at === 'number' ? at : Date.parse(at);
    if (!Number.isFinite(ms)) return;
    this.#keys.add(fingerprint);
    const hour = hourOf(ms);
    const sum = this.#hours.get(hour) ?? { count: 0, hi: 0, lo: 0 };
    sum.count++;
    halvesOf(fingerprint, this.#halves);
    sum.hi = (sum.hi ^ this.#halves[0]!) >>> 0;
    sum.lo = (sum.lo ^ this.#halves[1]!) >>> 0;
    this.#hours.set(hour, sum);
  }

  get size(): number {
    return this.#keys.size;
  }

  hours(): number[] {
    return [...this.#hours.keys()].sort((a, b) => a - b);
  }

  /** The sums over hours [startHour, startHour + hours). */
  sum(startHour: number, hours: number): { count: number; xor: bigint } {
    let count = 0;
    let hi = 0;
    let lo = 0;
    for (let h = startHour; h < startHour + hours; h++) {
      const s = this.#hours.get(h);
      if (!s) continue;
      count += s.count;
      hi = (hi ^ s.hi) >>> 0;
      lo = (lo ^ s.lo) >>> 0;
    }
    return { count, xor: xorOf(hi, lo) };
  }
}

/** The hours of `sums` whose keys the stored digest vouches for (all seen). */
export function vouchedHours(stored: readonly DigestBucket[], sums: HourSums): Set<number> {
  const vouched = new Set<number>();
  for (const b of stored) {
    const s = sums.sum(b.startHour, b.hours);
    if (s.count === 0 || s.count !== b.count || s.xor !== b.xor) continue;
    for (let h = b.startHour; h < b.startHour + b.hours; h++) vouched.add(h);
  }
  return vouched;
}

export interface NextDigestOptions {
  /** The scan's start (epoch ms): hours from the UTC day of `now - 38 h` on are kept by hour. */
  readonly nowMs: number;
  /** Sum older hours by day (a sweep reads whole days; a tail reads only the end of one). */
  readonly days: boolean;
  /** Buckets ending before this (epoch ms) are dropped: older than any window reads. */
  readonly pruneBeforeMs: number;
}

const overlaps = (a: DigestBucket, b: DigestBucket) =>
  a.startHour < b.startHour + b.hours && b.startHour < a.startHour + a.hours;

/**
 * The digest to store after a scan: this scan's buckets replace the stored ones they overlap; the
 * stored ones it did not touch are kept (a tail keeps the sweep's days), except hourly buckets past
 * the hourly span (a sweep sums those days again) and anything older than the windows.
 */
export function nextSeenDigest(
  stored: readonly DigestBucket[],
  sums: HourSums,
  options: NextDigestOptions,
): DigestBucket[] {
  const hourlyFrom = Math.floor((hourOf(options.nowMs) - DIGEST_HOURLY_SPAN_HOURS) / 24) * 24;
  const pruneHour = hourOf(options.pruneBeforeMs);
  const fresh: DigestBucket[] = [];
  const days = new Set<number>();
  for (const hour of sums.hours()) {
    if (hour >= hourlyFrom) fresh.push({ startHour: hour, hours: 1, ...sums.sum(hour, 1) });
    else if (options.days) days.add(Math.floor(hour / 24) * 24);
  }
  for (const day of days) fresh.push({ startHour: day, hours: 24, ...sums.sum(day, 24) });
  const kept = stored.filter(
    (b) => !(b.hours === 1 && b.startHour < hourlyFrom) && !fresh.some((f) => overlaps(f, b)),
  );
  return [...kept, ...fresh]
    .filter((b) => b.startHour + b.hours > pruneHour && b.count > 0)
    .sort((a, b) => a.startHour - b.startHour)
    .slice(-MAX_DIGEST_BUCKETS);
}

function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/**
 * Bytes: the format version, the first bucket's start hour (varint), then per bucket: its start
 * after the previous one's (varint), its span (1 byte), its count (varint), its XOR (8 bytes).
 */
export function encodeSeenDigest(buckets: readonly DigestBucket[]): Uint8Array {
  const out: number[] = [FORMAT_VERSION];
  const sorted = [...buckets].sort((a, b) => a.startHour - b.startHour);
  writeVarint(out, sorted.length);
  let previous = 0;
  for (const b of sorted) {
    writeVarint(out, b.startHour - previous);
    previous = b.startHour;
    out.push(b.hours);
    writeVarint(out, b.count);
    const xor = Buffer.alloc(8);
    xor.writeBigUInt64BE(b.xor);
    out.push(...xor);
  }
  return Uint8Array.from(out);
}

/** The buckets of a stored digest; undefined when the bytes are not a digest this release wrote. */
export function decodeSeenDigest(bytes: Uint8Array): DigestBucket[] | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (at >= buf.length) throw new RangeError('truncated');
      const byte = buf[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new RangeError('varint too long');
  };
  try {
    if (buf[at++] !== FORMAT_VERSION) return undefined;
    const n = varint();
    if (n > MAX_DIGEST_BUCKETS) return undefined;
    const buckets: DigestBucket[] = [];
    let start = 0;
    for (let i = 0; i < n; i++) {
      start += varint();
      const hours = buf[at++];
      if (hours !== 1 && hours !== 24) return undefined;
      const count = varint();
      if (at + 8 > buf.length) return undefined;
      const xor = buf.readBigUInt64BE(at);
      at += 8;
      buckets.push({ startHour: start, hours, count, xor });
    }
    return at === buf.length ? buckets : undefined;
  } catch {
    return undefined;
  }
}
