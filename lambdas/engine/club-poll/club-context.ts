/** What a source's poll knows of its club: the ClubConfig fields the sources read, in one place. */
import type { ClubConfig } from '../../clubs/club-config';
import type { ClubContext } from '../../sources/source';

export function clubContext(club: ClubConfig): Omit<ClubContext, 'observedAtMs'> {
  return {
    clubId: club.clubId,
    timeZone: club.timeZone,
    unstatedZone: club.unstatedZone,
    unstatedZoneConfirmed: club.unstatedZoneConfirmed,
    piiPolicy: club.piiPolicy,
    ...(club.paymentRules ? { paymentRules: club.paymentRules } : {}),
  };
}
