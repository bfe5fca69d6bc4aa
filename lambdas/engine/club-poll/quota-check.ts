/**
 * After a club poll: its data requests are added to the club's monthly counter, and Club Quota Low
 * is announced once a month when the counter passes the alert share of the plan. Its mark (in the
 * seen set) is written only once the event was delivered; until then it is owed on the club's first
 * cursor (announcer.ts) and a later poll delivers it, under the same eventId.
 */

import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { PLAN_QUOTAS } from '../../common/plans';
import { monthOf } from '../../common/time-units';
import { quotaEvent } from '../../sources/operational-events';
import type { ClubSeen } from '../../state/state-store';
import type { QuotaStore } from '../../state/store';
import type { Announcer } from './announcer';
import { fingerprint } from './poll-source';

/** Share of the monthly quota at which Club Quota Low is announced, by default. */
export const DEFAULT_QUOTA_ALERT_SHARE = 0.8;
/** How long the once-a-month mark of the announcement is kept (longer than a month). */
const ALERT_MARK_TTL_SEC = 40 * 86_400;

export interface QuotaCheck {
  readonly store: QuotaStore & ClubSeen;
  readonly club: Pick<ClubConfig, 'clubId' | 'plan' | 'piiPolicy'>;
  readonly nowMs: number;
  readonly alertShare?: number;
  readonly announcer: Pick<Announcer, 'announceForClub'>;
}

/**
 * Counts `requests` against the club's month; the counter after it, or undefined when nothing was
 * counted. Bookkeeping: a store error is logged, never turned into a failed poll (the events of the
 * poll are published and committed already).
 */
export async function countQuotaUsage(check: QuotaCheck, requests: number): Promise<number | undefined> {
  if (requests <= 0) return undefined;
  const { store, club, nowMs } = check;
  const month = monthOf(nowMs);
  let used: number | undefined;
  try {
    used = await store.addQuotaUsage(month, requests);
    if (used / PLAN_QUOTAS[club.plan] >= (check.alertShare ?? DEFAULT_QUOTA_ALERT_SHARE)) {
      // The seen set of members holds the once-a-month mark (a fingerprint no record can have).
      const mark = fingerprint(`OPS|quota-threshold|${month}`);
      const nowSec = Math.floor(nowMs / 1000);
      const seen = await store.filterSeen('members', [mark], nowSec);
      // Delivered now or earlier in this poll (owed by an earlier one): marked; else owed still.
      if (
        !seen.has(mark) &&
        (await check.announcer.announceForClub(quotaEvent(club, 'threshold', used, nowMs)))
      ) {
        await store.putSeen('members', [mark], nowSec + ALERT_MARK_TTL_SEC);
      }
    }
  } catch (err) {
    logger.error('quota accounting failed', { clubId: club.clubId, requests, err });
  }
  return used;
}
