/**
 * The CLI's way into the engine's use case (engine/poll-message/poll-club-message.ts), the path the
 * poll Lambda takes: `poll` and `start` hand it one poll message per club and round, dispatched
 * now on the engine's clock, with the club read from the clubs file instead of the registry. A
 * poll that throws throws here too (the command says so); a message every source of which was
 * polled since it was dispatched (only when the clock went back) reports its sources skipped.
 */
import type { ClubConfig } from '../lambdas/clubs/club-config';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import { SOURCE_NAMES, type SourceName } from '../lambdas/common/source-names';
import { idleReport, skippedReport } from '../lambdas/engine/club-poll/club-report';
import type { ClubReport, PollClubDeps } from '../lambdas/engine/club-poll/poll-club';
import { pollClubMessage } from '../lambdas/engine/poll-message/poll-club-message';

export interface FileClubPoll {
  /** Lease owner id of this CLI process. */
  readonly owner: string;
  /** Real-time epoch ms by which the poll must return. */
  readonly deadlineMs: number;
  /** Only these sources (none: every source of the club). */
  readonly sources?: readonly SourceName[];
  readonly backfillFromMs?: number;
  readonly pageSize?: number;
}

/** Polls one club of a clubs file as the poll Lambda polls a club of the registry. */
export async function pollFileClub(
  deps: Omit<PollClubDeps, 'owner'>,
  club: ClubConfig,
  poll: FileClubPoll,
): Promise<ClubReport> {
  const now = deps.now ?? Date.now;
  const sources = poll.sources?.length ? [...poll.sources] : [...SOURCE_NAMES];
  const message: PollMessage = {
    clubId: club.clubId,
    sources,
    dispatchedAt: new Date(now()).toISOString(),
    ...(poll.backfillFromMs === undefined
      ? {}
      : { backfillFrom: new Date(poll.backfillFromMs).toISOString() }),
  };
  const result = await pollClubMessage(
    { ...deps, loadClub: async () => ({ status: 'ready', config: club }) },
    message,
    { owner: poll.owner, deadlineMs: poll.deadlineMs, ...(poll.pageSize ? { pageSize: poll.pageSize } : {}) },
  );
  if (result.error !== undefined) throw result.error;
  if (result.report) return result.report;
  const skipped = sources.map((s) => skippedReport(s, 'polled since this round began'));
  return idleReport(club.clubId, 'ok', { sources: skipped });
}
