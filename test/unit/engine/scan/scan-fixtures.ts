/** Shared fixtures of the scan modules' unit tests: a club context in UTC and cursors. */
import type { ClubContext } from '../../../../lambdas/sources/source';
import type { Cursor } from '../../../../lambdas/state/store';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const START = Date.parse('2026-03-10T12:00:00.000Z');

export const ctx: ClubContext = {
  clubId: 'club-1',
  timeZone: 'UTC',
  unstatedZone: 'utc',
  unstatedZoneConfirmed: true,
  piiPolicy: 'minimal',
  observedAtMs: START,
};

export function cursor(fields: Partial<Cursor> = {}): Cursor {
  return {
    clubId: 'club-1',
    source: 'visits',
    version: 1,
    baselineDone: false,
    health: { consecutiveFailures: 0 },
    ...fields,
  };
}
