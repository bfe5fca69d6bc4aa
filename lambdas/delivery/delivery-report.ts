/**
 * What one invocation of a webhook function (the fan-out, the delivery) reports: fleet-wide metrics
 * as ONE EMF document (dimension `service` only; a count that is 0 is left out, so an invocation
 * that only delivered writes two metrics), and ONE log line (`webhook batch`) with each delivery:
 * `<webhookId> <endpointId> <result> <status> <attempt> <ms>` (ms: publish to 2xx when delivered,
 * the delivery's age otherwise), what Logs Insights reads per endpoint (delivered, failed attempts,
 * p95 latency, oldest undelivered age) and per event (`explain`, the saved query). About 70 bytes a
 * delivery, plus the document and the line's own.
 *
 * An endpoint with metrics on (opt-in, `webhooks add --metrics`) also gets a document of its own
 * (dimensions `service` and `endpointId`, the same four names as the fleet's delivered, failed
 * attempts, latency and oldest undelivered age): a CloudWatch metric is billed $0.30 a month, so
 * four per endpoint for every endpoint would be $1,200 a month at 1,000 endpoints; an endpoint
 * with metrics off costs nothing more than its share of the fleet's document.
 */
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC, WEBHOOK_BATCH_LOG_MESSAGE } from '../common/deployment-contract';
import { logger } from '../common/logger';
import { createMetrics, EMF_MAX_VALUES } from '../common/metrics';

/** What the report writes to: Powertools Metrics, or a no-op locally. */
export interface MetricsSink {
  addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): unknown;
  hasStoredMetrics(): boolean;
  publishStoredMetrics(): unknown;
}

/**
 * The sink of one endpoint's own metrics: Powertools Metrics with `endpointId` among its DEFAULT
 * dimensions, which every document it writes carries (also the one Powertools writes by itself when
 * a metric reaches EMF_MAX_VALUES values, after which it clears the other dimensions).
 */
export type EndpointMetricsSink = (endpointId: string) => MetricsSink;

/** One endpoint's sink in the Lambda: a Metrics instance of its own (the contract's namespace). */
export function createEndpointMetrics(
  endpointId: string,
  options: { readonly serviceName?: string } = {},
): Metrics {
  return createMetrics(options).setDefaultDimensions({ endpointId });
}

/** Metrics that go nowhere: the local demo and tests (the log line stays). */
export const NO_METRICS: MetricsSink = {
  addMetric: () => undefined,
  hasStoredMetrics: () => false,
  publishStoredMetrics: () => undefined,
};

/**
 * What became of one delivery in this invocation. The fan-out's: `queued` (not attempted here:
 * paced, held to the queue, circuit open) and `handed-off` (its first attempt got no answer within
 * the inline budget); both wait in the delivery queue, as `waiting` ones do.
 */
export type DeliveryResult =
  | 'delivered'
  | 'failed'
  | 'waiting'
  | 'queued'
  | 'handed-off'
  | 'dead'
  | 'dropped'
  | 'error';

interface EndpointFigures {
  delivered: number;
  failed: number;
  dead: number;
  waiting: number;
  latenciesMs: number[];
  oldestUndeliveredS: number;
}

export class DeliveryReport {
  readonly #endpoints = new Map<string, EndpointFigures>();
  readonly #measured = new Set<string>();
  readonly #deliveries: string[] = [];
  #disabled = 0;

  #figures(endpointId: string): EndpointFigures {
    let f = this.#endpoints.get(endpointId);
    if (!f) {
      f = { delivered: 0, failed: 0, dead: 0, waiting: 0, latenciesMs: [], oldestUndeliveredS: 0 };
      this.#endpoints.set(endpointId, f);
    }
    return f;
  }

  /** An endpoint with metrics on: its figures of this invocation are also written as its own metrics. */
  measure(endpointId: string): void {
    this.#measured.add(endpointId);
  }

  /** One delivery's outcome; `ageMs` since it was first queued (or published). */
  add(
    endpointId: string,
    webhookId: string,
    result: DeliveryResult,
    detail: {
      readonly status?: number;
      readonly attempt?: number;
      readonly latencyMs?: number;
      readonly ageMs?: number;
    } = {},
  ): void {
    const f = this.#figures(endpointId);
    if (result === 'delivered') {
      f.delivered++;
      if (detail.latencyMs !== undefined) f.latenciesMs.push(Math.max(0, Math.round(detail.latencyMs)));
    } else if (result === 'failed') f.failed++;
    else if (result === 'dead') f.dead++;
    else if (result === 'waiting' || result === 'queued' || result === 'handed-off') f.waiting++;
    if (result !== 'delivered' && result !== 'dropped' && detail.ageMs !== undefined) {
      f.oldestUndeliveredS = Math.max(f.oldestUndeliveredS, Math.round(detail.ageMs / 1000));
    }
    // Each delivery with its latency (delivered) or its age (the others), ms, when known: what
    // an endpoint's figures are made of, so the line needs no figures per endpoint beside.
    const ms = result === 'delivered' ? detail.latencyMs : result === 'dropped' ? undefined : detail.ageMs;
    this.#deliveries.push(
      `${webhookId} ${endpointId} ${result} ${detail.status ?? '-'} ${detail.attempt ?? '-'}${ms === undefined ? '' : ` ${Math.max(0, Math.round(ms))}`}`,
    );
  }

  endpointDisabled(): void {
    this.#disabled++;
  }

  get size(): number {
    return this.#deliveries.length;
  }

  /** Writes the metrics and the log line, and starts over. */
  publish(metrics: MetricsSink, extra: Record<string, unknown> = {}): void {
    const fields = this.flush(metrics);
    if (fields) logger.info(WEBHOOK_BATCH_LOG_MESSAGE, { ...extra, ...fields });
  }

  /**
   * Writes the metrics (the fleet's, then each measured endpoint's to `endpointMetrics`) and starts
   * over; returns the `webhook batch` line's fields (each delivery), or undefined when there was
   * nothing to report. The delivery handler writes them on its one
   * invocation line (with the Lambda context).
   */
  flush(
    metrics: MetricsSink,
    endpointMetrics: EndpointMetricsSink = () => NO_METRICS,
  ): Record<string, unknown> | undefined {
    if (this.#deliveries.length === 0 && this.#disabled === 0) {
      this.#measured.clear();
      return undefined;
    }
    const all = [...this.#endpoints.values()];
    const sum = (pick: (f: EndpointFigures) => number) => all.reduce((n, f) => n + pick(f), 0);
    // The fleet's counts only when not 0: a document an invocation is most of a delivery's log
    // bytes, and no alarm needs the zeros (they treat missing data as not breaching).
    const add = (name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number) => {
      if (value > 0) metrics.addMetric(name, unit, value);
    };
    add(
      METRIC.webhookDelivered,
      MetricUnit.Count,
      sum((f) => f.delivered),
    );
    add(
      METRIC.webhookAttemptsFailed,
      MetricUnit.Count,
      sum((f) => f.failed),
    );
    add(
      METRIC.webhookDeadLettered,
      MetricUnit.Count,
      sum((f) => f.dead),
    );
    add(METRIC.webhookEndpointsDisabled, MetricUnit.Count, this.#disabled);
    add(
      METRIC.webhookOldestUndeliveredAge,
      MetricUnit.Seconds,
      Math.max(0, ...all.map((f) => f.oldestUndeliveredS)),
    );
    publishWithLatencies(
      metrics,
      all.flatMap((f) => f.latenciesMs),
    );
    for (const [endpointId, f] of this.#endpoints) {
      if (this.#measured.has(endpointId)) publishEndpointMetrics(endpointMetrics(endpointId), f);
    }
    const fields = { deliveries: [...this.#deliveries] };
    this.#endpoints.clear();
    this.#measured.clear();
    this.#deliveries.length = 0;
    this.#disabled = 0;
    return fields;
  }
}

/**
 * One endpoint's own metrics, the fleet's names: delivered and failed attempts (0 included, so an
 * alarm sees data), the oldest undelivered age, a latency per delivery.
 */
function publishEndpointMetrics(sink: MetricsSink, f: EndpointFigures): void {
  sink.addMetric(METRIC.webhookDelivered, MetricUnit.Count, f.delivered);
  sink.addMetric(METRIC.webhookAttemptsFailed, MetricUnit.Count, f.failed);
  sink.addMetric(METRIC.webhookOldestUndeliveredAge, MetricUnit.Seconds, f.oldestUndeliveredS);
  publishWithLatencies(sink, f.latenciesMs);
}

/**
 * Adds a WebhookLatency value per delivery (CloudWatch computes the percentiles from them) and
 * writes what is stored: at most EMF_MAX_VALUES values a document. Powertools writes a document
 * by itself when a metric reaches EMF_MAX_VALUES values; a sink that does not is written here.
 */
function publishWithLatencies(sink: MetricsSink, latenciesMs: readonly number[]): void {
  for (let from = 0; from < latenciesMs.length; from += EMF_MAX_VALUES) {
    for (const ms of latenciesMs.slice(from, from + EMF_MAX_VALUES)) {
      sink.addMetric(METRIC.webhookLatency, MetricUnit.Milliseconds, ms);
    }
    if (sink.hasStoredMetrics()) sink.publishStoredMetrics();
  }
  if (sink.hasStoredMetrics()) sink.publishStoredMetrics();
}
