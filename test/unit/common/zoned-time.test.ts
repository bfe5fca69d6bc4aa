/**
 * zoned-time: local wall time <-> UTC for IANA zones: ordinary times, placeholder dates, the DST gap
 * and the repeated hour, round trips, fractional seconds, malformed input and unknown zones, the UTC
 * helpers. Every expectation is a hand-computed UTC instant (the zone's offset on that date, from the
 * tz database's published rules), never the output of the function under test. Its offset caches are
 * tested in zoned-time-cache.test.ts.
 *
 * 2025 transitions used below (local wall times):
 * - Australia/Sydney: DST ends 6 Apr 03:00 AEDT (+11) -> 02:00 AEST (+10); starts 5 Oct 02:00 -> 03:00.
 * - America/New_York: starts 9 Mar 02:00 EST (-5) -> 03:00 EDT (-4); ends 2 Nov 02:00 -> 01:00.
 * - Europe/London: starts 30 Mar 01:00 GMT -> 02:00 BST (+1); ends 26 Oct 02:00 -> 01:00.
 * - Australia/Lord_Howe (30-minute DST): ends 6 Apr 02:00 (+11) -> 01:30 (+10:30); starts 5 Oct
 *   02:00 -> 02:30.
 * - Pacific/Chatham (transitions at :45): starts 28 Sep 02:45 (+12:45) -> 03:45 (+13:45); ends
 *   6 Apr 03:45 -> 02:45.
 */
import { describe, expect, it } from 'vitest';
import {
  apiUtcToInstant,
  assertTimeZone,
  formatNaive,
  InvalidLocalDateTimeError,
  InvalidTimeZoneError,
  isoUtc,
  localToUtc,
  naiveMs,
  offsetMinutesAt,
  utcToApiUtc,
  utcToLocal,
} from '../../../lambdas/common/zoned-time';

const utc = (iso: string) => Date.parse(iso);

describe('localToUtc: ordinary times (no transition near)', () => {
  it.each([
    ['Australia/Sydney', '2025-01-15T09:30:00', '2025-01-14T22:30:00Z'], // AEDT +11
    ['Australia/Sydney', '2025-07-01T12:00:00', '2025-07-01T02:00:00Z'], // AEST +10
    ['Australia/Sydney', '2025-06-01T00:00:00', '2025-05-31T14:00:00Z'], // midnight crosses the date
    ['America/New_York', '2025-01-15T09:30:00', '2025-01-15T14:30:00Z'], // EST -5
    ['America/New_York', '2025-07-04T21:00:00', '2025-07-05T01:00:00Z'], // EDT -4, crosses the date
    ['Europe/London', '2025-01-15T09:30:00', '2025-01-15T09:30:00Z'], // GMT
    ['Europe/London', '2025-07-01T12:00:00', '2025-07-01T11:00:00Z'], // BST +1
    ['Australia/Lord_Howe', '2025-07-01T12:00:00', '2025-07-01T01:30:00Z'], // +10:30
    ['Australia/Lord_Howe', '2025-01-15T09:30:00', '2025-01-14T22:30:00Z'], // +11
    ['UTC', '2025-03-30T01:30:00', '2025-03-30T01:30:00Z'],
    ['UTC', '2024-02-29T23:59:59', '2024-02-29T23:59:59Z'],
  ])('%s %s -> %s, unflagged', (zone, local, expected) => {
    const result = localToUtc(local, zone);
    expect(result.instantMs).toBe(utc(expected));
    expect(result.flag).toBeUndefined();
  });
});

describe('localToUtc: placeholder dates (years 1-100, as .NET writes "no date")', () => {
  // Zones then kept local mean time (Sydney +10:05, New York -4:56): within 15 hours of the naive
  // reading, never 1,900 years off (Date.UTC reads years 0-99 as 1900-1999) nor a year (1 BC).
  it.each([
    ['Australia/Sydney', '0001-01-01T00:00:00'],
    ['Australia/Sydney', '0100-01-01T00:00:00'],
    ['America/New_York', '0001-01-01T00:00:00'],
    ['America/New_York', '0099-12-31T23:00:00'],
  ])('%s %s', (zone, local) => {
    const naive = Date.parse(`${local}Z`);
    const { instantMs } = localToUtc(local, zone);
    expect(Math.abs(instantMs - naive)).toBeLessThan(15 * 3_600_000);
    expect(offsetMinutesAt(zone, instantMs) * 60_000).toBe(naive - instantMs);
  });
});

describe('localToUtc: the DST gap (a local time that does not exist)', () => {
  it.each([
    // Read with the offset in force before the gap: 02:30 becomes 03:30 daylight time.
    ['Australia/Sydney', '2025-10-05T02:30:00', '2025-10-04T16:30:00Z'],
    ['Australia/Sydney', '2025-10-05T02:00:00', '2025-10-04T16:00:00Z'],
    ['Australia/Sydney', '2025-10-05T02:59:59', '2025-10-04T16:59:59Z'],
    ['America/New_York', '2025-03-09T02:30:00', '2025-03-09T07:30:00Z'],
    ['Europe/London', '2025-03-30T01:30:00', '2025-03-30T01:30:00Z'],
    ['Australia/Lord_Howe', '2025-10-05T02:15:00', '2025-10-04T15:45:00Z'],
    ['Pacific/Chatham', '2025-09-28T03:00:00', '2025-09-27T14:15:00Z'],
  ])('%s %s -> %s, flagged gap', (zone, local, expected) => {
    expect(localToUtc(local, zone)).toEqual({ instantMs: utc(expected), flag: 'gap' });
  });

  it.each([
    // The instants on either side of the gap are ordinary.
    ['Australia/Sydney', '2025-10-05T01:59:59', '2025-10-04T15:59:59Z'],
    ['Australia/Sydney', '2025-10-05T03:00:00', '2025-10-04T16:00:00Z'],
    ['America/New_York', '2025-03-09T01:59:59', '2025-03-09T06:59:59Z'],
    ['America/New_York', '2025-03-09T03:00:00', '2025-03-09T07:00:00Z'],
    ['Australia/Lord_Howe', '2025-10-05T01:59:00', '2025-10-04T15:29:00Z'],
    ['Australia/Lord_Howe', '2025-10-05T02:30:00', '2025-10-04T15:30:00Z'],
  ])('%s %s (just outside the gap) -> %s, unflagged', (zone, local, expected) => {
    expect(localToUtc(local, zone)).toEqual({ instantMs: utc(expected) });
  });
});

describe('localToUtc: the repeated hour maps to the EARLIER instant', () => {
  it.each([
    // [zone, local, earlier (daylight) reading, later (standard) reading]
    ['Australia/Sydney', '2025-04-06T02:30:00', '2025-04-05T15:30:00Z', '2025-04-05T16:30:00Z'],
    ['Australia/Sydney', '2025-04-06T02:00:00', '2025-04-05T15:00:00Z', '2025-04-05T16:00:00Z'],
    ['America/New_York', '2025-11-02T01:30:00', '2025-11-02T05:30:00Z', '2025-11-02T06:30:00Z'],
    ['Europe/London', '2025-10-26T01:30:00', '2025-10-26T00:30:00Z', '2025-10-26T01:30:00Z'],
    ['Australia/Lord_Howe', '2025-04-06T01:45:00', '2025-04-05T14:45:00Z', '2025-04-05T15:15:00Z'],
    ['Pacific/Chatham', '2025-04-06T03:00:00', '2025-04-05T13:15:00Z', '2025-04-05T14:15:00Z'],
  ])('%s %s -> %s (not %s), flagged ambiguous', (zone, local, earlier, later) => {
    const result = localToUtc(local, zone);
    expect(result).toEqual({ instantMs: utc(earlier), flag: 'ambiguous' });
    expect(result.instantMs).toBeLessThan(utc(later));
  });

  it.each([
    ['Australia/Sydney', '2025-04-06T01:59:59', '2025-04-05T14:59:59Z'], // before: daylight only
    ['Australia/Sydney', '2025-04-06T03:00:00', '2025-04-05T17:00:00Z'], // after: standard only
    ['America/New_York', '2025-11-02T00:59:59', '2025-11-02T04:59:59Z'],
    ['America/New_York', '2025-11-02T02:00:00', '2025-11-02T07:00:00Z'],
    ['Australia/Lord_Howe', '2025-04-06T01:29:00', '2025-04-05T14:29:00Z'],
    ['Australia/Lord_Howe', '2025-04-06T02:00:00', '2025-04-05T15:30:00Z'],
  ])('%s %s (just outside the repeated hour) -> %s, unflagged', (zone, local, expected) => {
    expect(localToUtc(local, zone)).toEqual({ instantMs: utc(expected) });
  });
});

describe('utcToLocal', () => {
  it.each([
    ['2025-01-14T22:30:00Z', 'Australia/Sydney', '2025-01-15T09:30:00'],
    ['2025-07-01T02:00:00Z', 'Australia/Sydney', '2025-07-01T12:00:00'],
    // Both instants of the repeated hour read as the same wall time.
    ['2025-04-05T15:30:00Z', 'Australia/Sydney', '2025-04-06T02:30:00'],
    ['2025-04-05T16:30:00Z', 'Australia/Sydney', '2025-04-06T02:30:00'],
    // The instant the clocks jump forward.
    ['2025-10-04T15:59:59Z', 'Australia/Sydney', '2025-10-05T01:59:59'],
    ['2025-10-04T16:00:00Z', 'Australia/Sydney', '2025-10-05T03:00:00'],
    ['2025-03-09T06:59:59Z', 'America/New_York', '2025-03-09T01:59:59'],
    ['2025-03-09T07:00:00Z', 'America/New_York', '2025-03-09T03:00:00'],
    ['2025-10-26T00:59:59Z', 'Europe/London', '2025-10-26T01:59:59'],
    ['2025-10-26T01:00:00Z', 'Europe/London', '2025-10-26T01:00:00'],
    ['2025-10-04T15:29:59Z', 'Australia/Lord_Howe', '2025-10-05T01:59:59'],
    ['2025-10-04T15:30:00Z', 'Australia/Lord_Howe', '2025-10-05T02:30:00'],
    ['2025-04-05T14:59:59Z', 'Australia/Lord_Howe', '2025-04-06T01:59:59'],
    ['2025-04-05T15:00:00Z', 'Australia/Lord_Howe', '2025-04-06T01:30:00'],
    ['2025-06-30T23:59:59Z', 'UTC', '2025-06-30T23:59:59'],
  ])('%s in %s -> %s', (instant, zone, expected) => {
    expect(utcToLocal(utc(instant), zone)).toBe(expected);
  });

  it('floors fractional seconds to whole seconds', () => {
    expect(utcToLocal(utc('2025-07-01T02:00:00.999Z'), 'Australia/Sydney')).toBe('2025-07-01T12:00:00');
  });
});

describe('round trips', () => {
  const zones = ['Australia/Sydney', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'UTC'];

  it.each(zones)('%s: every 7 minutes across the 2025 transitions, UTC -> local -> UTC', (zone) => {
    // Around each transition, every instant has one wall time, and the wall time maps back to it,
    // except in the repeated hour, where the later instant maps back to the earlier one.
    const starts = [
      '2025-04-05T10:00:00Z', // Sydney and Lord Howe, end of DST
      '2025-10-04T10:00:00Z', // Sydney and Lord Howe, start of DST
      '2025-03-08T22:00:00Z', // New York, start
      '2025-11-01T22:00:00Z', // New York, end
      '2025-03-29T20:00:00Z', // London, start
      '2025-10-25T20:00:00Z', // London, end
    ];
    for (const start of starts) {
      for (let i = 0; i < (12 * 60) / 7; i++) {
        const instant = utc(start) + i * 7 * 60_000;
        const local = utcToLocal(instant, zone);
        const back = localToUtc(local, zone);
        expect(back.flag).not.toBe('gap');
        if (back.flag === 'ambiguous') {
          expect([instant, instant - 3_600_000, instant - 1_800_000]).toContain(back.instantMs);
          expect(back.instantMs).toBeLessThanOrEqual(instant);
        } else {
          expect(back.instantMs).toBe(instant);
        }
      }
    }
  });

  it('local -> UTC -> local is the identity outside the gap', () => {
    for (const local of ['2025-01-15T09:30:00', '2025-07-01T12:00:00', '2025-04-06T02:30:00']) {
      expect(utcToLocal(localToUtc(local, 'Australia/Sydney').instantMs, 'Australia/Sydney')).toBe(local);
    }
  });

  it('a gap time comes back as the shifted wall time', () => {
    const back = utcToLocal(
      localToUtc('2025-10-05T02:30:00', 'Australia/Sydney').instantMs,
      'Australia/Sydney',
    );
    expect(back).toBe('2025-10-05T03:30:00');
  });
});

describe('fractional seconds', () => {
  it.each([
    ['2025-07-01T12:00:00.5', '2025-07-01T02:00:00.500Z'],
    ['2025-07-01T12:00:00.123', '2025-07-01T02:00:00.123Z'],
    ['2025-07-01T12:00:00.1234567', '2025-07-01T02:00:00.123Z'],
    ['2025-07-01T12:00:00.001', '2025-07-01T02:00:00.001Z'],
    // .NET writes 7 digits: a time late in a second stays in that second.
    ['2025-07-01T12:00:00.9999999', '2025-07-01T02:00:00.999Z'],
    ['2025-07-01T12:00:00.9995', '2025-07-01T02:00:00.999Z'],
  ])('%s (Sydney) -> %s', (local, expected) => {
    expect(localToUtc(local, 'Australia/Sydney').instantMs).toBe(utc(expected));
  });

  it('keeps a fraction inside its second when formatted back', () => {
    const instant = localToUtc('2025-07-01T12:00:59.9999999', 'Australia/Sydney').instantMs;
    expect(utcToLocal(instant, 'Australia/Sydney')).toBe('2025-07-01T12:00:59');
    expect(utcToApiUtc(apiUtcToInstant('2025-07-01T23:59:59.9999999'))).toBe('2025-07-01T23:59:59');
  });
});

describe('errors', () => {
  it.each(['Mars/Olympus_Mons', 'Australia/Sidney', '', 'GMT+25'])(
    'unknown zone %j -> InvalidTimeZoneError naming the zone',
    (zone) => {
      expect(() => localToUtc('2025-07-01T12:00:00', zone)).toThrow(InvalidTimeZoneError);
      expect(() => utcToLocal(0, zone)).toThrow(InvalidTimeZoneError);
      expect(() => assertTimeZone(zone)).toThrow(`'${zone}'`);
    },
  );

  it('accepts the zones the tests use', () => {
    for (const zone of [
      'Australia/Sydney',
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'UTC',
    ])
      expect(() => assertTimeZone(zone)).not.toThrow();
  });

  it.each([
    '2025-07-01',
    '2025-07-01T12:00',
    '2025-07-01 12:00:00',
    '2025-07-01T12:00:00Z',
    '2025-07-01T12:00:00+10:00',
    '2025-7-01T12:00:00',
    '2025-07-01T12:00:00.',
    ' 2025-07-01T12:00:00',
    'yesterday',
    '',
  ])('malformed local %j -> InvalidLocalDateTimeError', (local) => {
    expect(() => localToUtc(local, 'Australia/Sydney')).toThrow(InvalidLocalDateTimeError);
    expect(() => naiveMs(local)).toThrow(InvalidLocalDateTimeError);
    expect(() => apiUtcToInstant(local)).toThrow(InvalidLocalDateTimeError);
  });
});

describe('the UTC helpers', () => {
  it('apiUtcToInstant reads the zone-less value as UTC; utcToApiUtc writes it back', () => {
    expect(apiUtcToInstant('2025-06-01T06:00:00')).toBe(utc('2025-06-01T06:00:00Z'));
    expect(utcToApiUtc(utc('2025-06-01T06:00:00.750Z'))).toBe('2025-06-01T06:00:00');
  });

  it('formatNaive pads every field; isoUtc has Z and milliseconds', () => {
    expect(formatNaive(utc('0999-01-02T03:04:05Z'))).toBe('0999-01-02T03:04:05');
    expect(isoUtc(utc('2025-06-01T06:00:00Z'))).toBe('2025-06-01T06:00:00.000Z');
  });

  it('offsetMinutesAt gives the offset in minutes, east positive', () => {
    expect(offsetMinutesAt('Australia/Sydney', utc('2025-01-15T00:00:00Z'))).toBe(660);
    expect(offsetMinutesAt('Australia/Lord_Howe', utc('2025-07-01T00:00:00Z'))).toBe(630);
    expect(offsetMinutesAt('America/New_York', utc('2025-07-01T00:00:00Z'))).toBe(-240);
    expect(offsetMinutesAt('UTC', utc('2025-07-01T00:00:00Z'))).toBe(0);
  });
});
