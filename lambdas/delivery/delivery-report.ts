/**
 * What one delivery invocation reports: fleet-wide metrics as ONE EMF document (dimension `service`
 * only: a metric per endpoint would be billed per endpoint, $0.30 a month each, $1,200 a month for
 * four metrics at 1,000 endpoints), and ONE log line (`webhook batch`) with each endpoint's figures
 * and each delivery's outcome, which the saved Logs Insights queries read per endpoint (delivered,
 * failed attempts, p95 latency, oldest undelivered age) and per event (`explain`). A few dozen
 * bytes a delivery: the log bill of a million deliveries is a few cents.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC, WEBHOOK_BATCH_LOG_MESSAGE } from '../common/deployment-contract';
import { logger } from '../common/logger';
import { EMF_MAX_VALUES } from '../common/metrics';

/** What the report writes to: Powertools Metrics, or a no-op locally. */
export interface MetricsSink {
  addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): unknown;
  publishStoredMetrics(): unknown;
}

/** Metrics that go nowhere: the local demo and tests (the log line stays). */
export const NO_METRICS: MetricsSink = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** What became of one delivery in this invocation. */
export type DeliveryResult = 'delivered' | 'failed' | 'waiting' | 'dead' | 'dropped' | 'error';

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
    else if (result === 'waiting') f.waiting++;
    if (result !== 'delivered' && result !== 'dropped' && detail.ageMs !== undefined) {
      f.oldestUndeliveredS = Math.max(f.oldestUndeliveredS, Math.round(detail.ageMs / 1000));
    }
    this.#deliveries.push(
      `${webhookId} ${endpointId} ${result} ${detail.status ?? '-'} ${detail.attempt ?? '-'}`,
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
   * Writes the metrics and starts over; returns the `webhook batch` line's fields (each
   * endpoint's figures, each delivery), or undefined when there was nothing to report. The delivery
   * handler writes them on its one invocation line (with the Lambda context).
   */
  flush(metrics: MetricsSink): Record<string, unknown> | undefined {
    if (this.#deliveries.length === 0 && this.#disabled === 0) return undefined;
    const all = [...this.#endpoints.values()];
    const sum = (pick: (f: EndpointFigures) => number) => all.reduce((n, f) => n + pick(f), 0);
    metrics.addMetric(
      METRIC.webhookDelivered,
      MetricUnit.Count,
      sum((f) => f.delivered),
    );
    metrics.addMetric(
      METRIC.webhookAttemptsFailed,
      MetricUnit.Count,
      sum((f) => f.failed),
    );
    metrics.addMetric(
      METRIC.webhookDeadLettered,
      MetricUnit.Count,
      sum((f) => f.dead),
    );
    metrics.addMetric(METRIC.webhookEndpointsDisabled, MetricUnit.Count, this.#disabled);
    const oldest = Math.max(0, ...all.map((f) => f.oldestUndeliveredS));
    metrics.addMetric(METRIC.webhookOldestUndeliveredAge, MetricUnit.Seconds, oldest);
    const latencies = all.flatMap((f) => f.latenciesMs);
    for (let from = 0; from < latencies.length; from += EMF_MAX_VALUES) {
      for (const ms of latencies.slice(from, from + EMF_MAX_VALUES)) {
        metrics.addMetric(METRIC.webhookLatency, MetricUnit.Milliseconds, ms);
      }
      if (from + EMF_MAX_VALUES < latencies.length) metrics.publishStoredMetrics();
    }
    metrics.publishStoredMetrics();
    const fields = {
      endpoints: Object.fromEntries(
        [...this.#endpoints].map(([id, f]) => [
          id,
          {
            delivered: f.delivered,
            failed: f.failed,
            dead: f.dead,
            waiting: f.waiting,
            ...(f.latenciesMs.length > 0 ? { latencyMs: f.latenciesMs } : {}),
            ...(f.oldestUndeliveredS > 0 ? { oldestUndeliveredS: f.oldestUndeliveredS } : {}),
          },
        ]),
      ),
      deliveries: [...this.#deliveries],
    };
    this.#endpoints.clear();
    this.#deliveries.length = 0;
    this.#disabled = 0;
    return fields;
  }
}
