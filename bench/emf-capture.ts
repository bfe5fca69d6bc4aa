/**
 * Measures what the bridge's CloudWatch metrics cost: the real metric helpers (common/metrics.ts)
 * write their EMF documents into this capture instead of stdout; the capture counts the bytes
 * (CloudWatch Logs ingestion) and the distinct metrics (namespace, name and dimension values:
 * each one is a billed custom metric).
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { createMetrics } from '../lambdas/common/metrics';

interface EmfDocument {
  _aws?: { CloudWatchMetrics?: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

export class EmfCapture {
  readonly metrics: Metrics;
  bytes = 0;
  documents = 0;
  readonly identities = new Set<string>();

  constructor() {
    const saved = process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    this.metrics = createMetrics({ serviceName: 'gym-bridge' });
    if (saved !== undefined) process.env.POWERTOOLS_METRICS_DISABLED = saved;
    // The EMF documents go to `console.log` of the Metrics instance: capture them.
    (this.metrics as unknown as { console: { log: (line: string) => void } }).console = {
      log: (line: string) => this.#record(line),
    };
  }

  #record(line: string): void {
    this.bytes += Buffer.byteLength(line, 'utf8') + 1;
    this.documents++;
    const doc = JSON.parse(line) as EmfDocument;
    for (const directive of doc._aws?.CloudWatchMetrics ?? []) {
      for (const dimensions of directive.Dimensions) {
        const dims = dimensions.map((d) => `${d}=${String(doc[d])}`).join(',');
        for (const m of directive.Metrics) this.identities.add(`${directive.Namespace}|${m.Name}|${dims}`);
      }
    }
  }

  /** Distinct metrics carrying a dimension value that names one club. */
  perClubMetrics(clubId: string): number {
    let n = 0;
    for (const id of this.identities) if (id.includes(`=${clubId}`)) n++;
    return n;
  }
}
