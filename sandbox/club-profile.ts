/**
 * What a sandbox club is configured as: its time zone, API plan, locale, the zone of the fields the
 * seed leaves open, and its opening hours. Built from the resolved options (sandbox-clubs.ts) and
 * held by the club's store (club-store.ts).
 */
import type { Locale } from './locales';
import type { TimeZone } from './naive-time';

export type AmbiguousZone = 'local' | 'utc';
export type PlanName = 'basic' | 'advanced';

export interface ClubProfile {
  readonly clubId: string;
  readonly timeZone: TimeZone;
  readonly plan: PlanName;
  readonly locale: Locale;
  readonly ambiguousZone: AmbiguousZone;
  /** Local opening hours in minutes after midnight; `open24h` clubs take visits all night. */
  readonly openMinute: number;
  readonly closeMinute: number;
  readonly open24h: boolean;
}
