/**
 * A club's configuration for unit tests that never reach its API: one place for the fields every
 * such test repeats (Berlin, Basic plan, minimal PII, zone confirmed), overridable per test.
 */
import type { ClubConfig } from '../../lambdas/clubs/club-config';

export function exampleClub(overrides: Partial<ClubConfig> = {}): ClubConfig {
  return {
    clubId: 'club-1',
    baseUrl: 'https://api.example.com/v1',
    timeZone: 'Europe/Berlin',
    plan: 'basic',
    credentials: { username: 'u', password: 'p', apiKey: 'k' },
    enabled: true,
    piiPolicy: 'minimal',
    unstatedZone: 'local',
    unstatedZoneConfirmed: true,
    ...overrides,
  };
}
