/**
 * One SQS record of the poll queue: parse its message (a group's or one club's; a malformed one, or
 * entry, is logged and dropped, never retried forever) and poll its clubs (engine/poll-message/).
 */
import type { SQSRecord } from 'aws-lambda';
import { loadClub } from '../clubs/load-club';
import { logger } from '../common/logger';
import type { PollBatchMetrics } from '../common/metrics';
import { parsePollBody } from '../common/poll-message';

import { type MessageOutcome, pollMessageGroup } from '../engine/poll-message/poll-club-message';
import type { PollRuntime } from './poll-runtime';

export type RecordOutcome = MessageOutcome;

/** The invocation's: the deadline (real time), this record's lease owner, the batch's metrics. */
export interface RecordRun {
  readonly deadlineMs: number;
  readonly owner: string;
  readonly metrics: PollBatchMetrics;
}

/** Polls the clubs of one SQS record by the run's deadline: an outcome per club. */
export async function pollRecord(
  rt: PollRuntime,
  record: SQSRecord,
  run: RecordRun,
): Promise<RecordOutcome[]> {
  const { messageId } = record;
  const parsed = parsePollBody(record.body);
  if (!parsed.ok) {
    logger.error('malformed poll message dropped', { messageId, problem: parsed.problem });
    return ['dropped'];
  }
  for (const problem of parsed.problems) {
    logger.error('malformed club entry of a poll message dropped', { messageId, problem });
  }
  const { registry, secrets, piiPolicyDefault, secretPrefix } = rt;
  const loadDeps = {
    registry,
    secrets,
    piiPolicyDefault,
    ...(secretPrefix === undefined ? {} : { secretPrefix }),
  };
  const deps = {
    store: rt.store,
    sink: rt.sink,
    clients: rt.clients,
    secrets,
    loadClub: (id: string) => loadClub(loadDeps, id),
  };
  const outcomes = await pollMessageGroup(deps, parsed.messages, { ...run, messageId });
  return [...outcomes, ...parsed.problems.map(() => 'dropped' as const)];
}
