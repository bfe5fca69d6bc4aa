/**
 * Local wall-clock arithmetic for the lifecycle rules (docs/lifecycle.md, "Time"): the API gives
 * membership dates, visits and trial ends in gym local time with no offset; "N days after" is the
 * same wall-clock time N calendar days later, turned into an instant only to compare with the
 * clock, with the engine's one reading of local times (common/zoned-time.ts).
 */

import { DAY_MS } from '../../common/time-units';
import { formatNaive, localToUtc, naiveMs, utcToLocal } from '../../common/zoned-time';

/** A local date-time in whole seconds (`2026-03-02T06:00:00`), so that strings sort as time. */
export const normalLocal = (local: string): string => formatNaive(naiveMs(local));

/** The same wall-clock time `days` calendar days later (earlier when negative). */
export const addLocalDays = (local: string, days: number): string =>
  formatNaive(naiveMs(local) + days * DAY_MS);

/** The instant of a local wall-clock time in `zone`. */
export const instantOf = (local: string, zone: string): number => localToUtc(local, zone).instantMs;

/** The later of local times (undefined ones ignored). */
export function latestLocal(...values: (string | null | undefined)[]): string | undefined {
  let latest: string | undefined;
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const n = normalLocal(v);
    if (latest === undefined || n > latest) latest = n;
  }
  return latest;
}

/** Whole local calendar days from the day of `fromLocal` to the day of `toLocal` (negative if before). */
export function calendarDaysBetween(fromLocal: string, toLocal: string): number {
  const day = (local: string) => Math.floor(naiveMs(local) / DAY_MS);
  return day(toLocal) - day(fromLocal);
}

/** Whole days (of wall-clock time) from `fromLocal` to `toLocal`, rounded down. */
export const wholeDaysBetween = (fromLocal: string, toLocal: string): number =>
  Math.floor((naiveMs(toLocal) - naiveMs(fromLocal)) / DAY_MS);

/** The club's local wall-clock time at an instant. */
export const localAt = (instantMs: number, zone: string): string => utcToLocal(instantMs, zone);
