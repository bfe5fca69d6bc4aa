/**
 * One poll message: parse and validate it (a malformed one is logged and dropped, never retried
 * forever), load the club (registry + cached secret), leave out the sources a later poll already
 * covered (engine/stale-message.ts), poll the club with the engine within the invocation's
 * deadline, publish its metrics, and say whether SQS should deliver the message again: only when
 * the poll failed in a way a retry can fix (engine/failure-policy.ts). A 401 or 429 pauses the club
 * inside the engine (and emits its operational event once): not retried here.
 */
import type { SQSRecord } from 'aws-lambda';
import { ClubRecordError } from '../clubs/club-record';
import { ClubSecretError } from '../clubs/club-secrets';
import { type LoadedClub, loadClub } from '../clubs/load-club';
import { logger } from '../common/logger';
import { publishClubPollFailure, publishClubPollMetrics, watermarkLagSeconds } from '../common/metrics';
import { RateLimitCountingFactory } from '../engine/client-factory';
import { isRetryable } from '../engine/failure-policy';
import { type ClubReport, pollClub } from '../engine/poll-club';
import { sourcesStillDueFor } from '../engine/stale-message';
import { parsePollMessage } from './poll-message';
import type { PollRuntime } from './poll-runtime';

export type RecordOutcome = 'polled' | 'skipped' | 'dropped' | 'retry';

type Log = typeof logger;

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
  const message = parsed.message;
  const log = logger.createChild({ persistentKeys: { clubId: message.clubId, messageId: record.messageId } });
  const startedMs = Date.now();
  const loaded = await loadPolledClub(rt, message.clubId, log, startedMs);
  if (typeof loaded === 'string') return loaded;
  const sources = await sourcesStillDueFor(rt.store, message.clubId, message.sources, message.dispatchedAt);
  if (sources.length === 0) {
    log.info('every source was polled since this message was dispatched: skipped');
    return 'skipped';
  }
  const clients = new RateLimitCountingFactory(rt.clients);
  let report: ClubReport;
  try {
    report = await pollClub({ store: rt.store, sink: rt.sink, clients, owner }, loaded.config, {
      deadlineMs,
      sources,
      ...(message.backfillFrom ? { backfillFromMs: Date.parse(message.backfillFrom) } : {}),
    });
  } catch (err) {
    publishClubPollFailure(rt.metrics, message.clubId, Date.now() - startedMs);
    log.error('club poll failed: retrying', { err });
    return 'retry';
  }
  const nowMs = Date.now();
  const { plan, secretName } = loaded.record;
  publishClubPollMetrics(rt.metrics, {
    report,
    plan,
    durationMs: nowMs - startedMs,
    rateLimited: clients.rateLimited,
    nowMs,
  });
  logReport(log, report, nowMs);
  if (report.failures.some((f) => f.kind === 'auth')) rt.secrets.invalidate(secretName);
  return report.failures.some((f) => isRetryable(f.kind)) ? 'retry' : 'polled';
}

/** The club to poll, or the record's outcome when there is none (unknown, disabled, unloadable). */
async function loadPolledClub(
  rt: PollRuntime,
  clubId: string,
  log: Log,
  startedMs: number,
): Promise<Extract<LoadedClub, { status: 'ready' }> | RecordOutcome> {
  let loaded: LoadedClub;
  try {
    const { registry, secrets, piiPolicyDefault, secretPrefix } = rt;
    const deps = {
      registry,
      secrets,
      piiPolicyDefault,
      ...(secretPrefix === undefined ? {} : { secretPrefix }),
    };
    loaded = await loadClub(deps, clubId);
  } catch (err) {
    publishClubPollFailure(rt.metrics, clubId, Date.now() - startedMs);
    if (err instanceof ClubRecordError || (err instanceof ClubSecretError && !err.retryable)) {
      log.error('club cannot be polled: message dropped', { error: err.message });
      return 'dropped';
    }
    log.error('club could not be loaded: retrying', { err });
    return 'retry';
  }
  if (loaded.status === 'unknown') {
    log.warn('poll message for an unknown club dropped');
    return 'dropped';
  }
  if (loaded.status === 'disabled') {
    log.info('poll message for a disabled club dropped');
    return 'dropped';
  }
  return loaded;
}

/**
 * The log of one club poll: ONE INFO line, `club polled`, with the totals over its sources (the
 * line a fleet's log bill is counted in); each source's `source polled` line is DEBUG (set
 * LOG_LEVEL=DEBUG to see them); failures are WARN lines of their own, with their reason.
 */
export function logReport(log: Log, report: ClubReport, nowMs: number): void {
  let pages = 0;
  let records = 0;
  let events = 0;
  let quarantined = 0;
  let lagMax: number | undefined;
  const notOk: string[] = []; // sources that did not complete, as 'visits:partial'
  for (const s of report.sources) {
    const lag = s.watermark ? watermarkLagSeconds(s.watermark, nowMs) : undefined;
    log.debug('source polled', {
      source: s.source,
      outcome: s.outcome,
      ...(s.mode ? { mode: s.mode } : {}),
      pages: s.pages,
      records: s.records,
      events: s.events,
      quarantined: s.quarantined,
      ...(lag === undefined ? {} : { watermarkLagSeconds: lag }),
    });
    pages += s.pages ?? 0;
    records += s.records ?? 0;
    events += s.events ?? 0;
    quarantined += s.quarantined ?? 0;
    if (lag !== undefined) lagMax = Math.max(lagMax ?? 0, lag);
    if (s.outcome !== 'completed') notOk.push(`${s.source}:${s.outcome}`);
  }
  for (const f of report.failures) {
    log.warn('source failed', { source: f.source, kind: f.kind, error: f.message });
  }
  log.info('club polled', {
    outcome: report.outcome,
    sources: report.sources.length,
    pages,
    records,
    events,
    quarantined,
    requests: report.requests,
    tokenRequests: report.tokenRequests,
    ...(lagMax === undefined ? {} : { watermarkLagSecondsMax: lagMax }),
    ...(notOk.length > 0 ? { sourcesIncomplete: notOk.join(',') } : {}),
    ...(report.operationalEvents.length > 0
      ? { operationalEvents: report.operationalEvents.map((e) => e.detailType) }
      : {}),
    ...(report.pausedUntil ? { pausedUntil: report.pausedUntil } : {}),
  });
}
