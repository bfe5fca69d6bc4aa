/**
 * Time arithmetic between UTC instants and the zone-less "naive" date-times of the API.
 *
 * A naive value is kept as the epoch milliseconds it would have if it were read as UTC
 * (`Date.UTC` of its fields). That makes every date-time field of the API, local or UTC, sortable
 * and comparable as a plain number, and a `fromdate` filter is a numeric `>=`.
 *
 * The zone arithmetic itself (offsets from the runtime's tz database, the gap and repeated-hour
 * policy) is the bridge's own, common/zoned-time.ts; TimeZone puts it in the sandbox's terms
 * (offsets in ms, naive ms in and out) and keeps the offsets it met.
 */

import { DAY_MS, MINUTE_MS, SECOND_MS } from '../lambdas/common/time-units';
import {
  assertTimeZone,
  InvalidTimeZoneError,
  offsetMinutesAt,
  resolveLocal,
} from '../lambdas/common/zoned-time';

const NAIVE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;

/** `YYYY-MM-DDTHH:mm:ss` (or with `.sss` when `withMillis`), no offset, no Z. */
export function formatNaive(naiveMs: number, withMillis = false): string {
  const iso = new Date(naiveMs).toISOString();
  return withMillis ? iso.slice(0, 23) : iso.slice(0, 19);
}

/**
 * Parses the seed's date-time pattern into naive milliseconds; undefined when the text does not
 * match the pattern or names a day or time that does not exist on the calendar (2025-02-30).
 * Fractions beyond milliseconds are truncated.
 */
export function parseNaive(text: string): number | undefined {
  const m = NAIVE_PATTERN.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  const millis = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  return ms + millis;
}

/** Floors to whole seconds. */
export function floorToSecond(ms: number): number {
  return Math.floor(ms / SECOND_MS) * SECOND_MS;
}

const OFFSET_BUCKET_MS = 15 * MINUTE_MS;

/**
 * An IANA time zone with cached UTC offsets (one lookup per 15-minute bucket, which is exact
 * because every real transition falls on a quarter hour), so millions of conversions stay cheap.
 */
export class TimeZone {
  private readonly offsets = new Map<number, number>();

  constructor(readonly name: string) {
    // Throws Intl's RangeError for an unknown zone: fail at start-up, not at the first request.
    try {
      assertTimeZone(name);
    } catch (err) {
      throw err instanceof InvalidTimeZoneError && err.cause instanceof RangeError ? err.cause : err;
    }
  }

  /** Offset of local time from UTC at the instant, in ms (Sydney summer: +11h). */
  offsetMs(utcMs: number): number {
    const bucket = Math.floor(utcMs / OFFSET_BUCKET_MS);
    const cached = this.offsets.get(bucket);
    if (cached !== undefined) return cached;
    const offset = offsetMinutesAt(this.name, bucket * OFFSET_BUCKET_MS) * MINUTE_MS;
    this.offsets.set(bucket, offset);
    return offset;
  }

  /** The local wall-clock time of a UTC instant, as naive ms. */
  toNaive(utcMs: number): number {
    return utcMs + this.offsetMs(utcMs);
  }

  /**
   * The UTC instant of a local wall-clock time. A time in a repeated hour gives the earlier
   * instant; a time in a DST gap gives the instant the clock reads that much after the gap
   * (02:30 on a 02:00->03:00 night becomes 03:30), as JavaScript's Temporal does by default.
   */
  fromNaive(naiveMs: number): number {
    const offsetAt = (_zone: string, utcMs: number) => this.offsetMs(utcMs) / MINUTE_MS;
    return naiveMs - resolveLocal(this.name, naiveMs, offsetAt).offsetMin * MINUTE_MS;
  }

  /** Local midnight of the day that contains the instant, as naive ms. */
  localDayStart(utcMs: number): number {
    const naive = this.toNaive(utcMs);
    return naive - (((naive % DAY_MS) + DAY_MS) % DAY_MS);
  }

  /** Local hour (0-23) of the instant. */
  localHour(utcMs: number): number {
    return new Date(this.toNaive(utcMs)).getUTCHours();
  }
}

/** The next instant after `afterMs` where the zone's offset changes, searched up to `withinDays`. */
export function nextOffsetChange(zone: TimeZone, afterMs: number, withinDays = 400): number | undefined {
  const base = zone.offsetMs(afterMs);
  let lo = afterMs;
  let hi = afterMs;
  for (let d = 1; d <= withinDays; d++) {
    hi = afterMs + d * DAY_MS;
    if (zone.offsetMs(hi) !== base) break;
    lo = hi;
    if (d === withinDays) return undefined;
  }
  while (hi - lo > OFFSET_BUCKET_MS) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (zone.offsetMs(mid) === base) lo = mid;
    else hi = mid;
  }
  // Align to the first quarter hour with the new offset.
  let t = Math.floor(lo / OFFSET_BUCKET_MS) * OFFSET_BUCKET_MS;
  while (zone.offsetMs(t) === base) t += OFFSET_BUCKET_MS;
  return t;
}
