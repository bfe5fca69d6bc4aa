/**
 * The operational events of a club poll (docs/events.md): Club Credentials Rejected, Club Quota Low,
 * Club Source Unavailable and Club Data Stale. Pure builders: the caller decides when one is due
 * (once per episode) and publishes it. Their eventIds derive from the club and the episode, so a
 * re-publish carries the same id.
 */

import type { ClubConfig } from '../clubs/club-config';
import { PLAN_QUOTAS } from '../common/plans';
import { type BridgeEvent, DETAIL_TYPES, type SOURCE_UNAVAILABLE_KINDS } from '../events/catalog';
import { createEvent } from '../events/envelope';
import { AuthError } from '../gym-api/errors';
import type { Cursor, SourceName, SourceUnavailable } from '../state/store';
import type { PauseKind } from './failure-policy';

type OpsClub = Pick<ClubConfig, 'clubId' | 'plan' | 'piiPolicy'>;

/** `yyyy-mm` (UTC) of an epoch ms: the month of the quota counter. */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

function opsEnvelope(club: OpsClub, identity: string[], nowMs: number) {
  return {
    clubId: club.clubId,
    identity,
    occurredAt: new Date(nowMs),
    observedAt: new Date(nowMs),
    subject: {},
    piiPolicy: club.piiPolicy,
  };
}

/** Club Quota Low: the alert share of the month is used (`threshold`) or the API answered 429. */
export function quotaEvent(
  club: OpsClub,
  reason: 'threshold' | 'rate-limited',
  used: number,
  nowMs: number,
): BridgeEvent {
  const limit = PLAN_QUOTAS[club.plan];
  const month = monthOf(nowMs);
  return createEvent(
    DETAIL_TYPES.ClubQuotaLow,
    opsEnvelope(club, [reason, month, reason === 'threshold' ? '' : new Date(nowMs).toISOString()], nowMs),
    { month, used, limit, share: Math.min(1, used / limit), reason },
  );
}

/** The event of a club paused by this poll: Club Credentials Rejected (401) or Club Quota Low (429). */
export function pauseEvent(
  club: OpsClub,
  kind: PauseKind,
  err: unknown,
  consecutiveFailures: number,
  pausedUntil: string,
  nowMs: number,
  used: number,
): BridgeEvent {
  if (kind === 'quota') return quotaEvent(club, 'rate-limited', used, nowMs);
  const reason =
    err instanceof AuthError && (err.reason === 'credentials' || err.reason === 'apiKey')
      ? err.reason
      : 'unknown';
  return createEvent(
    DETAIL_TYPES.ClubCredentialsRejected,
    opsEnvelope(club, [reason, new Date(nowMs).toISOString()], nowMs),
    { reason, consecutiveFailures, pausedUntil },
  );
}

/** Club Source Unavailable: the source's endpoint is missing or unusable for the club. */
export function unavailableEvent(
  club: OpsClub,
  source: SourceName,
  mark: SourceUnavailable,
  experimental: boolean,
  nowMs: number,
): BridgeEvent {
  return createEvent(
    DETAIL_TYPES.ClubSourceUnavailable,
    opsEnvelope(club, ['unavailable', source, mark.since], nowMs),
    {
      unavailableSource: source,
      kind: mark.kind as (typeof SOURCE_UNAVAILABLE_KINDS)[number],
      ...(mark.status === undefined ? {} : { httpStatus: mark.status }),
      error: mark.reason,
      experimental,
      since: mark.since,
      retryAt: mark.retryAt,
    },
  );
}

/**
 * Club Data Stale, when the source has had no success for `staleAfterMs` and this episode (since its
 * last success) was not announced yet; undefined otherwise.
 */
export function staleEvent(
  club: OpsClub,
  cursor: Cursor,
  nowMs: number,
  staleAfterMs: number,
): BridgeEvent | undefined {
  const { lastSuccessAt, staleNotifiedAt } = cursor.health;
  const since = lastSuccessAt ? Date.parse(lastSuccessAt) : undefined;
  if (since === undefined || nowMs - since < staleAfterMs) return undefined;
  if (staleNotifiedAt && Date.parse(staleNotifiedAt) >= since) return undefined;
  return createEvent(
    DETAIL_TYPES.ClubDataStale,
    opsEnvelope(club, ['stale', cursor.source, lastSuccessAt ?? ''], nowMs),
    {
      staleSource: cursor.source,
      ...(lastSuccessAt ? { lastSuccessAt } : {}),
      ageSeconds: Math.round((nowMs - since) / 1000),
    },
  );
}
