/**
 * The one path from a poll message to events and a state commit, which every poller takes: the
 * poll Lambda (one SQS record), the CLI's `poll` and `start` (one message per club and round) and
 * the bench (the deployed path on a simulated clock).
 *
 * 1. Load the club: its registry record and cached secret in the Lambda, the clubs file in the
 *    CLI. An unknown or disabled club, or one that can never load (an invalid record, a secret
 *    outside the deployment's prefix, a malformed secret), drops the message; a load that may work
 *    later (Secrets Manager unreachable) retries it.
 * 2. Poll the club under its lease (poll-club.ts) by the deadline, and log the poll (report-log.ts).
 *    The poll leaves out the sources a later poll already covered (club-poll/stale-sources.ts),
 *    judged on the cursors its lease write returns (no read of its own): a message with none left
 *    is skipped, so a backlog of duplicate messages costs no API request.
 * 3. Say what becomes of the message: retried only when the poll failed in a way a retry can fix
 *    (failure-policy.ts). A 401 or 429 pauses the club inside the engine, not retried here; a 401
 *    also drops the cached secret, so the next poll reads the rotated one.
 *
 * The clock is injected (`now`, the domain clock of pollClub): durations and watermark lag are
 * measured on it. The deadline is real time, as the Lambda's is.
 */
import type { ClubConfig } from '../../clubs/club-config';
import { ClubRecordError } from '../../clubs/club-record';
import { ClubSecretError } from '../../clubs/club-secrets';
import type { PollMessage } from '../../common/deployment-contract';
import { logger } from '../../common/logger';
import type { PollBatchMetrics } from '../../common/metrics';
import { RateLimitCountingFactory } from '../club-poll/client-factory';
import { isRetryable } from '../club-poll/failure-policy';
import { probeVisits } from '../club-poll/fast-lane-probe';
import { type ClubReport, type PollClubDeps, pollClub } from '../club-poll/poll-club';
import { type Log, logReport } from './report-log';

export type MessageOutcome = 'polled' | 'skipped' | 'dropped' | 'retry';

/** A club as a loader finds it: `loadClub` (clubs/load-club.ts) answers in this shape. */
export type ClubToPoll =
  | {
      readonly status: 'ready';
      readonly config: ClubConfig;
      /** The registry's record: a 401 drops its cached secret. */
      readonly record?: { readonly secretName: string };
    }
  | { readonly status: 'unknown' }
  | { readonly status: 'disabled' };

export interface PollClubMessageDeps extends Omit<PollClubDeps, 'owner'> {
  /** The club of a message. Throws ClubRecordError / ClubSecretError when it cannot be loaded. */
  readonly loadClub: (clubId: string) => Promise<ClubToPoll>;
  /** Cached secrets: the one a 401 names is dropped. */
  readonly secrets?: { invalidate(secretName: string): void };
}

export interface PollClubMessageRun {
  /** Real-time epoch ms by which the poll must return. */
  readonly deadlineMs: number;
  /** Lease owner id of this poll. */
  readonly owner: string;
  /** Page size of every source (the CLI's --page-size). */
  readonly pageSize?: number;
  /** Logged with every line of this message (the SQS message id). */
  readonly messageId?: string;
}

export interface MessageResult {
  readonly outcome: MessageOutcome;
  /** The club's report when it was polled (also when a failure of it asks for a retry). */
  readonly report?: ClubReport;
  /** The club polled (its plan sizes the quota metrics). */
  readonly club?: ClubConfig;
  /** The load or the poll threw: the error (a failed poll, counted as such). */
  readonly error?: unknown;
  /** Domain-clock ms the message took. */
  readonly durationMs: number;
  /** Requests answered 429 during the poll. */
  readonly rateLimited: number;
  /** Domain-clock ms when the message was done. */
  readonly doneMs: number;
}

/** Handles one poll message: load, poll (stale sources left out), outcome. Never throws. */
export async function pollClubMessage(
  deps: PollClubMessageDeps,
  message: PollMessage,
  run: PollClubMessageRun,
): Promise<MessageResult> {
  const now = deps.now ?? Date.now;
  const startedMs = now();
  const log = logger.createChild({
    persistentKeys: { clubId: message.clubId, ...(run.messageId ? { messageId: run.messageId } : {}) },
  });
  const done = (outcome: MessageOutcome, more: Partial<MessageResult> = {}): MessageResult => {
    const doneMs = now();
    return { outcome, durationMs: doneMs - startedMs, rateLimited: 0, doneMs, ...more };
  };
  const loaded = await loadForPoll(deps, message.clubId, log);
  if ('outcome' in loaded) return done(loaded.outcome, loaded.error ? { error: loaded.error } : {});
  const clients = new RateLimitCountingFactory(deps.clients);
  const club = loaded.config;
  let report: ClubReport;
  try {
    const pollDeps = { ...deps, clients, owner: run.owner };
    report =
      message.lane === 'fast'
        ? await pollFastLane(pollDeps, club, run)
        : await pollClub(pollDeps, club, {
            deadlineMs: run.deadlineMs,
            sources: message.sources,
            dispatchedAt: message.dispatchedAt,
            ...(message.backfillFrom ? { backfillFromMs: Date.parse(message.backfillFrom) } : {}),
            ...(message.probes
              ? { probes: { count: message.probes.count, untilMs: Date.parse(message.probes.until) } }
              : {}),
            ...(run.pageSize ? { pageSize: run.pageSize } : {}),
          });
  } catch (err) {
    if (message.lane === 'fast') {
      // Never retried: the next probe or the minute's poll reads the same visits.
      log.warn('fast-lane session failed: the minute poll reads visits as usual', { err });
      return done('polled', { club, error: err, rateLimited: clients.rateLimited });
    }
    log.error('club poll failed: retrying', { err });
    return done('retry', { club, error: err, rateLimited: clients.rateLimited });
  }
  if (report.stale) {
    log.info('every source was polled since this message was dispatched: skipped');
    return done('skipped');
  }
  // A fast-lane message is never retried: the next probe or the minute's poll reads the same visits.
  const outcome = message.lane === 'fast' ? 'polled' : outcomeOf(report);
  const result = done(outcome, { report, club, rateLimited: clients.rateLimited });
  const { doneMs: nowMs, durationMs, rateLimited } = result;
  logReport(log, report, {
    nowMs,
    durationMs,
    rateLimited,
    plan: club.plan,
    ...(message.lane ? { lane: message.lane } : {}),
  });
  if (report.failures.some((f) => f.kind === 'auth') && loaded.record !== undefined) {
    deps.secrets?.invalidate(loaded.record.secretName);
  }
  return result;
}

/**
 * A fast-lane message: the probe (club-poll/fast-lane-probe.ts), and the club's session for the
 * rows it read, only when some came. Its report counts the probe's request with the session's.
 */
export async function pollFastLane(
  deps: PollClubDeps,
  club: ClubConfig,
  run: { readonly deadlineMs: number; readonly pageSize?: number },
): Promise<ClubReport> {
  const probed = await probeVisits(deps, club, {
    deadlineMs: run.deadlineMs,
    ...(run.pageSize ? { pageSize: run.pageSize } : {}),
  });
  if ('report' in probed) return probed.report;
  const { deadlineMs, page, probeRefused, requests, tokenRequests } = probed.session;
  const report = await pollClub(deps, club, {
    deadlineMs,
    sources: ['visits'],
    lane: 'fast',
    ...(page ? { lanePage: page } : {}),
    ...(probeRefused ? { probeRefused } : {}),
    ...(run.pageSize ? { pageSize: run.pageSize } : {}),
  });
  return {
    ...report,
    requests: report.requests + requests,
    tokenRequests: report.tokenRequests + tokenRequests,
  };
}

/** Retried only when a failure of the poll is one a later attempt can fix. */
const outcomeOf = (report: ClubReport): MessageOutcome =>
  report.failures.some((f) => isRetryable(f.kind)) ? 'retry' : 'polled';

type Loaded = Extract<ClubToPoll, { status: 'ready' }> | { outcome: MessageOutcome; error?: unknown };

/** The club to poll, or the message's outcome when there is none (unknown, disabled, unloadable). */
async function loadForPoll(deps: PollClubMessageDeps, clubId: string, log: Log): Promise<Loaded> {
  let loaded: ClubToPoll;
  try {
    loaded = await deps.loadClub(clubId);
  } catch (err) {
    if (err instanceof ClubRecordError || (err instanceof ClubSecretError && !err.retryable)) {
      log.error('club cannot be polled: message dropped', { error: err.message });
      return { outcome: 'dropped', error: err };
    }
    log.error('club could not be loaded: retrying', { err });
    return { outcome: 'retry', error: err };
  }
  if (loaded.status === 'unknown') {
    log.warn('poll message for an unknown club dropped');
    return { outcome: 'dropped' };
  }
  if (loaded.status === 'disabled') {
    log.info('poll message for a disabled club dropped');
    return { outcome: 'dropped' };
  }
  return loaded;
}

/**
 * The clubs of one poll message, polled side by side (a group of up to MAX_CLUBS_PER_MESSAGE, or
 * one club's message): each club its own lease owner (the message's, with its place when there are
 * several), each result's metrics added to the invocation's, an outcome per club.
 */
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
