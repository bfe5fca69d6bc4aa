/**
 * record-time: how a source's declared zone turns API date-times into instants and instants into
 * filter values. Expectations are hand-computed (Sydney: +10 in June, +11 in January; the 2025
 * repeated hour is 02:00-02:59 on 6 April, first as +11 then as +10).
 */
import { describe, expect, it } from 'vitest';
import { localToUtc } from '../../../lambdas/common/zoned-time';
import { effectiveZone, occurrence, toFilterValue, toInstant } from '../../../lambdas/sources/record-time';
import type { ClubContext } from '../../../lambdas/sources/source';
import { sydney, sydneyUtc, utc } from './fixtures';

describe('effectiveZone', () => {
  it.each([
    ['local', sydney, 'local'],
    ['utc', sydney, 'utc'],
    ['unstated', sydney, 'local'],
    ['unstated', sydneyUtc, 'utc'],
    ['local', sydneyUtc, 'local'],
    ['utc', sydneyUtc, 'utc'],
  ] as const)('%s with unstatedZone %o -> %s', (zone, ctx, expected) => {
    expect(effectiveZone(zone, ctx)).toBe(expected);
  });
});

describe('toInstant', () => {
  it.each([
    ['local', sydney, '2025-06-01T06:00:00', '2025-05-31T20:00:00Z'],
    ['local', sydney, '2025-01-15T06:00:00', '2025-01-14T19:00:00Z'],
    ['utc', sydney, '2025-06-01T06:00:00', '2025-06-01T06:00:00Z'],
    ['unstated', sydney, '2025-06-01T06:00:00', '2025-05-31T20:00:00Z'],
    ['unstated', sydneyUtc, '2025-06-01T06:00:00', '2025-06-01T06:00:00Z'],
  ] as const)('%s (%o) %s -> %s', (zone, ctx, value, expected) => {
    expect(toInstant(value, zone, ctx)).toBe(utc(expected));
  });
});

describe('occurrence', () => {
  it('local values keep the original as occurredAtLocal', () => {
    expect(occurrence('2025-06-01T06:00:00', 'local', sydney)).toEqual({
      occurredAt: '2025-05-31T20:00:00.000Z',
      occurredAtLocal: '2025-06-01T06:00:00',
    });
  });

  it('UTC values have no local value', () => {
    expect(occurrence('2025-06-01T06:00:00', 'utc', sydney)).toEqual({
      occurredAt: '2025-06-01T06:00:00.000Z',
    });
  });

  it('a missing value is the observation time', () => {
    for (const value of [null, undefined, '']) {
      expect(occurrence(value, 'local', sydney)).toEqual({ occurredAt: '2025-06-02T00:00:00.000Z' });
    }
  });
});

describe('toFilterValue', () => {
  it.each([
    ['local', sydney, '2025-05-31T20:00:00Z', '2025-06-01T06:00:00'],
    ['local', sydney, '2025-01-14T19:00:00.900Z', '2025-01-15T06:00:00'],
    ['utc', sydney, '2025-06-01T06:00:00.900Z', '2025-06-01T06:00:00'],
    ['unstated', sydney, '2025-05-31T20:00:00Z', '2025-06-01T06:00:00'],
    ['unstated', sydneyUtc, '2025-05-31T20:00:00Z', '2025-05-31T20:00:00'],
  ] as const)('%s (%o) %s -> %s', (zone, ctx, instant, expected) => {
    expect(toFilterValue(utc(instant), zone, ctx)).toBe(expected);
  });

  it('in the repeated hour, the first 02:30 steps back before the hour (the API may read 02:30 as the second)', () => {
    // 15:30Z is the first 02:30 (+11); the API could read '02:30' as 16:30Z and skip an hour.
    expect(toFilterValue(utc('2025-04-05T15:30:00Z'), 'local', sydney)).toBe('2025-04-06T01:30:00');
    // 16:30Z is the second 02:30 (+10): either reading of '02:30' is at or before it.
    expect(toFilterValue(utc('2025-04-05T16:30:00Z'), 'local', sydney)).toBe('2025-04-06T02:30:00');
  });

  const zones: [string, string][] = [
    ['Australia/Sydney', '2025-04-05T13:00:00Z'],
    ['America/New_York', '2025-11-02T04:00:00Z'],
    ['Europe/London', '2025-10-25T23:00:00Z'],
    ['Australia/Lord_Howe', '2025-04-05T13:00:00Z'],
  ];

  it.each(zones)('%s: no filter value can be read as later than its instant', (timeZone, from) => {
    const ctx: ClubContext = { ...sydney, timeZone };
    for (let minutes = 0; minutes <= 4 * 60; minutes += 5) {
      const instant = utc(from) + minutes * 60_000;
      const value = toFilterValue(instant, 'local', ctx);
      const reading = localToUtc(value, timeZone);
      // Unambiguous, or the later of its two readings is the instant itself.
      if (reading.flag === 'ambiguous') {
        expect(reading.instantMs).toBeLessThan(instant);
        expect(toFilterValue(reading.instantMs, 'local', ctx)).not.toBe(value);
      } else {
        expect(reading.instantMs).toBeLessThanOrEqual(instant);
      }
      // Never more than the repeated hour (and a step) before the instant.
      expect(instant - reading.instantMs).toBeLessThanOrEqual(90 * 60_000);
    }
  });
});
