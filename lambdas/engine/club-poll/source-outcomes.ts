/**
 * What a club poll does after one source's poll, besides keeping its report: clear or set the
 * unavailable mark of its endpoint, record a failure (and the pause a 401 or 429 starts), and
 * announce a source that has gone stale. Each logs what it did; none hides the source's outcome
 * when the store cannot record it.
 */

import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { redactKnownSecrets } from '../../common/redact';
import type { BridgeEvent } from '../../events/catalog';
import { QuotaExceededError } from '../../gym-api/errors';
import { SOURCES } from '../../sources';
import type { Cursor, SourceName } from '../../state/store';
import { unavailableMark } from '../cursor/cursor-life';
import {
  clearUnavailableMark,
  markStaleNotified,
  recordFailure,
  recordUnavailable,
} from '../cursor/cursor-writes';
import { type FailureKind, failureKind, type Unavailability } from '../failure-policy';
import { staleEvent, unavailableEvent } from '../operational-events';
import {
  type ClubSourceReport,
  type PollClubDeps,
  type PollClubOptions,
  type SourceFailure,
  unavailableReport,
} from './club-report';

const MINUTE = 60_000;

/** What the source outcomes need of the club poll in progress. */
export interface ClubPollScope {
  readonly deps: PollClubDeps;
  readonly club: ClubConfig;
  readonly options: PollClubOptions;
  readonly now: () => number;
  readonly reports: Map<SourceName, ClubSourceReport>;
  readonly failures: SourceFailure[];
  /** Publishes an operational event; a failure to publish is logged, never thrown. */
  publishOps(event: BridgeEvent): Promise<void>;
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
  const recorded = await recordUnavailable(deps.store, club.clubId, name, cause, error, at).catch(
    (storeErr: unknown) => {
      logger.error('could not record an unavailable source', {
        clubId: club.clubId,
        source: name,
        error,
        err: storeErr,
      });
      return undefined;
    },
  );
  const mark = recorded?.mark ?? unavailableMark(undefined, cause, error, at);
  scope.reports.set(name, unavailableReport(name, mark, true));
  const experimental = SOURCES[name].experimental === true;
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
  if (recorded) await scope.publishOps(unavailableEvent(club, name, mark, experimental, scope.now()));
}

/** Clears the unavailable mark of a source that answered again. */
export async function clearUnavailable(scope: ClubPollScope, name: SourceName): Promise<void> {
  const { clubId } = scope.club;
  const cleared = await clearUnavailableMark(scope.deps.store, clubId, name).catch((err: unknown) => {
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
 * that says when the quota comes back, e.g. the next month, is honoured). The cursor as written, or
 * undefined when the store could not record it.
 */
export async function recordSourceFailure(
  scope: ClubPollScope,
  name: SourceName,
  err: unknown,
): Promise<{ kind: FailureKind; cursor: Cursor | undefined }> {
  const { clubId } = scope.club;
  const kind = failureKind(err);
  const reason = messageOf(err);
  scope.failures.push({ source: name, kind, message: reason });
  // The reason under `error` (a string, redacted by messageOf): Powertools drops a `message` key.
  logger.error('source poll failed', { clubId, source: name, kind, error: reason });
  const retryAfterMs = err instanceof QuotaExceededError ? err.retryAfterMs : undefined;
  const failure = { kind, message: reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  const cursor = await recordFailure(scope.deps.store, clubId, name, failure, scope.now()).catch(
    (storeErr: unknown) => {
      // The failure is in the report either way; a store that cannot record it must not hide it.
      logger.error('could not record a failed poll', { clubId, source: name, err: storeErr });
      return undefined;
    },
  );
  return { kind, cursor };
}

/** Announces Club Data Stale once per episode when the source has had no success for too long. */
export async function reportStale(scope: ClubPollScope, cursor: Cursor | undefined): Promise<void> {
  if (!cursor) return;
  const staleAfterMs = scope.options.staleAfterMs ?? 30 * MINUTE;
  const stale = staleEvent(scope.club, cursor, scope.now(), staleAfterMs);
  if (!stale) return;
  await scope.publishOps(stale);
  await markStaleNotified(scope.deps.store, cursor, scope.now()).catch((err: unknown) => {
    logger.error('could not mark the stale notice', {
      clubId: scope.club.clubId,
      source: cursor.source,
      err,
    });
  });
}
