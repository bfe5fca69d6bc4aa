/**
 * CLI flags: `--backfill-from` parsing, parseFlags/intFlag errors. The usage errors of the real CLI
 * as a child process are in test/integration/cli/poll-flags.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { CliUsageError, intFlag, parseFlags } from '../../../cli/args';
import { backfillInstant } from '../../../cli/commands/poll';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';

const club = (timeZone: string): ClubConfig => ({
  clubId: 'club-1',
  baseUrl: 'http://127.0.0.1:4010/v1',
  timeZone,
  plan: 'basic',
  credentials: { username: 'u', password: 'p', apiKey: 'k' },
  enabled: true,
  piiPolicy: 'minimal',
  unstatedZone: 'local',
  unstatedZoneConfirmed: false,
});
const sydney = club('Australia/Sydney');
const newYork = club('America/New_York');
const utc = (iso: string) => Date.parse(iso);

describe('backfillInstant', () => {
  it.each([
    // Club-local wall times: Sydney +10 in June, +11 in January; New York -4 in June.
    ['2025-06-01T06:00:00', sydney, '2025-05-31T20:00:00Z'],
    ['2025-01-15T06:00:00', sydney, '2025-01-14T19:00:00Z'],
    ['2025-06-01T06:00:00', newYork, '2025-06-01T10:00:00Z'],
    ['2025-06-01T06:00:00.250', sydney, '2025-05-31T20:00:00.250Z'],
    // A date alone is the club's local midnight.
    ['2025-06-01', sydney, '2025-05-31T14:00:00Z'],
    ['2025-01-15', sydney, '2025-01-14T13:00:00Z'],
    ['2025-06-01', newYork, '2025-06-01T04:00:00Z'],
    // An instant: the club's zone does not matter.
    ['2025-06-01T06:00:00Z', sydney, '2025-06-01T06:00:00Z'],
    ['2025-06-01T06:00:00Z', newYork, '2025-06-01T06:00:00Z'],
    ['2025-06-01T06:00Z', sydney, '2025-06-01T06:00:00Z'],
    ['2025-06-01T06:00:00+10:00', newYork, '2025-05-31T20:00:00Z'],
    ['2025-06-01T06:00:00.5-04:00', sydney, '2025-06-01T10:00:00.500Z'],
    ['2024-02-29T12:00:00Z', sydney, '2024-02-29T12:00:00Z'],
  ])('%s for a club in %o -> %s', (value, forClub, expected) => {
    expect(backfillInstant(value, forClub)).toBe(utc(expected));
  });

  it('a local time in the DST gap is read with the offset before the gap', () => {
    // 02:30 does not exist on 5 Oct 2025 in Sydney: read at +10, i.e. 03:30 daylight time.
    expect(backfillInstant('2025-10-05T02:30:00', sydney)).toBe(utc('2025-10-04T16:30:00Z'));
  });

  it.each([
    'yesterday',
    '',
    '2025-06-01 06:00:00',
    '2025/06/01',
    '01-06-2025',
    '2025-06-01T06',
    '2025-06-01T06:00',
    '2025-06-01T06:00:00+1000',
    '2025-06-01T06:00:00 Z',
    '1748757600000',
    // The right shape, but no such date or time.
    '2025-13-01',
    '2025-02-30',
    '2025-02-29T00:00:00',
    '2025-06-01T24:00:00',
    '2025-06-01T06:60:00',
    '2025-13-01T00:00:00Z',
    '2025-02-30T00:00Z',
    '2025-06-01T25:00:00+10:00',
    '2025-06-01T06:00:00+25:00',
  ])('%j -> CliUsageError naming the flag and the value', (value) => {
    expect(() => backfillInstant(value, sydney)).toThrow(CliUsageError);
    expect(() => backfillInstant(value, sydney)).toThrow(`--backfill-from must be`);
    expect(() => backfillInstant(value, sydney)).toThrow(`got '${value}'`);
  });
});

describe('backfillInstant: a start in the future', () => {
  const now = utc('2026-11-23T10:00:00Z');

  it.each([
    '2026-11-23T10:00:01Z',
    '2026-11-24',
    // 21:00:01 in Sydney (+11 in November) is 10:00:01 UTC.
    '2026-11-23T21:00:01',
  ])('%j is refused: nothing to backfill', (value) => {
    expect(() => backfillInstant(value, sydney, now)).toThrow(CliUsageError);
    expect(() => backfillInstant(value, sydney, now)).toThrow('is in the future for club-1');
  });

  it('now itself and anything before it are accepted', () => {
    expect(backfillInstant('2026-11-23T10:00:00Z', sydney, now)).toBe(now);
    expect(backfillInstant('2026-11-23T21:00:00', sydney, now)).toBe(now);
  });
});

describe('parseFlags', () => {
  const SPEC = {
    clubs: { type: 'string' },
    club: { type: 'string', multiple: true },
    once: { type: 'boolean' },
  } as const;
  const HELP = 'usage: test --clubs FILE';

  it('returns the values of known flags', () => {
    expect(parseFlags(['--clubs', 'c.json', '--club', 'a', '--club', 'b', '--once'], SPEC, HELP)).toEqual({
      clubs: 'c.json',
      club: ['a', 'b'],
      once: true,
    });
    expect(parseFlags(['--clubs=c.json'], SPEC, HELP)).toEqual({ clubs: 'c.json' });
  });

  it.each([
    [['--clubz', 'c.json'], "Unknown option '--clubz'"],
    [['--clubs'], "'--clubs' needs a value"],
    [['--clubs', '-x'], "'--clubs' needs a value; a value that starts with a dash goes as --clubs=VALUE"],
    [['c.json'], "unexpected argument 'c.json'"],
    [['--once=yes'], "'--once' takes no value"],
  ])('%j -> CliUsageError naming the problem on one line, pointing at --help', (argv, named) => {
    let error: unknown;
    try {
      parseFlags(argv, SPEC, HELP);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliUsageError);
    const message = (error as Error).message;
    expect(message).toContain(named);
    expect(message).not.toContain('\n');
    expect(message.endsWith('(--help lists the flags)')).toBe(true);
  });

  it('a negative number is the value of the flag before it, not a flag', () => {
    expect(parseFlags(['--clubs', '-5', '--club', '-0.5', '--club', '-.5'], SPEC, HELP)).toEqual({
      clubs: '-5',
      club: ['-0.5', '-.5'],
    });
    // A flag without a value does not take a number as one: --once takes none
    expect(() => parseFlags(['--once', '-5'], SPEC, HELP)).toThrow(CliUsageError);
  });

  it('--help prints the help and returns undefined', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(parseFlags(['--clubs', 'x', '--help'], SPEC, HELP)).toBeUndefined();
      expect(parseFlags(['-h'], SPEC, HELP)).toBeUndefined();
      expect(write).toHaveBeenCalledWith(`${HELP}\n`);
    } finally {
      write.mockRestore();
    }
  });
});

describe('intFlag', () => {
  it.each([
    [undefined, { default: 60 }, 60],
    [undefined, {}, undefined],
    ['0', {}, 0],
    ['42', { min: 1, max: 500 }, 42],
    ['1', { min: 1, max: 500 }, 1],
    ['500', { min: 1, max: 500 }, 500],
    ['-3', {}, -3],
  ])('%j with %o -> %s', (value, opts, expected) => {
    expect(intFlag('page-size', value, opts as { min?: number; max?: number; default?: number })).toBe(
      expected,
    );
  });

  it.each(['1.5', 'abc', '', '1e3', ' 5', '5 ', '0x10', '+5'])('%j is not an integer', (value) => {
    expect(() => intFlag('page-size', value, {})).toThrow(
      new CliUsageError(`--page-size must be an integer, got '${value}'`),
    );
  });

  it('out of range', () => {
    expect(() => intFlag('page-size', '0', { min: 1, max: 500 })).toThrow(
      new CliUsageError('--page-size must be >= 1, got 0'),
    );
    expect(() => intFlag('page-size', '501', { min: 1, max: 500 })).toThrow(
      new CliUsageError('--page-size must be <= 500, got 501'),
    );
  });
});
