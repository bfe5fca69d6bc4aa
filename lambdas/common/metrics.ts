/**
 * CloudWatch metrics of the deployed bridge, as EMF through Powertools Metrics. Names and namespace
 * come from the deployment contract (`METRIC`, `METRICS_NAMESPACE`), so the CDK alarms and
 * dashboard read exactly what is written here.
 *
 * Every metric is service-wide: its only dimension is `service` (Powertools' default dimension,
 * POWERTOOLS_SERVICE_NAME), so the number of CloudWatch metrics, and their cost, does not grow
 * with the fleet (a metric with a club dimension is billed per
 * club, $0.30 a month each). A club-level document also carries the club as the EMF property
 * `ClubId` (not a dimension): per-club figures are one Logs Insights query away (the saved
 * queries of lib/constructs/monitoring.ts). One document per club poll, flushed at once, so
 * concurrent clubs never share a property; one per dispatch run for the whole fleet.
 *
 * Freshness is the dispatcher's: `SourcesOverdue` and `OldestSuccessAgeSeconds` once per run; the
 * clubs behind them are its `source overdue` log lines. Watermark lag is a log field only (the
 * poll's `club polled` line carries the highest, `source polled` at DEBUG each source's).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ENV, METRIC, METRIC_PROPERTY, METRICS_NAMESPACE } from './deployment-contract';
import { PLAN_QUOTAS, type Plan } from './plans';

/** A Powertools Metrics instance with the contract's namespace (module scope in a handler). */
export function createMetrics(options: { readonly serviceName?: string } = {}): Metrics {
  return new Metrics({
    namespace: process.env[ENV.metricsNamespace] ?? METRICS_NAMESPACE,
    serviceName: options.serviceName ?? process.env[ENV.serviceName] ?? 'gym-bridge',
  });
}

/** `now - watermark` in whole seconds (never negative), or undefined without a watermark. */
export function watermarkLagSeconds(watermark: string | undefined, nowMs: number): number | undefined {
  if (!watermark) return undefined;
  const at = Date.parse(watermark);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.round((nowMs - at) / 1000));
}

/** Starts a club document: service-wide metrics, the club as a property (no per-club metric). */
function clubDocument(metrics: Metrics, clubId: string): void {
  metrics.addMetadata(METRIC_PROPERTY.club, clubId);
}

/**
 * What the metrics read of a club poll's report: a structural subset of the engine's ClubReport
 * (engine/club-poll/club-report.ts), declared here so that common imports nothing above it.
 */
export interface ClubPollReportFigures {
  readonly clubId: string;
  readonly sources: readonly { readonly records: number; readonly events: number }[];
  readonly failures: readonly { readonly kind: string }[];
  readonly requests: number;
  readonly quotaUsed?: number;
  readonly operationalEvents: readonly unknown[];
}

export interface ClubPollMetricsInput {
  readonly report: ClubPollReportFigures;
  readonly plan: Plan;
  /** Wall time of the whole club poll. */
  readonly durationMs: number;
  /** HTTP 429 answers the API gave during the poll (retries included). */
  readonly rateLimited: number;
  readonly nowMs: number;
}

/**
 * One club poll: records fetched, events published (data and operational), API requests, 429s,
 * poll errors (failed sources), duration, credentials rejected, and the quota used share
 * (requests this month / plan quota) when the poll counted requests.
 */
export function publishClubPollMetrics(metrics: Metrics, input: ClubPollMetricsInput): void {
  const { report } = input;
  clubDocument(metrics, report.clubId);
  const records = report.sources.reduce((n, s) => n + s.records, 0);
  const events = report.sources.reduce((n, s) => n + s.events, 0) + report.operationalEvents.length;
  metrics.addMetric(METRIC.recordsFetched, MetricUnit.Count, records);
  metrics.addMetric(METRIC.eventsPublished, MetricUnit.Count, events);
  metrics.addMetric(METRIC.apiRequests, MetricUnit.Count, report.requests);
  metrics.addMetric(METRIC.rateLimited, MetricUnit.Count, input.rateLimited);
  metrics.addMetric(METRIC.pollErrors, MetricUnit.Count, report.failures.length);
  metrics.addMetric(METRIC.pollDuration, MetricUnit.Milliseconds, Math.max(0, Math.round(input.durationMs)));
  metrics.addMetric(
    METRIC.credentialsRejected,
    MetricUnit.Count,
    report.failures.some((f) => f.kind === 'auth') ? 1 : 0,
  );
  if (report.quotaUsed !== undefined) {
    metrics.addMetric(METRIC.quotaUsedShare, MetricUnit.NoUnit, report.quotaUsed / PLAN_QUOTAS[input.plan]);
  }
  metrics.publishStoredMetrics();
}

/** A club poll that could not run at all (club or secret unreadable, store down): one poll error. */
export function publishClubPollFailure(metrics: Metrics, clubId: string, durationMs: number): void {
  clubDocument(metrics, clubId);
  metrics.addMetric(METRIC.pollErrors, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.pollDuration, MetricUnit.Milliseconds, Math.max(0, Math.round(durationMs)));
  metrics.publishStoredMetrics();
}

export interface DispatchMetricsInput {
  /** Poll messages sent (one per club with a source due). */
  readonly messages: number;
  /** Club/sources overdue in this run (source-overdue.ts). */
  readonly sourcesOverdue: number;
  /** Longest time since a checked source's last success; absent when nothing was measured. */
  readonly oldestSuccessAgeSeconds?: number;
  /** The highest quota share (requests this month / plan quota) of the clubs evaluated. */
  readonly quotaUsedShareMax?: number;
}

/**
 * Service-wide, ONE document per dispatcher run however many clubs: clubs dispatched, club/sources
 * overdue (the SourceOverdue alarm; written every run, 0 included, so the alarm sees data and
 * recovers), the oldest success age and the highest quota share (the quota alarm's MAXIMUM; each
 * club's own share is in its poll's document, with the club as a property).
 */
export function publishDispatchMetrics(metrics: Metrics, input: DispatchMetricsInput): void {
  metrics.addMetric(METRIC.clubsDispatched, MetricUnit.Count, input.messages);
  metrics.addMetric(METRIC.sourcesOverdue, MetricUnit.Count, input.sourcesOverdue);
  if (input.oldestSuccessAgeSeconds !== undefined) {
    metrics.addMetric(METRIC.oldestSuccessAgeSeconds, MetricUnit.Seconds, input.oldestSuccessAgeSeconds);
  }
  if (input.quotaUsedShareMax !== undefined) {
    metrics.addMetric(METRIC.quotaUsedShare, MetricUnit.NoUnit, input.quotaUsedShareMax);
  }
  metrics.publishStoredMetrics();
}
