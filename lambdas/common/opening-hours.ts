/**
 * A club's opening hours, `HH:MM-HH:MM` in its local time (a close earlier than the open runs past
 * midnight, `24:00` closes at midnight): the clubs file checks them, the fast lane reads them
 * (engine/schedule/fast-lane.ts).
 */
import { DAY_MS, MINUTE_MS } from './time-units';
import { naiveMs, utcToLocal } from './zoned-time';

export const OPENING_HOURS_RULE = "HH:MM-HH:MM in the club's local time (e.g. 05:30-22:00)";

const PATTERN = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/;

export interface OpeningHours {
  /** Minutes after local midnight. */
  readonly openMinute: number;
  readonly closeMinute: number;
}

/** The range, or a RangeError that states the rule (and quotes the value: it is no secret). */
export function parseOpeningHours(text: string): OpeningHours {
  const m = PATTERN.exec(text);
  if (!m) throw new RangeError(`opening hours must be ${OPENING_HOURS_RULE}, got '${text}'`);
  const openMinute = Number(m[1]) * 60 + Number(m[2]);
  const closeMinute = Number(m[3]) * 60 + Number(m[4]);
  if (closeMinute > 24 * 60)
    throw new RangeError(`opening hours close at 24:00 at the latest, got '${text}'`);
  if (openMinute === closeMinute) {
    throw new RangeError(
      `opening hours open and close at the same time: '${text}' (00:00-24:00 for a club open all day)`,
    );
  }
  return { openMinute, closeMinute };
}

/** Whether the club's local time at `instantMs` falls inside its opening hours. */
export function isOpenAt(hours: OpeningHours, timeZone: string, instantMs: number): boolean {
  const minute = Math.floor((naiveMs(utcToLocal(instantMs, timeZone)) % DAY_MS) / MINUTE_MS);
  const { openMinute, closeMinute } = hours;
  return openMinute < closeMinute
    ? minute >= openMinute && minute < closeMinute
    : minute >= openMinute || minute < closeMinute;
}
