/**
 * Resuming a club now: the operator fixed the password, the API key or the plan, and does not want
 * to wait for the back-off. Clears `pausedUntil` on every cursor of the club and restarts the
 * count of auth/quota failures (so the next rejection pauses for the shortest time and is announced
 * again). It writes as a poll does, in a session of the club: while a poll holds the club it
 * writes nothing and says so (ClubBusyError), so a poll's writes are never overwritten.
 *
 * With `retryUnavailable`, it also clears the marks of sources whose endpoint was found missing
 * (`health.unavailable`), so they are tried on the next poll instead of at their `retryAt`.
 */

import { MINUTE_MS } from '../../common/time-units';
import { type ClubSession, type StateStore, withClubSession } from '../../state/state-store';
import type { SourceName, SourceUnavailable } from '../../state/store';
import { isPauseKind } from './failure-policy';

export interface ResumeClubOptions {
  /** Also clear the unavailable marks (the endpoints are tried on the next poll). @default false */
  readonly retryUnavailable?: boolean;
  /** Only these sources. @default every source of the club */
  readonly sources?: readonly SourceName[];
}

/** What was cleared on one source's cursor. */
export interface ResumedSource {
  readonly source: SourceName;
  /** The pause that was cleared, and whether it was still in force. */
  readonly pausedUntil?: string;
  readonly pauseWasActive?: boolean;
  /** The error that had paused it (`kind: message`). */
  readonly lastError?: string;
  /** Consecutive auth/quota failures reset to 0. */
  readonly consecutiveFailures?: number;
  /** The unavailable mark that was cleared (with `retryUnavailable`). */
  readonly unavailable?: SourceUnavailable;
}

export interface ResumeClubResult {
  readonly clubId: string;
  /** Cursors of the club found in the table (0: the club was never polled with this table). */
  readonly cursors: number;
  /** Only the sources where something was cleared. */
  readonly resumed: ResumedSource[];
}

/** How long the resume's own lease lasts (it takes well under a second). */
const RESUME_LEASE_MS = MINUTE_MS;

export function resumeClub(
  store: StateStore,
  clubId: string,
  nowMs: number,
  options: ResumeClubOptions = {},
): Promise<ResumeClubResult> {
  const owner = `cli-resume-${process.pid}`;
  return withClubSession(
    store,
    clubId,
    owner,
    (session) => resumeIn(session, nowMs, options),
    RESUME_LEASE_MS,
  );
}

async function resumeIn(
  session: ClubSession,
  nowMs: number,
  options: ResumeClubOptions,
): Promise<ResumeClubResult> {
  const cursors = await session.listCursors();
  const resumed: ResumedSource[] = [];
  for (const cursor of cursors) {
    if (options.sources && !options.sources.includes(cursor.source)) continue;
    const { pausedUntil, unavailable, ...health } = cursor.health;
    const pausing = isPauseKind(health.lastError?.kind);
    const failures = pausing ? health.consecutiveFailures : 0;
    const clearUnavailable = options.retryUnavailable === true && unavailable !== undefined;
    if (pausedUntil === undefined && failures === 0 && !clearUnavailable) continue;
    const next = {
      ...health,
      consecutiveFailures: pausing ? 0 : health.consecutiveFailures,
      ...(unavailable && !clearUnavailable ? { unavailable } : {}),
    };
    await session.putCursor({ ...cursor, health: next });
    resumed.push({
      source: cursor.source,
      ...(pausedUntil === undefined ? {} : { pausedUntil, pauseWasActive: Date.parse(pausedUntil) > nowMs }),
      ...(pausing && health.lastError
        ? { lastError: `${health.lastError.kind}: ${health.lastError.message}` }
        : {}),
      ...(failures > 0 ? { consecutiveFailures: failures } : {}),
      ...(clearUnavailable ? { unavailable } : {}),
    });
  }
  return { clubId: session.clubId, cursors: cursors.length, resumed };
}
