/**
 * zoned-time's offset caches: never a stale offset across a transition, whatever order the
 * conversions near it come in, nor one zone's entry for another's (hand-computed UTC instants); and
 * entries kept by the hour, not the minute, with every minute around a transition reading as it does
 * uncached (against an Intl formatter of the test's own). The conversions themselves are tested in
 * zoned-time.test.ts.
 *
 * Transitions used below (local wall times):
 * - Australia/Sydney 2025: DST ends 6 Apr 03:00 AEDT (+11) -> 02:00 AEST (+10); starts 5 Oct
 *   02:00 -> 03:00.
 * - Pacific/Chatham 2025 (transitions at :45): starts 28 Sep 02:45 (+12:45) -> 03:45 (+13:45); ends
 *   6 Apr 03:45 -> 02:45.
 * - America/St_Johns in 2010 (transition at 00:01 local, 03:31 UTC): 14 Mar 00:01 NST (-3:30)
 *   -> 01:01 NDT (-2:30).
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../lambdas/common/seeded-random';
import {
  formatNaive,
  localToUtc,
  offsetMinutesAt,
  resolveLocal,
  utcToLocal,
  zoneCacheEntries,
} from '../../../lambdas/common/zoned-time';

const utc = (iso: string) => Date.parse(iso);

describe('the offset caches never return a stale offset across a transition', () => {
  // Each case converts several times near one transition; the orders differ so that whichever
  // value fills a cache entry first, the others must still come out right.
  const sydneyLocal: [string, string, 'gap' | 'ambiguous' | undefined][] = [
    ['2025-10-05T01:55:00', '2025-10-04T15:55:00Z', undefined],
    ['2025-10-05T02:05:00', '2025-10-04T16:05:00Z', 'gap'],
    ['2025-10-05T03:05:00', '2025-10-04T16:05:00Z', undefined],
    ['2025-04-06T01:55:00', '2025-04-05T14:55:00Z', undefined],
    ['2025-04-06T02:05:00', '2025-04-05T15:05:00Z', 'ambiguous'],
    ['2025-04-06T03:05:00', '2025-04-05T17:05:00Z', undefined],
  ];
  const orders = [
    [0, 1, 2, 3, 4, 5],
    [5, 4, 3, 2, 1, 0],
    [2, 0, 4, 1, 5, 3],
    [1, 4, 0, 3, 2, 5],
  ];

  it.each(orders)('Sydney local -> UTC in order %s,%s,%s,%s,%s,%s', (...order) => {
    for (const i of order) {
      const [local, expected, flag] = sydneyLocal[i]!;
      expect(localToUtc(local, 'Australia/Sydney')).toEqual(
        flag ? { instantMs: utc(expected), flag } : { instantMs: utc(expected) },
      );
    }
  });

  it.each([
    ['before first', ['2025-09-28T02:40:00', '2025-09-28T02:47:00']],
    ['gap first', ['2025-09-28T02:47:00', '2025-09-28T02:40:00']],
  ])('Chatham: a gap starting at :45 (%s)', (_order, locals) => {
    const expected: Record<string, { instantMs: number; flag?: 'gap' }> = {
      '2025-09-28T02:40:00': { instantMs: utc('2025-09-27T13:55:00Z') },
      '2025-09-28T02:47:00': { instantMs: utc('2025-09-27T14:02:00Z'), flag: 'gap' },
    };
    for (const local of locals) expect(localToUtc(local, 'Pacific/Chatham')).toEqual(expected[local]);
  });

  it.each([
    ['ambiguous first', ['2025-04-06T02:46:00', '2025-04-06T02:44:00']],
    ['before first', ['2025-04-06T02:44:00', '2025-04-06T02:46:00']],
  ])('Chatham: a repeated hour starting at :45 (%s)', (_order, locals) => {
    const expected: Record<string, { instantMs: number; flag?: 'ambiguous' }> = {
      '2025-04-06T02:44:00': { instantMs: utc('2025-04-05T12:59:00Z') },
      '2025-04-06T02:46:00': { instantMs: utc('2025-04-05T13:01:00Z'), flag: 'ambiguous' },
    };
    for (const local of locals) expect(localToUtc(local, 'Pacific/Chatham')).toEqual(expected[local]);
  });

  it.each([
    ['before first', ['2010-03-14T03:30:30Z', '2010-03-14T03:35:00Z']],
    ['after first', ['2010-03-14T03:35:00Z', '2010-03-14T03:30:30Z']],
  ])('St Johns 2010: a transition at 03:31 UTC (%s)', (_order, instants) => {
    const expected: Record<string, [string, number]> = {
      '2010-03-14T03:30:30Z': ['2010-03-14T00:00:30', -210],
      '2010-03-14T03:35:00Z': ['2010-03-14T01:05:00', -150],
    };
    for (const instant of instants) {
      const [local, offset] = expected[instant]!;
      expect(offsetMinutesAt('America/St_Johns', utc(instant))).toBe(offset);
      expect(utcToLocal(utc(instant), 'America/St_Johns')).toBe(local);
    }
  });

  it('UTC -> local alternating either side of the Sydney transitions', () => {
    const cases: [string, string][] = [
      ['2025-10-04T16:00:00Z', '2025-10-05T03:00:00'],
      ['2025-10-04T15:59:59Z', '2025-10-05T01:59:59'],
      ['2025-10-04T16:09:59Z', '2025-10-05T03:09:59'],
      ['2025-10-04T15:50:00Z', '2025-10-05T01:50:00'],
      ['2025-04-05T16:00:00Z', '2025-04-06T02:00:00'],
      ['2025-04-05T15:59:59Z', '2025-04-06T02:59:59'],
      ['2025-04-05T16:05:00Z', '2025-04-06T02:05:00'],
      ['2025-04-05T15:55:00Z', '2025-04-06T02:55:00'],
    ];
    for (const [instant, local] of [...cases, ...cases.reverse()])
      expect(utcToLocal(utc(instant), 'Australia/Sydney')).toBe(local);
  });

  it('the same wall time in two zones does not share a cache entry', () => {
    expect(localToUtc('2025-07-01T12:00:00', 'Australia/Sydney').instantMs).toBe(utc('2025-07-01T02:00:00Z'));
    expect(localToUtc('2025-07-01T12:00:00', 'America/New_York').instantMs).toBe(utc('2025-07-01T16:00:00Z'));
    expect(localToUtc('2025-07-01T12:00:00', 'Australia/Sydney').instantMs).toBe(utc('2025-07-01T02:00:00Z'));
  });
});

describe('the offset caches hold hours, not minutes', () => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;

  /** The zone's offset at the start of an instant's minute, from a formatter of its own (no cache). */
  const intlOffset = (zone: string) => {
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    return (_zone: string, instantMs: number) => {
      const at = Math.floor(instantMs / MINUTE) * MINUTE;
      const parts = format.formatToParts(new Date(at));
      const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
      const wall = Date.UTC(
        get('year'),
        get('month') - 1,
        get('day'),
        get('hour'),
        get('minute'),
        get('second'),
      );
      return Math.round((wall - at) / MINUTE);
    };
  };

  it('a month of every minute, both ways, keeps about two entries an hour', () => {
    // January 2025 in Kolkata: no transition, a half-hour offset.
    const zone = 'Asia/Kolkata';
    const from = utc('2025-01-01T00:00:00Z');
    const hours = 31 * 24;
    for (let at = from; at < from + hours * HOUR; at += MINUTE) {
      expect(localToUtc(utcToLocal(at, zone), zone).instantMs).toBe(at);
    }
    // An offset and a local reading an hour, and the offsets 14 hours either side a reading asks for.
    expect(zoneCacheEntries(zone)).toBeLessThanOrEqual(2 * hours + 2 * 30);
  });

  it.each([
    ['Australia/Sydney', ['2025-04-05T16:00:00Z', '2025-10-04T16:00:00Z']],
    ['Australia/Lord_Howe', ['2025-04-05T15:00:00Z', '2025-10-04T15:30:00Z']],
    ['Pacific/Chatham', ['2025-04-05T14:00:00Z', '2025-09-27T14:00:00Z']],
    ['America/St_Johns', ['2010-03-14T03:31:00Z']],
    ['America/New_York', ['2025-03-09T07:00:00Z', '2025-11-02T06:00:00Z']],
    ['Europe/London', ['2025-03-30T01:00:00Z', '2025-10-26T01:00:00Z']],
  ])(
    '%s: every minute of the hours around a transition reads as it does uncached, in any order',
    (zone, transitions) => {
      // The reading policy is resolveLocal's (tested in zoned-time.test.ts by hand-computed
      // instants); here its offsets come from a formatter of the test's own, minute by minute, so
      // only the caches differ.
      const reference = intlOffset(zone);
      const random = mulberry32(zone.length);
      const around = (center: number) => {
        const minutes = Array.from({ length: 6 * 60 + 1 }, (_, i) => center - 3 * HOUR + i * MINUTE);
        return minutes.sort(() => random() - 0.5).map((m) => m + Math.floor(random() * 60) * 1000);
      };
      for (const transition of transitions.map(utc)) {
        for (const at of around(transition)) expect(offsetMinutesAt(zone, at)).toBe(reference(zone, at));
        // Wall times around the transition's, gap and repeated hour included.
        for (const naive of around(transition + reference(zone, transition - MINUTE) * MINUTE)) {
          const want = resolveLocal(zone, naive, reference);
          const instantMs = naive - want.offsetMin * MINUTE;
          expect(localToUtc(formatNaive(naive), zone)).toEqual(
            want.flag ? { instantMs, flag: want.flag } : { instantMs },
          );
        }
      }
    },
  );
});
