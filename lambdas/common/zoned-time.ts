/**
 * Conversion between the API's zone-less local date-times and UTC instants, for an IANA time zone.
 *
 * Policy, explicit because the API gives no offset:
 * - A local time inside a repeated hour (DST ends) is ambiguous: it maps to the EARLIER instant,
 *   and `ambiguous` is reported. For watermarks the earlier instant is the conservative choice.
 * - A local time inside a gap (DST starts) does not exist: it is read with the offset in force
 *   before the gap (02:30 in a 02:00->03:00 gap becomes 03:30 daylight time), and `gap` is reported.
 * Offsets come from Intl (the runtime's tz database) and are cached per hour (of UTC for instants,
 * of wall time for local values), so the hot path of a poll is a Map lookup. Transitions happen on
 * whole minutes but not only on :00/:30 (Pacific/Chatham at :45, America/St_Johns until 2011 at
 * 00:01 local = 03:31 UTC), so an hour is cached whole only when its first and last minutes read
 * alike (a zone changes its offset at most once in an hour); an hour that holds a transition is
 * cached per minute. Per hour, because a per-minute cache of a month of records held about 1.5 MB
 * a zone for the life of the process (a poll batch's clubs in a zone each; docs/operations.md, "The
 * poll function's memory"). Each cache is cleared when it grows past MAX_CACHE_ENTRIES, so a
 * long-running process stays bounded.
 */
import { HOUR_MS, MINUTE_MS } from './time-units';

const LOCAL_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;
const BUCKET_MS = MINUTE_MS;
const MAX_CACHE_ENTRIES = 50_000;
const MINUTES_AN_HOUR = 60;

export class InvalidTimeZoneError extends Error {
  override readonly name = 'InvalidTimeZoneError';
}
export class InvalidLocalDateTimeError extends Error {
  override readonly name = 'InvalidLocalDateTimeError';
}

type LocalReading = { offsetMin: number; flag?: 'gap' | 'ambiguous' };

/** An hour whose offset (or local reading) changes within it: its minutes are cached instead. */
const MIXED = Number.NaN;
const MIXED_READING: LocalReading = { offsetMin: MIXED };

interface ZoneCache {
  readonly format: Intl.DateTimeFormat;
  /** UTC hour (ms / HOUR_MS) -> the offset through the whole hour, or MIXED. */
  readonly offsetByHour: Map<number, number>;
  /** UTC minute -> offset, for the minutes of MIXED hours. */
  readonly offsetByMinute: Map<number, number>;
  /** Wall-clock hour (`YYYY-MM-DDTHH`) -> the reading of the whole hour, or MIXED_READING. */
  readonly localByHour: Map<string, LocalReading>;
  /** Wall-clock minute (`YYYY-MM-DDTHH:mm`) -> its reading, for the minutes of mixed hours. */
  readonly localByMinute: Map<string, LocalReading>;
}

/** Sets `key` in `cache`, cleared first when it is full. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  if (cache.size >= MAX_CACHE_ENTRIES) cache.clear();
  cache.set(key, value);
}

const zones = new Map<string, ZoneCache>();

function zoneCache(zone: string): ZoneCache {
  let cache = zones.get(zone);
  if (!cache) {
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        era: 'short',
      });
    } catch (cause) {
      throw new InvalidTimeZoneError(`unknown IANA time zone '${zone}'`, { cause });
    }
    cache = {
      format,
      offsetByHour: new Map(),
      offsetByMinute: new Map(),
      localByHour: new Map(),
      localByMinute: new Map(),
    };
    zones.set(zone, cache);
  }
  return cache;
}

/**
 * Entries `zone`'s caches hold (tests, diagnostics): one an hour met, and one a minute only in the
 * hours that hold a transition.
 */
export function zoneCacheEntries(zone: string): number {
  const c = zones.get(zone);
  return c ? c.offsetByHour.size + c.offsetByMinute.size + c.localByHour.size + c.localByMinute.size : 0;
}

/** Throws InvalidTimeZoneError unless `zone` is an IANA zone the runtime knows. */
export function assertTimeZone(zone: string): void {
  zoneCache(zone);
}

/** Offset of `zone` from UTC at `instantMs`, in minutes (Sydney in summer: +660). */
export function offsetMinutesAt(zone: string, instantMs: number): number {
  const cache = zoneCache(zone);
  const hour = Math.floor(instantMs / HOUR_MS);
  let offset = cache.offsetByHour.get(hour);
  if (offset === undefined) {
    const first = intlOffset(cache, hour * MINUTES_AN_HOUR);
    offset = first === intlOffset(cache, hour * MINUTES_AN_HOUR + MINUTES_AN_HOUR - 1) ? first : MIXED;
    remember(cache.offsetByHour, hour, offset);
  }
  if (!Number.isNaN(offset)) return offset;
  const bucket = Math.floor(instantMs / BUCKET_MS);
  offset = cache.offsetByMinute.get(bucket);
  if (offset === undefined) {
    offset = intlOffset(cache, bucket);
    remember(cache.offsetByMinute, bucket, offset);
  }
  return offset;
}

/** The zone's offset at the start of minute `bucket` (ms / BUCKET_MS), from Intl, in minutes. */
function intlOffset(cache: ZoneCache, bucket: number): number {
  const parts = cache.format.formatToParts(new Date(bucket * BUCKET_MS));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  // Years before 1 AD come as 1 BC, 2 BC...: year 0, -1... in the proleptic calendar Date uses.
  const era = parts.find((p) => p.type === 'era')?.value;
  const year = era === 'BC' || era === 'B' ? 1 - get('year') : get('year');
  const asUtcMs = Date.UTC(year, get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  // Date.UTC reads years 0-99 as 1900-1999: a placeholder such as 0001-01-01 would be 1,900 years off.
  const asUtc = year >= 0 && year < 100 ? new Date(asUtcMs).setUTCFullYear(year) : asUtcMs;
  return Math.round((asUtc - bucket * BUCKET_MS) / MINUTE_MS);
}

/** The number two ASCII digits at `i` spell, or -1 when either is not a digit. */
function twoDigits(text: string, i: number): number {
  const a = text.charCodeAt(i) - 48;
  const b = text.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** `-`, `-`, `T`, `:`, `:` of `YYYY-MM-DDTHH:mm:ss`, by position. */
const SEPARATORS: ReadonlyArray<readonly [number, number]> = [
  [4, 45],
  [7, 45],
  [10, 84],
  [13, 58],
  [16, 58],
];

/**
 * naiveMs of the form every record time has (`YYYY-MM-DDTHH:mm:ss`, years from 0100), read without
 * the pattern's captures; NaN for any other text, which naiveMs reads with the pattern.
 */
function plainNaiveMs(local: string): number {
  if (local.length !== 19) return Number.NaN;
  for (const [at, code] of SEPARATORS) if (local.charCodeAt(at) !== code) return Number.NaN;
  const century = twoDigits(local, 0);
  const yy = twoDigits(local, 2);
  const month = twoDigits(local, 5);
  const day = twoDigits(local, 8);
  const hour = twoDigits(local, 11);
  const minute = twoDigits(local, 14);
  const second = twoDigits(local, 17);
  // Years 0-99 (Date.UTC reads them as 1900-1999) are left to naiveMs.
  if (century < 1 || yy < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0)
    return Number.NaN;
  return Date.UTC(century * 100 + yy, month - 1, day, hour, minute, second);
}

/** Milliseconds of a zone-less local string read as if it were UTC ("naive" time). */
export function naiveMs(local: string): number {
  const plain = plainNaiveMs(local);
  if (!Number.isNaN(plain)) return plain;
  const m = LOCAL_PATTERN.exec(local);
  if (!m) throw new InvalidLocalDateTimeError(`not a zone-less date-time: '${local}'`);
  // Truncated to the millisecond: '.9999999' (.NET writes 7 digits) stays inside its second.
  const frac = m[7] ? Number(m[7].slice(1, 4).padEnd(3, '0')) : 0;
  const year = Number(m[1]);
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + frac;
  // Date.UTC reads years 0-99 as 1900-1999: the API's `0001-01-01T00:00:00` ("no date" in .NET) is year 1.
  return year < 100 ? ms - Date.UTC(1900 + year, 0, 1) + yearStartMs(year) : ms;
}

function yearStartMs(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1);
  return d.getTime();
}

export interface LocalToUtcResult {
  readonly instantMs: number;
  readonly flag?: 'gap' | 'ambiguous';
}

/** Local wall time in `zone` -> UTC instant, with the policy described at the top of this file. */
export function localToUtc(local: string, zone: string): LocalToUtcResult {
  const naive = naiveMs(local);
  const cache = zoneCache(zone);
  const hourKey = local.slice(0, 13); // YYYY-MM-DDTHH (one wall-clock hour)
  let rule = cache.localByHour.get(hourKey);
  if (!rule) {
    const start = Math.floor(naive / HOUR_MS) * HOUR_MS;
    const first = resolveLocal(zone, start);
    const last = resolveLocal(zone, start + HOUR_MS - BUCKET_MS);
    const whole = !first.flag && !last.flag && first.offsetMin === last.offsetMin;
    rule = whole ? first : MIXED_READING;
    remember(cache.localByHour, hourKey, rule);
  }
  if (rule === MIXED_READING) {
    const minuteKey = local.slice(0, 16); // YYYY-MM-DDTHH:mm (one wall-clock minute)
    rule = cache.localByMinute.get(minuteKey);
    if (!rule) {
      rule = resolveLocal(zone, naive);
      remember(cache.localByMinute, minuteKey, rule);
    }
  }
  return rule.flag
    ? { instantMs: naive - rule.offsetMin * MINUTE_MS, flag: rule.flag }
    : { instantMs: naive - rule.offsetMin * MINUTE_MS };
}

/**
 * The offset (minutes) that reads naive local milliseconds (`naiveMs`) in `zone` as an instant,
 * with the policy described at the top of this file: in a gap the offset before it (`gap`), in a
 * repeated hour the larger offset, which gives the earlier instant (`ambiguous`). `offsetAt` gives
 * the zone's offsets (the sandbox passes its own cache of them); by default offsetMinutesAt.
 */
export function resolveLocal(
  zone: string,
  naive: number,
  offsetAt: (zone: string, instantMs: number) => number = offsetMinutesAt,
): { offsetMin: number; flag?: 'gap' | 'ambiguous' } {
  const before = offsetAt(zone, naive - 14 * HOUR_MS);
  const after = offsetAt(zone, naive + 14 * HOUR_MS);
  const candidates = before === after ? [before] : [before, after];
  const valid = candidates.filter((o) => offsetAt(zone, naive - o * MINUTE_MS) === o);
  if (valid.length === 0) return { offsetMin: before, flag: 'gap' };
  if (valid.length === 1) return { offsetMin: valid[0]! };
  // Both readings exist: the repeated hour. The earlier instant has the larger offset.
  return { offsetMin: Math.max(...valid), flag: 'ambiguous' };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Formats naive milliseconds as the API's zone-less pattern, whole seconds. */
export function formatNaive(naive: number): string {
  const d = new Date(naive);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** UTC instant -> local wall time in `zone`, in the API's pattern (whole seconds, floored). */
export function utcToLocal(instantMs: number, zone: string): string {
  return formatNaive(Math.floor(instantMs / 1000) * 1000 + offsetMinutesAt(zone, instantMs) * MINUTE_MS);
}

/** UTC instant -> the API's pattern read as UTC. */
export function utcToApiUtc(instantMs: number): string {
  return formatNaive(Math.floor(instantMs / 1000) * 1000);
}

/** The API's zone-less string read as UTC -> instant. */
export function apiUtcToInstant(value: string): number {
  return naiveMs(value);
}

/** ISO 8601 with Z, milliseconds. */
export function isoUtc(instantMs: number): string {
  return new Date(instantMs).toISOString();
}
