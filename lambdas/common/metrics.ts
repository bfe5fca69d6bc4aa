/**
 * CloudWatch metrics of the deployed bridge, as EMF through Powertools Metrics. Names and namespace
 * come from the deployment contract (`METRIC`, `METRICS_NAMESPACE`), so the CDK alarms and
 * dashboard read exactly what is written here.
 *
 * Every metric is service-wide: its only dimension is `service` (Powertools' default dimension,
 * POWERTOOLS_SERVICE_NAME), so the number of CloudWatch metrics, and their cost, does not grow
 * with the fleet (a metric with a club dimension is billed per club, $0.30 a month each).
 *
 * ONE document per poll invocation (a batch of up to `pollBatchSize` clubs), not one per club poll:
 * the document's fixed part (its directive names every metric) was most of a poll's bytes
 * (PollBatchMetrics). The counts every alarm and dashboard widget reads as a Sum are added up over
 * the batch; the duration and quota share keep a value per poll (an EMF array), so percentiles
 * and maxima read the same. A club's own figures are on its `club polled` log line, which the
 * saved Logs Insights queries read (lib/constructs/monitoring/queries.ts). One document per
 * dispatch run for the whole fleet.
 *
 * Freshness is the dispatcher's: `SourcesOverdue` and `OldestSuccessAgeSeconds` once per run; the
 * clubs behind them are its `source overdue` log lines. Watermark lag is a log field only (the
 * poll's `club polled` line carries the highest, `source polled` at DEBUG each source's).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ENV, METRIC, METRICS_NAMESPACE } from './deployment-contract';
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

/**
 * What the metrics read of a club poll's report: a structural subset of the engine's ClubReport
 * (engine/club-poll/club-report.ts), declared here so that common imports nothing above it.
 */
export interface ClubPollReportFigures {
  readonly sources: readonly { readonly records: number; readonly events: number }[];
  readonly failures: readonly { readonly kind: string }[];
  readonly requests: number;
  readonly quotaUsed?: number;
  readonly operationalEvents: readonly unknown[];
  /** The poll's lifecycle evaluation, when it ran one (`failed` counts in LifecycleFailures). */
  readonly lifecycle?: { readonly outcome: string };
}

export interface ClubPollMetricsInput {
  readonly report: ClubPollReportFigures;
  readonly plan: Plan;
  /** Wall time of the whole club poll. */
  readonly durationMs: number;
  /** HTTP 429 answers the API gave during the poll (retries included). */
  readonly rateLimited: number;
}

/** Requests this month / the plan's monthly quota (the `QuotaUsedShare` metric and log field). */
export function quotaUsedShare(quotaUsed: number, plan: Plan): number {
  return quotaUsed / PLAN_QUOTAS[plan];
}

/**
 * Values one EMF metric may carry in a document (Powertools' MAX_METRIC_VALUES_SIZE, the EMF
 * limit): a batch of more polls is written as several documents. The eight poll metrics are far
 * from the 100 metrics a document may hold.
 */
export const EMF_MAX_VALUES = 100;

/**
 * The poll metrics of one invocation, written by `publish` as ONE EMF document (more only past
 * EMF_MAX_VALUES polls). Each poll adds its figures as it ends; nothing is written before the
 * batch is done, so polls running side by side never share a half-written document.
 *
 * - Summed over the batch (one value each): RecordsFetched, EventsPublished, ApiRequests,
 *   RateLimited, PollErrors, CredentialsRejected, LifecycleFailures. They are counts, read only as a Sum (the
 *   PollErrors and CredentialsRejected alarms, the dashboard's graphs), and the Sum of one total is
 *   the Sum of its parts. Their SampleCount and Average become per invocation; nothing reads them.
 * - One value per poll (an EMF array): PollDuration (the dashboard's p50, p99 and maximum need
 *   every poll's) and QuotaUsedShare (a share, not a count: the QuotaHigh alarm's Maximum is the
 *   same). PollDuration's SampleCount stays the number of polls.
 */
export class PollBatchMetrics {
  #sums = emptySums();
  #durations: number[] = [];
  #quotaShares: number[] = [];

  /** Polls added since the last publish. */
  get polls(): number {
    return this.#durations.length;
  }

  /** One club poll that ran: its records, events, requests, 429s, failed sources, duration, quota. */
  addPoll(input: ClubPollMetricsInput): void {
    const { report } = input;
    const sums = this.#sums;
    sums.records += report.sources.reduce((n, s) => n + s.records, 0);
    sums.events += report.sources.reduce((n, s) => n + s.events, 0) + report.operationalEvents.length;
    sums.requests += report.requests;
    sums.rateLimited += input.rateLimited;
    sums.pollErrors += report.failures.length;
    if (report.failures.some((f) => f.kind === 'auth')) sums.credentialsRejected += 1;
    if (report.lifecycle?.outcome === 'failed') sums.lifecycleFailures += 1;
    this.#durations.push(Math.max(0, Math.round(input.durationMs)));
    if (report.quotaUsed !== undefined) this.#quotaShares.push(quotaUsedShare(report.quotaUsed, input.plan));
  }

  /** A club poll that could not run at all (club or secret unreadable, store down): one poll error. */
  addFailure(durationMs: number): void {
    this.#sums.pollErrors += 1;
    this.#durations.push(Math.max(0, Math.round(durationMs)));
  }

  /** Writes the batch (nothing when no poll was added) and starts over. */
  publish(metrics: Metrics): void {
    const sums = this.#sums;
    const durations = this.#durations;
    const shares = this.#quotaShares;
    this.#sums = emptySums();
    this.#durations = [];
    this.#quotaShares = [];
    for (let from = 0; from < durations.length; from += EMF_MAX_VALUES) {
      if (from === 0) addSums(metrics, sums);
      for (const ms of durations.slice(from, from + EMF_MAX_VALUES)) {
        metrics.addMetric(METRIC.pollDuration, MetricUnit.Milliseconds, ms);
      }
      for (const share of shares.slice(from, from + EMF_MAX_VALUES)) {
        metrics.addMetric(METRIC.quotaUsedShare, MetricUnit.NoUnit, share);
      }
      // Powertools writes a document itself when a metric reaches EMF_MAX_VALUES values.
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  }
}

interface PollSums {
  records: number;
  events: number;
  requests: number;
  rateLimited: number;
  pollErrors: number;
  credentialsRejected: number;
  lifecycleFailures: number;
}

function emptySums(): PollSums {
  return {
    records: 0,
    events: 0,
    requests: 0,
    rateLimited: 0,
    pollErrors: 0,
    credentialsRejected: 0,
    lifecycleFailures: 0,
  };
}

/** The batch's counts, zeros included (an alarm sees data, and recovers). */
function addSums(metrics: Metrics, sums: PollSums): void {
  metrics.addMetric(METRIC.recordsFetched, MetricUnit.Count, sums.records);
  metrics.addMetric(METRIC.eventsPublished, MetricUnit.Count, sums.events);
  metrics.addMetric(METRIC.apiRequests, MetricUnit.Count, sums.requests);
  metrics.addMetric(METRIC.rateLimited, MetricUnit.Count, sums.rateLimited);
  metrics.addMetric(METRIC.pollErrors, MetricUnit.Count, sums.pollErrors);
  metrics.addMetric(METRIC.credentialsRejected, MetricUnit.Count, sums.credentialsRejected);
  metrics.addMetric(METRIC.lifecycleFailures, MetricUnit.Count, sums.lifecycleFailures);
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
 * club's own share is on its `club polled` log line).
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
