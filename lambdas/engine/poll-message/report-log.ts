/**
 * The log of one club poll, as every poller writes it (the Lambda, the CLI, the bench): one INFO
 * line with the totals, a DEBUG line per source, a WARN line per failure with its reason.
 */
import type { logger } from '../../common/logger';
import { watermarkLagSeconds } from '../../common/metrics';
import type { ClubReport } from '../poll-club';

export type Log = typeof logger;

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
    ...lifecycleFields(report),
  });
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
