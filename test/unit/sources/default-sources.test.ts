import { describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../../lambdas/clubs/club-config';
import {
  DEFAULT_SOURCES,
  enabledSources,
  isExperimentalSource,
  SOURCE_ORDER,
  SOURCES,
} from '../../../lambdas/sources';

const club = (extra: Record<string, unknown> = {}) =>
  parseClubsFile({
    clubs: [
      {
        clubId: 'club-1',
        baseUrl: 'https://api.example.test/v1',
        timeZone: 'Australia/Sydney',
        plan: 'basic',
        credentials: { username: 'u', password: 'p', apiKey: 'k' },
        ...extra,
      },
    ],
  })[0]!;

describe('default sources', () => {
  it('are every source but the experimental ones, in poll order', () => {
    expect(SOURCES.classAttendance.experimental).toBe(true);
    expect(isExperimentalSource('classAttendance')).toBe(true);
    expect(isExperimentalSource('members')).toBe(false);
    expect(DEFAULT_SOURCES).toEqual(SOURCE_ORDER.filter((s) => s !== 'classAttendance'));
  });

  it('a club without `sources` polls the defaults; a club that lists classAttendance polls it', () => {
    expect(enabledSources(club())).toEqual(DEFAULT_SOURCES);
    expect(enabledSources(club({ sources: ['classAttendance', 'visits'] }))).toEqual([
      'visits',
      'classAttendance',
    ]);
  });
});
