/**
 * The demo's status lines show one clock: the simulated one (the clock event times come from),
 * labelled, in the club's zone; never the wall clock of the machine.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { statusHeading, statusLine } from '../../../cli/demo-output';

const SIM = Date.parse('2026-11-22T19:14:05Z'); // 06:14:05 in Sydney (UTC+11)
const club = { clubId: 'club-1', timeZone: 'Australia/Sydney' };
const report = { outcome: 'ok' as const, failures: [], requests: 9 };

afterEach(() => {
  vi.useRealTimers();
});

describe('start status line', () => {
  it('shows the simulated time in the club zone, labelled, with the counts', () => {
    const line = statusLine(club, report, 12, SIM);
    expect(line).toContain('simulated 2026-11-23 06:14:05 Australia/Sydney');
    expect(line).toContain('12 events');
    expect(line).toContain('9 API requests last poll');
    expect(line).not.toMatch(/real/);
  });

  it('does not depend on the wall clock', () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.parse('2031-01-01T03:04:05Z'));
    const line = statusLine(club, report, 0, SIM);
    expect(line).not.toMatch(/03:04|14:04|2031/);
    expect(line).toContain('06:14:05');
  });

  it('names failures and says starting before the first report', () => {
    expect(statusLine(club, undefined, 0, SIM)).toBe('club-1: starting');
    const failed = statusLine(
      club,
      {
        outcome: 'failed',
        failures: [{ source: 'visits', kind: 'unavailable', message: 'HTTP 503' }],
        requests: 1,
      },
      0,
      SIM,
    );
    expect(failed).toContain('visits: unavailable');
  });

  it('heads the lines with the simulated UTC time, labelled', () => {
    expect(statusHeading(SIM, 40)).toBe('-- simulated 2026-11-22 19:14:05 UTC, 40 events so far');
  });
});
