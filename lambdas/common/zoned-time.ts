/**
 * Conversion between the API's zone-less local date-times and UTC instants, for an IANA time zone.
 *
 * Policy, explicit because the API gives no offset:
 * - A local time inside a repeated hour (DST ends) is ambiguous: it maps to the EARLIER instant,
 *   and `ambiguous` is reported. For watermarks the earlier instant is the conservative choice.
 * - A local time inside a gap (DST starts) does not exist: it is read with the offset in force
 *   before the gap (02:30 in a 02:00->03:00 gap becomes 03:30 daylight time), and `gap` is reported.
 * Offsets come from Intl (the runtime's tz database) and are cached per minute (of UTC for
 * instants, of wall time for local values), so the hot path of a poll is a Map lookup. Transitions
 * happen on whole minutes but not only on :00/:30 (Pacific/Chatham at :45, America/St_Johns until
 * 2011 at 00:01 local = 03:31 UTC), so a coarser bucket could straddle one and serve a stale offset.
 * Each cache is cleared when it grows past MAX_CACHE_ENTRIES, so a long-running process stays bounded.
 */

const LOCAL_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;
const BUCKET_MS = 60_000;
const MAX_CACHE_ENTRIES = 50_000;
const HOUR_MS = 3_600_000;

export class InvalidTimeZoneError extends Error {
  override readonly name = 'InvalidTimeZoneError';
}
export class InvalidLocalDateTimeError extends Error {
  override readonly name = 'InvalidLocalDateTimeError';
}

interface ZoneCache {
  readonly format: Intl.DateTimeFormat;
  readonly offsetByBucket: Map<number, number>;
  readonly localByBucket: Map<string, { offsetMin: number; flag?: 'gap' | 'ambiguous' }>;
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
    cache = { format, offsetByBucket: new Map(), localByBucket: new Map() };
    zones.set(zone, cache);
  }
  return cache;
}

/** Throws InvalidTimeZoneError unless `zone` is an IANA zone the runtime knows. */
export function assertTimeZone(zone: string): void {
  zoneCache(zone);
}

/** Offset of `zone` from UTC at `instantMs`, in minutes (Sydney in summer: +660). */
export function offsetMinutesAt(zone: string, instantMs: number): number {
  const cache = zoneCache(zone);
  const bucket = Math.floor(instantMs / BUCKET_MS);
  const hit = cache.offsetByBucket.get(bucket);
  if (hit !== undefined) return hit;
  const parts = cache.format.formatToParts(new Date(bucket * BUCKET_MS));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  // Years before 1 AD come as 1 BC, 2 BC...: year 0, -1... in the proleptic calendar Date uses.
  const era = parts.find((p) => p.type === 'era')?.value;
  const year = era === 'BC' || era === 'B' ? 1 - get('year') : get('year');
  const asUtcMs = Date.UTC(year, get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  // Date.UTC reads years 0-99 as 1900-1999: a placeholder such as 0001-01-01 would be 1,900 years off.
  const asUtc = year >= 0 && year < 100 ? new Date(asUtcMs).setUTCFullYear(year) : asUtcMs;
  const offset = Math.round((asUtc - bucket * BUCKET_MS) / 60_000);
  if (cache.offsetByBucket.size >= MAX_CACHE_ENTRIES) cache.offsetByBucket.clear();
  cache.offsetByBucket.set(bucket, offset);
  return offset;
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
  const key = local.slice(0, 16); // YYYY-MM-DDTHH:mm (one wall-clock minute)
  let rule = cache.localByBucket.get(key);
  if (!rule) {
    rule = resolveLocal(zone, naive);
    if (cache.localByBucket.size >= MAX_CACHE_ENTRIES) cache.localByBucket.clear();
    cache.localByBucket.set(key, rule);
  }
  return rule.flag
    ? { instantMs: naive - rule.offsetMin * 60_000, flag: rule.flag }
    : { instantMs: naive - rule.offsetMin * 60_000 };
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
  const valid = candidates.filter((o) => offsetAt(zone, naive - o * 60_000) === o);
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
  return formatNaive(Math.floor(instantMs / 1000) * 1000 + offsetMinutesAt(zone, instantMs) * 60_000);
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
