/**
 * The operational events of a club poll (docs/events.md): Club Credentials Rejected, Club Quota Low,
 * Club Source Unavailable and Club Data Stale. Pure builders, and the rules of when one is due (once
 * per episode); the engine's announcer (engine/club-poll/announcer.ts) delivers them at least once.
 * Their eventIds derive from the club and the episode (when it began), so the same announcement
 * always carries the same id. Built here, in the producers layer, beside the endpoints' events (the
 * lifecycle's are lifecycle/'s): the engine builds no event. Plain data in (the club's plan and PII
 * policy, its cursors' health), typed structurally: sources import neither clubs/ nor state/.
 */

import { PLAN_QUOTAS, type Plan } from '../common/plans';
import type { SourceName } from '../common/source-names';
import { monthOf } from '../common/time-units';
import { type BridgeEvent, DETAIL_TYPES, type SOURCE_UNAVAILABLE_KINDS } from '../events/catalog';
import { createEvent } from '../events/envelope';
import type { PiiPolicy } from '../events/pii';
import { AuthError } from '../gym-api/errors';

/** The refusals that pause the whole club (engine/club-poll/failure-policy.ts): all its sources would get them. */
export type PauseKind = 'auth' | 'quota';

/** What the events read of the club (its ClubConfig, structurally). */
interface OpsClub {
  readonly clubId: string;
  readonly plan: Plan;
  readonly piiPolicy: PiiPolicy;
}

/** What the events read of a cursor (the store's Cursor, structurally). */
export interface OpsCursor {
  readonly source: SourceName;
  readonly health: {
    readonly lastSuccessAt?: string | undefined;
    readonly staleNotifiedAt?: string | undefined;
    readonly consecutiveFailures: number;
    readonly lastError?: { readonly kind: string; readonly at: string } | undefined;
  };
}

/** A source's unavailable mark (the store's SourceUnavailable, structurally). */
interface UnavailableMark {
  readonly kind: string;
  readonly reason: string;
  readonly status?: number | undefined;
  readonly since: string;
  readonly retryAt: string;
}

/** A source with no success for this long is announced stale (Club Data Stale), by default. */
export const DEFAULT_STALE_AFTER_MS = 30 * 60_000;

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

/**
 * Whether a refusal of `kind` (a 401 or a 429) starts a new episode of the club, to be announced:
 * true unless the club was already refused with that kind since its last success, that is unless a
 * cursor (the refused one as it was before this refusal, or another) is in a run of such refusals
 * whose latest came at or after the latest success of any of its sources. A resumed club (`clubs
 * resume` resets the runs) starts a new one. Judged on the club's cursors, not on the refused
 * source's count alone: the next poll may be refused on another source first (poll-order.ts).
 */
export function startsPauseEpisode(kind: PauseKind, cursorsBefore: readonly OpsCursor[]): boolean {
  let lastSuccessMs = Number.NEGATIVE_INFINITY;
  for (const c of cursorsBefore) {
    const at = c.health.lastSuccessAt ? Date.parse(c.health.lastSuccessAt) : Number.NaN;
    if (at > lastSuccessMs) lastSuccessMs = at;
  }
  return !cursorsBefore.some((c) => {
    const error = c.health.lastError;
    return error?.kind === kind && c.health.consecutiveFailures > 0 && Date.parse(error.at) >= lastSuccessMs;
  });
}

/**
 * The event of a club paused by this poll: Club Credentials Rejected (401) or Club Quota Low (429),
 * occurring at `nowMs`, the refusal that began the episode (part of the eventId).
 */
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
  mark: UnavailableMark,
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
 * Club Data Stale, when the source has had no success for `staleAfterMs` as of `judgedAtMs` (now,
 * or the failure a later poll looks back on) and this episode (since its last success) was not
 * announced yet; undefined otherwise. Its eventId is the source's and the episode's: the same
 * whenever it is built.
 */
export function staleEvent(
  club: OpsClub,
  cursor: OpsCursor,
  nowMs: number,
  staleAfterMs: number,
  judgedAtMs: number = nowMs,
): BridgeEvent | undefined {
  const { lastSuccessAt, staleNotifiedAt } = cursor.health;
  const since = lastSuccessAt ? Date.parse(lastSuccessAt) : undefined;
  if (since === undefined || !(judgedAtMs - since >= staleAfterMs)) return undefined;
  // A notice at the instant of the success is the previous episode's: a poll's catch-up announces
  // it before that poll's sources succeed (a notice of this episode comes staleAfterMs after it).
  if (staleNotifiedAt && Date.parse(staleNotifiedAt) > since) return undefined;
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
