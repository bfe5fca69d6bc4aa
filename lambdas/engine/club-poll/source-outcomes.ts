/**
 * What a club poll does after one source's poll, besides keeping its report: clear or set the
 * unavailable mark of its endpoint, record a failure (and the pause a 401 or 429 starts), and
 * announce a source that has gone stale. Each announcement is written as owed with the state it
 * announces, then delivered (announcer.ts). Each logs what it did; none hides the source's outcome
 * when the store cannot record it.
 */

import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { redactKnownSecrets } from '../../common/redact';
import { monthOf } from '../../common/time-units';
import type { BridgeEvent } from '../../events/catalog';
import { QuotaExceededError } from '../../gym-api/errors';
import { SOURCES } from '../../sources';
import {
  DEFAULT_STALE_AFTER_MS,
  pauseEvent,
  staleEvent,
  startsPauseEpisode,
  unavailableEvent,
} from '../../sources/operational-events';
import type { Cursor, SourceName } from '../../state/store';
import { cursorStaleNotified, unavailableMark } from '../cursor/cursor-life';
import { clearUnavailableMark, recordFailure, recordUnavailable } from '../cursor/cursor-writes';
import { type Announcer, withOwed } from './announcer';
import {
  type ClubRunDeps,
  type ClubSourceReport,
  type PollClubOptions,
  type SourceFailure,
  unavailableReport,
} from './club-report';
import { type FailureKind, failureKind, isPauseKind, type Unavailability } from './failure-policy';

/** What the source outcomes need of the club poll in progress. */
export interface ClubPollScope {
  readonly deps: ClubRunDeps;
  readonly club: ClubConfig;
  readonly options: PollClubOptions;
  readonly now: () => number;
  readonly reports: Map<SourceName, ClubSourceReport>;
  readonly failures: SourceFailure[];
  /** Delivers the operational events the outcomes write as owed. */
  readonly announcer: Announcer;
}

/**
 * The reason of a failure as the report, the log, the cursor's `lastError` and `status` show it:
 * without any credential this process has used (the client already removed the request's own; this
 * is the last pass, for text that came another way), and cut to 1,000 characters.
 */
const messageOf = (err: unknown) =>
  redactKnownSecrets(err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** Marks the source's endpoint unavailable; logs and announces it once per episode. */
export async function markUnavailable(
  scope: ClubPollScope,
  name: SourceName,
  err: unknown,
  cause: Unavailability,
): Promise<void> {
  const { club, deps } = scope;
  const error = messageOf(err);
  const at = scope.now();
  const experimental = SOURCES[name].experimental === true;
  // A new episode is announced in the write of its mark (owed until delivered).
  let owed: BridgeEvent | undefined;
  const recorded = await recordUnavailable(deps.store, name, cause, error, at, (next, previous) => {
    owed = previous.health.unavailable
      ? undefined
      : unavailableEvent(club, name, next.health.unavailable!, experimental, at);
    return owed ? withOwed(next, owed) : next;
  }).catch((storeErr: unknown) => {
    logger.error('could not record an unavailable source', {
      clubId: club.clubId,
      source: name,
      error,
      err: storeErr,
    });
    return undefined;
  });
  const mark = recorded?.mark ?? unavailableMark(undefined, cause, error, at);
  scope.reports.set(name, unavailableReport(name, mark, true));
  if (recorded && !recorded.fresh) {
    logger.info('source endpoint still unavailable', {
      clubId: club.clubId,
      source: name,
      error,
      retryAt: mark.retryAt,
    });
    return;
  }
  // Once per episode: the first time it is found unavailable (a store that could not record it
  // says so above; the next poll then tries again).
  logger.warn('source endpoint unavailable for this club: its other sources go on', {
    clubId: club.clubId,
    source: name,
    kind: mark.kind,
    ...(mark.status === undefined ? {} : { status: mark.status }),
    experimental,
    error,
    retryAt: mark.retryAt,
  });
  if (recorded && owed) await scope.announcer.deliver(name, owed);
}

/** Clears the unavailable mark of a source that answered again. */
export async function clearUnavailable(scope: ClubPollScope, name: SourceName): Promise<void> {
  const { clubId } = scope.club;
  const cleared = await clearUnavailableMark(scope.deps.store, name).catch((err: unknown) => {
    logger.error('could not clear the unavailable mark of a source that answered', {
      clubId,
      source: name,
      err,
    });
    return undefined;
  });
  if (cleared) logger.info('source endpoint available again', { clubId, source: name, since: cleared.since });
}

/**
 * Reports the failure, logs it and records it on the cursor (with the pause of a 401 or 429; a 429
 * that says when the quota comes back, e.g. the next month, is honoured). What the failure makes due
 * is announced in the same write, `owed` to deliver: a refusal that starts an episode of the club
 * (startsPauseEpisode), or any other failure `staleAfterMs` after the source's last success whose
 * episode was not announced yet (the stale notice and Club Data Stale). Nothing can then commit the
 * failure without its announcement. The cursor as written, or undefined when the store could not
 * record it.
 */
export async function recordSourceFailure(
  scope: ClubPollScope,
  name: SourceName,
  err: unknown,
): Promise<{ kind: FailureKind; cursor: Cursor | undefined; owed?: BridgeEvent }> {
  const { club, deps } = scope;
  const { clubId } = club;
  const kind = failureKind(err);
  const reason = messageOf(err);
  scope.failures.push({ source: name, kind, message: reason });
  // The reason under `error` (a string, redacted by messageOf): Powertools drops a `message` key.
  logger.error('source poll failed', { clubId, source: name, kind, error: reason });
  const retryAfterMs = err instanceof QuotaExceededError ? err.retryAfterMs : undefined;
  const failure = { kind, message: reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  const at = scope.now();
  const staleAfterMs = scope.options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  let owed: BridgeEvent | undefined;
  const cursor = await recordFailure(deps.store, name, failure, at, async (next, previous) => {
    owed = isPauseKind(kind) ? undefined : staleEvent(club, next, at, staleAfterMs);
    if (owed) return withOwed(cursorStaleNotified(next, at), owed);
    if (!isPauseKind(kind) || !next.health.pausedUntil) return next;
    const others = (await deps.store.listCursors()).filter((c) => c.source !== name);
    if (!startsPauseEpisode(kind, [previous, ...others])) return next;
    const used = await deps.store.getQuotaUsage(monthOf(at));
    const failures = next.health.consecutiveFailures;
    owed = pauseEvent(club, kind, err, failures, next.health.pausedUntil, at, used);
    return withOwed(next, owed);
  }).catch((storeErr: unknown) => {
    // The failure is in the report either way; a store that cannot record it must not hide it.
    logger.error('could not record a failed poll', { clubId, source: name, err: storeErr });
    return undefined;
  });
  return { kind, cursor, ...(cursor && owed ? { owed } : {}) };
}

/**
 * Announces Club Data Stale once per episode when a source that finished incomplete has had no
 * success for too long (a failure announces it in its own write: recordSourceFailure).
 */
export async function reportStale(scope: ClubPollScope, cursor: Cursor | undefined): Promise<void> {
  if (!cursor) return;
  await scope.announcer.announceStale(cursor.source, scope.options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS);
}
