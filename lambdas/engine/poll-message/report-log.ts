/**
 * The log of one club poll, as every poller writes it (the Lambda, the CLI, the bench): one INFO
 * line with the totals, a DEBUG line per source, a WARN line per failure with its reason; and the
 * poll Lambda's one line per invocation (a batch of polls).
 */
import { CLUB_POLLED_LOG_MESSAGE } from '../../common/deployment-contract';
import type { logger } from '../../common/logger';
import { quotaUsedShare, watermarkLagSeconds } from '../../common/metrics';
import type { Plan } from '../../common/plans';
import type { ClubReport } from '../club-poll/poll-club';

export type Log = typeof logger;

/** The poll Lambda's line per invocation, with the whole Lambda context (common/logger.ts). */
export const POLL_BATCH_MESSAGE = 'poll batch done';

/** What the poll's line adds to its report. */
export interface PollFigures {
  /** Domain-clock ms when the poll was done (watermark lag is measured to it). */
  readonly nowMs: number;
  /** The whole poll, ms. */
  readonly durationMs: number;
  /** HTTP 429 answers during the poll, retries included. */
  readonly rateLimited: number;
  /** The club's plan: its quota share is requests this month / the plan's quota. */
  readonly plan: Plan;
  /** 'fast': a fast-lane probe (its line is DEBUG unless it failed: thousands a day). */
  readonly lane?: 'fast';
}

/**
 * The log of one club poll: ONE INFO line, `club polled`, with the totals over its sources (the
 * line a fleet's log bill is counted in: a field that is zero, or the outcome when `ok`, is left
 * out; a fast-lane probe, and the session it opened, log it at DEBUG unless they failed); each source's `source polled` line is DEBUG (set LOG_LEVEL=DEBUG to see them); failures
 * are WARN lines of their own, with their reason.
 */
export function logReport(log: Log, report: ClubReport, poll: PollFigures): void {
  const totals = { pages: 0, records: 0, events: 0, quarantined: 0 };
  let lagMax: number | undefined;
  const notOk: string[] = []; // sources that did not complete, as 'visits:partial'
  for (const s of report.sources) {
    const lag = s.watermark ? watermarkLagSeconds(s.watermark, poll.nowMs) : undefined;
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
    totals.pages += s.pages ?? 0;
    totals.records += s.records ?? 0;
    totals.events += s.events ?? 0;
    totals.quarantined += s.quarantined ?? 0;
    if (lag !== undefined) lagMax = Math.max(lagMax ?? 0, lag);
    if (s.outcome !== 'completed') notOk.push(`${s.source}:${s.outcome}`);
  }
  for (const f of report.failures) {
    log.warn('source failed', { source: f.source, kind: f.kind, error: f.message });
  }
  // A fast-lane line is DEBUG unless it failed: tens of thousands a club-month, and the minute's
  // polls' lines already say what the club is doing (its events are counted in the metrics).
  const quiet = poll.lane === 'fast' && report.failures.length === 0 && report.outcome !== 'failed';
  (quiet ? log.debug : log.info).call(log, CLUB_POLLED_LOG_MESSAGE, {
    ...(poll.lane ? { lane: poll.lane } : {}),
    ...(report.outcome === 'ok' ? {} : { outcome: report.outcome }),
    sources: report.sources.length,
    ...nonZero({ ...totals, requests: report.requests, tokenRequests: report.tokenRequests }),
    durationMs: Math.max(0, Math.round(poll.durationMs)),
    ...nonZero({ rateLimited: poll.rateLimited, failedSources: report.failures.length }),
    ...(report.quotaUsed === undefined
      ? {}
      : { quotaUsedShare: quotaUsedShare(report.quotaUsed, poll.plan) }),
    ...(lagMax === undefined ? {} : { watermarkLagSecondsMax: lagMax }),
    ...(notOk.length > 0 ? { sourcesIncomplete: notOk.join(',') } : {}),
    ...(report.operationalEvents.length > 0
      ? { operationalEvents: report.operationalEvents.map((e) => e.detailType) }
      : {}),
    ...(report.pausedUntil ? { pausedUntil: report.pausedUntil } : {}),
    ...lifecycleFields(report),
  });
}

/** The counts that are not zero. */
function nonZero(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== 0));
}

/** The hour's lifecycle evaluation, when this poll ran one or waited for it (docs/operations.md). */
function lifecycleFields(report: ClubReport): Record<string, unknown> {
  const l = report.lifecycle;
  if (!l) return {};
  if (l.outcome === 'evaluated')
    return {
      lifecycle: l.outcome,
      lifecycleEvents: l.published,
      lifecycleRead: l.read,
      lifecycleMs: Math.round(l.ms),
    };
  // A failure has its own ERROR line with the reason.
  return l.outcome === 'waiting'
    ? { lifecycle: l.outcome, lifecycleWaiting: l.reason }
    : { lifecycle: l.outcome };
}

/**
 * The fields of the poll Lambda's `poll batch done` line: the batch's messages and how many of them
 * each outcome took (`polled`, `skipped`, `dropped`, `retry`; an outcome none took is left out).
 */
export function batchFields(outcomes: readonly string[]): Record<string, number> {
  const fields: Record<string, number> = { messages: outcomes.length };
  for (const outcome of outcomes) fields[outcome] = (fields[outcome] ?? 0) + 1;
  return fields;
}
