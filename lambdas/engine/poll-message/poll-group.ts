/**
 * The clubs of one poll message, polled side by side (a group of up to MAX_CLUBS_PER_MESSAGE, or
 * one club's message): each club its own lease owner (the message's, with its place when there are
 * several), each result's metrics added to the invocation's, an outcome per club.
 */
import type { PollMessage } from '../../common/deployment-contract';
import type { PollBatchMetrics } from '../../common/metrics';
import {
  type MessageOutcome,
  type PollClubMessageDeps,
  type PollClubMessageRun,
  pollClubMessage,
} from './poll-club-message';

export interface PollGroupRun extends PollClubMessageRun {
  /** The invocation's metrics, written once for the batch. */
  readonly metrics: Pick<PollBatchMetrics, 'addPoll' | 'addFailure'>;
}

export function pollMessageGroup(
  deps: PollClubMessageDeps,
  messages: readonly PollMessage[],
  run: PollGroupRun,
): Promise<MessageOutcome[]> {
  const { metrics, ...rest } = run;
  const several = messages.length > 1;
  return Promise.all(
    messages.map(async (message, index) => {
      const owner = several ? `${run.owner}:${index}` : run.owner;
      const result = await pollClubMessage(deps, message, { ...rest, owner });
      const { report, club, durationMs, rateLimited } = result;
      if (result.error !== undefined) metrics.addFailure(durationMs);
      else if (report && club) metrics.addPoll({ report, plan: club.plan, durationMs, rateLimited });
      return result.outcome;
    }),
  );
}
