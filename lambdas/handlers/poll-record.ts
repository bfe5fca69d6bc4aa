/**
 * One SQS record of the poll queue: parse its message (a malformed one is logged and dropped,
 * never retried forever), run the engine's use case on it (engine/poll-message/poll-club-message.ts:
 * load the club, stale check, poll, outcome) and add its metrics to the invocation's (written once
 * for the batch: common/metrics.ts PollBatchMetrics).
 */
import type { SQSRecord } from 'aws-lambda';
import { loadClub } from '../clubs/load-club';
import { logger } from '../common/logger';
import type { PollBatchMetrics } from '../common/metrics';
import { parsePollMessage } from '../common/poll-message';
import { type MessageOutcome, pollClubMessage } from '../engine/poll-message/poll-club-message';
import type { PollRuntime } from './poll-runtime';

export type RecordOutcome = MessageOutcome;

/** The invocation's: the deadline (real time), this record's lease owner, the batch's metrics. */
export interface RecordRun {
  readonly deadlineMs: number;
  readonly owner: string;
  readonly metrics: PollBatchMetrics;
}

/** Polls the club of one SQS record until the run's deadline, its metrics added to the batch's. */
export async function pollRecord(rt: PollRuntime, record: SQSRecord, run: RecordRun): Promise<RecordOutcome> {
  const parsed = parsePollMessage(record.body);
  if (!parsed.ok) {
    logger.error('malformed poll message dropped', { messageId: record.messageId, problem: parsed.problem });
    return 'dropped';
  }
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
    { deadlineMs: run.deadlineMs, owner: run.owner, messageId: record.messageId },
  );
  const { report, club, durationMs, rateLimited } = result;
  if (result.error !== undefined) run.metrics.addFailure(durationMs);
  else if (report && club) run.metrics.addPoll({ report, plan: club.plan, durationMs, rateLimited });
  return result.outcome;
}
