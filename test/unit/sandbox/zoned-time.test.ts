import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../../lambdas/common/time-units';
import { formatNaive, nextOffsetChange, parseNaive, TimeZone } from '../../../sandbox/naive-time';

describe('parseNaive / formatNaive', () => {
  it('reads the seed pattern, with and without a fraction', () => {
    expect(parseNaive('2025-03-01T10:20:30')).toBe(Date.UTC(2025, 2, 1, 10, 20, 30));
    expect(parseNaive('2025-03-01T10:20:30.5')).toBe(Date.UTC(2025, 2, 1, 10, 20, 30, 500));
    expect(parseNaive('2025-03-01T10:20:30.1234567')).toBe(Date.UTC(2025, 2, 1, 10, 20, 30, 123));
  });

  it.each([
    '2025-03-01',
    '2025-03-01T10:20:30Z',
    '2025-03-01T10:20:30+10:00',
    '2025-03-01 10:20:30',
    '2025-02-30T00:00:00',
    '2025-13-01T00:00:00',
    '2025-03-01T24:00:00',
    '',
  ])('rejects %j', (text) => {
    expect(parseNaive(text)).toBeUndefined();
  });

  it('formats without offset, optionally with milliseconds', () => {
    const ms = Date.UTC(2025, 0, 2, 3, 4, 5, 67);
    expect(formatNaive(ms)).toBe('2025-01-02T03:04:05');
    expect(formatNaive(ms, true)).toBe('2025-01-02T03:04:05.067');
  });
});

describe('TimeZone', () => {
  const sydney = new TimeZone('Australia/Sydney');
  const newYork = new TimeZone('America/New_York');

  it('converts UTC to local wall time across DST', () => {
    // Sydney: AEDT (+11) in January, AEST (+10) in July.
    expect(formatNaive(sydney.toNaive(Date.UTC(2025, 0, 15, 0, 0, 0)))).toBe('2025-01-15T11:00:00');
    expect(formatNaive(sydney.toNaive(Date.UTC(2025, 6, 15, 0, 0, 0)))).toBe('2025-07-15T10:00:00');
  });

  it('maps a repeated local hour to its earlier instant', () => {
    // New York falls back on 2025-11-02: 01:30 happens at 05:30Z (EDT) and 06:30Z (EST).
    expect(newYork.fromNaive(Date.UTC(2025, 10, 2, 1, 30))).toBe(Date.UTC(2025, 10, 2, 5, 30));
    expect(newYork.toNaive(Date.UTC(2025, 10, 2, 6, 30))).toBe(Date.UTC(2025, 10, 2, 1, 30));
  });

  it('moves a local time in a DST gap forward by the gap', () => {
    // New York springs forward on 2025-03-09: 02:30 does not exist; it reads as 03:30 EDT (07:30Z).
    expect(newYork.fromNaive(Date.UTC(2025, 2, 9, 2, 30))).toBe(Date.UTC(2025, 2, 9, 7, 30));
  });

  it('finds the next offset change', () => {
    expect(nextOffsetChange(newYork, Date.UTC(2025, 9, 1))).toBe(Date.UTC(2025, 10, 2, 6, 0));
    expect(nextOffsetChange(sydney, Date.UTC(2025, 2, 1))).toBe(Date.UTC(2025, 3, 5, 16, 0));
    expect(nextOffsetChange(new TimeZone('UTC'), 0, 30)).toBeUndefined();
  });

  it('knows local day start and hour', () => {
    const at = Date.UTC(2025, 0, 15, 14, 30); // 01:30 next day in Sydney
    expect(formatNaive(sydney.localDayStart(at))).toBe('2025-01-16T00:00:00');
    expect(sydney.localHour(at)).toBe(1);
    expect(sydney.offsetMs(at)).toBe(11 * HOUR_MS);
  });

  it('rejects an unknown zone at construction', () => {
    expect(() => new TimeZone('Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
