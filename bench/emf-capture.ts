/**
 * Measures what the bridge's CloudWatch metrics cost: the real metric helpers (common/metrics.ts)
 * write their EMF documents into this capture instead of stdout; the capture counts the bytes
 * (CloudWatch Logs ingestion) and the distinct metrics (namespace, name and dimension values:
 * each one is a billed custom metric).
 *
 * The poll Lambda writes ONE document per invocation (PollBatchMetrics), for a batch of up to the
 * poll queue's event source batch size: `poll` writes the document of a whole batch of such polls
 * (the deployed batch size, bench/deployment.ts `pollBatchSize`) and counts each poll its share.
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { type ClubPollMetricsInput, createMetrics, PollBatchMetrics } from '../lambdas/common/metrics';

interface EmfDocument {
  _aws?: { CloudWatchMetrics?: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

export class EmfCapture {
  readonly metrics: Metrics;
  /** EMF bytes: each poll's share of its invocation's document. */
  bytes = 0;
  /** Documents: each poll's share (1 / batch size) of one. */
  documents = 0;
  readonly identities = new Set<string>();
  /** Bytes and documents written since `poll` began. */
  #written = { bytes: 0, documents: 0 };

  /** `batchSize`: the clubs an invocation polls (the deployed event source batch size). */
  constructor(readonly batchSize = 1) {
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`batchSize must be a whole number >= 1, got ${batchSize}`);
    }
    const saved = process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    this.metrics = createMetrics({ serviceName: 'gym-bridge' });
    if (saved !== undefined) process.env.POWERTOOLS_METRICS_DISABLED = saved;
    // The EMF documents go to `console.log` of the Metrics instance: capture them.
    (this.metrics as unknown as { console: { log: (line: string) => void } }).console = {
      log: (line: string) => this.#record(line),
    };
  }

  /**
   * One club poll's share of its invocation's EMF: the document the poll handler's PollBatchMetrics
   * writes for a batch of `batchSize` polls with this poll's figures, divided by `batchSize`.
   */
  poll(input: ClubPollMetricsInput): void {
    const batch = new PollBatchMetrics();
    for (let i = 0; i < this.batchSize; i++) batch.addPoll(input);
    this.#written = { bytes: 0, documents: 0 };
    batch.publish(this.metrics);
    this.bytes += this.#written.bytes / this.batchSize;
    this.documents += this.#written.documents / this.batchSize;
  }

  #record(line: string): void {
    this.#written.bytes += Buffer.byteLength(line, 'utf8') + 1;
    this.#written.documents++;
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
