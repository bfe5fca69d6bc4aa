/**
 * One SQS record of the poll queue: parse its message (a malformed one is logged and dropped,
 * never retried forever), run the engine's use case on it (engine/poll-message/poll-club-message.ts:
 * load the club, stale check, poll, outcome) and publish its metrics.
 */
import type { SQSRecord } from 'aws-lambda';
import { loadClub } from '../clubs/load-club';
import { logger } from '../common/logger';
import { publishClubPollFailure, publishClubPollMetrics } from '../common/metrics';
import { parsePollMessage } from '../common/poll-message';
import { type MessageOutcome, pollClubMessage } from '../engine/poll-message/poll-club-message';
import type { PollRuntime } from './poll-runtime';

export type RecordOutcome = MessageOutcome;

/** Polls the club of one SQS record until `deadlineMs` (real time) as lease owner `owner`. */
export async function pollRecord(
  rt: PollRuntime,
  record: SQSRecord,
  deadlineMs: number,
  owner: string,
): Promise<RecordOutcome> {
  const parsed = parsePollMessage(record.body);
  if (!parsed.ok) {
    logger.error('malformed poll message dropped', { messageId: record.messageId, problem: parsed.problem });
    return 'dropped';
  }
  const { clubId } = parsed.message;
  const { registry, secrets, piiPolicyDefault, secretPrefix } = rt;
  const loadDeps = {
    registry,
    secrets,
    piiPolicyDefault,
    ...(secretPrefix === undefined ? {} : { secretPrefix }),
  };
  const result = await pollClubMessage(
    {
      store: rt.store,
      sink: rt.sink,
      clients: rt.clients,
      secrets,
      loadClub: (id) => loadClub(loadDeps, id),
    },
    parsed.message,
    { deadlineMs, owner, messageId: record.messageId },
  );
  const { report, club, durationMs, rateLimited, doneMs } = result;
  if (result.error !== undefined) publishClubPollFailure(rt.metrics, clubId, durationMs);
  else if (report && club) {
    publishClubPollMetrics(rt.metrics, { report, plan: club.plan, durationMs, rateLimited, nowMs: doneMs });
  }
  return result.outcome;
}
