/**
 * One webhook Lambda function in a process of its own, for the webhook bench: the real handler
 * (lambdas/delivery/handlers) over the real runtime built from the environment the template gives
 * the function (with the AWS endpoints of ./aws-host.ts), one per container, invoked by the
 * emulated SQS event source (./event-source.ts). Its own process, so its CPU is its own (the
 * event source's polling included: an upper bound of the function's). What the function writes
 * to stdout and stderr (its log lines and EMF documents) is counted, not printed. The delivery
 * function attempts with the local address policy (the receivers are on 127.0.0.1) and trusts the
 * receivers' certificate; each 2xx is recorded with its time. Run by the bench, never on its own.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { serveHost } from '../hosts/rpc';
import { EventSource, type InvokeFn } from './event-source';

export interface LambdaHostConfig {
  readonly kind: 'fanOut' | 'deliver';
  /** The function's environment: the template's, refs resolved, plus the local AWS endpoints. */
  readonly env: Record<string, string>;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly batchingWindowSec: number;
  readonly maxConcurrency: number;
  readonly timeoutSec: number;
  readonly memoryMb: number;
  /** PEM of the receivers' certificate (delivery). */
  readonly ca?: string;
}

/** A 2xx: webhook-id, the endpoint's path, when the answer came (ms since the epoch). */
export type Delivered = [webhookId: string, path: string, atMs: number];

const output = { logBytes: 0, logLines: 0, emfBytes: 0, emfDocuments: 0, stderrTail: [] as string[] };
let source: EventSource | undefined;
let delivered: Delivered[] = [];
const failures: Record<string, number> = {};

/**
 * The delivery invocations' attempts, from their `webhook batch` lines: the endpoints of a batch
 * are attempted side by side, one endpoint's deliveries one after the other, so an invocation lasts
 * about as long as its longest chain of attempts to one endpoint.
 */
const attempts = { ms: [] as number[], batches: 0, endpoints: 0, longestChains: 0 };

function countBatch(line: string): void {
  const batch = JSON.parse(line) as { endpoints?: Record<string, { delivered: number; failed: number }> };
  const chains = Object.values(batch.endpoints ?? {}).map((e) => e.delivered + e.failed);
  attempts.batches++;
  attempts.endpoints += chains.length;
  attempts.longestChains += Math.max(0, ...chains);
}

/** Counts what the function writes (log lines, EMF documents) instead of printing it. */
function captureOutput(): void {
  const count = (chunk: unknown, stderr: boolean) => {
    for (const line of String(chunk).split('\n')) {
      if (line === '') continue;
      const bytes = Buffer.byteLength(line) + 1;
      if (line.includes('"message":"webhook batch"')) countBatch(line);
      if (line.includes('"_aws":')) {
        output.emfBytes += bytes;
        output.emfDocuments++;
      } else {
        output.logBytes += bytes;
        output.logLines++;
      }
      if (stderr) output.stderrTail = [...output.stderrTail.slice(-19), line.slice(0, 400)];
    }
    return true;
  };
  process.stdout.write = ((chunk: unknown) => count(chunk, false)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) => count(chunk, true)) as typeof process.stderr.write;
}

async function containerFactory(config: LambdaHostConfig): Promise<() => InvokeFn> {
  if (config.kind === 'fanOut') {
    const { createFanOutHandler } = await import('../../lambdas/delivery/handlers/fan-out-handler');
    const { fanOutRuntimeFromEnv } = await import('../../lambdas/delivery/handlers/runtime');
    return () => createFanOutHandler(fanOutRuntimeFromEnv(process.env)) as InvokeFn;
  }
  const { createDeliverHandler } = await import('../../lambdas/delivery/handlers/deliver-handler');
  const { deliverRuntimeFromEnv } = await import('../../lambdas/delivery/handlers/runtime');
  const { sendWebhook } = await import('../../lambdas/delivery/http-delivery');
  return () => {
    const rt = deliverRuntimeFromEnv(process.env);
    const send = async (request: Parameters<typeof sendWebhook>[0]) => {
      const outcome = await sendWebhook(request, {
        policy: 'local',
        timeoutMs: rt.timeoutMs,
        ...(config.ca ? { ca: config.ca } : {}),
      });
      attempts.ms.push(outcome.ms);
      if (outcome.ok)
        delivered.push([request.headers['webhook-id'] ?? '', new URL(request.url).pathname, Date.now()]);
      else failures[outcome.kind] = (failures[outcome.kind] ?? 0) + 1;
      return outcome;
    };
    return createDeliverHandler(rt, { send }) as InvokeFn;
  };
}

serveHost({
  async start(config: LambdaHostConfig) {
    Object.assign(process.env, config.env);
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    captureOutput();
    const container = await containerFactory(config);
    const sqs = new SQSClient({
      endpoint: config.env.AWS_ENDPOINT_URL_SQS,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    source = new EventSource({
      sqs,
      queueUrl: config.queueUrl,
      queueArn: config.queueArn,
      batchSize: config.batchSize,
      batchingWindowSec: config.batchingWindowSec,
      maxConcurrency: config.maxConcurrency,
      timeoutSec: config.timeoutSec,
      memoryMb: config.memoryMb,
      functionName: `GymBridge-prod-Webhooks-${config.kind}`,
      container,
    });
    source.start();
    return true;
  },
  /** What the function did since the last `figures` (and resets it). */
  figures() {
    const s = source!;
    const out = {
      ...s.figures,
      output: { ...output },
      failures: { ...failures },
      attempts: { ...attempts },
      cpu: process.cpuUsage(),
    };
    Object.assign(attempts, { ms: [], batches: 0, endpoints: 0, longestChains: 0 });
    Object.assign(s.figures, {
      invocations: 0,
      records: 0,
      billedMs: 0,
      durationsMs: [],
      itemFailures: 0,
      errors: 0,
    });
    s.figures.peakConcurrency = 0;
    Object.assign(output, { logBytes: 0, logLines: 0, emfBytes: 0, emfDocuments: 0 });
    for (const k of Object.keys(failures)) delete failures[k];
    return out;
  },
  /** The 2xx since the last call. */
  takeDelivered() {
    const out = delivered;
    delivered = [];
    return out;
  },
  stderrTail: () => output.stderrTail,
  cpu: () => process.cpuUsage(),
  async stop() {
    await source?.stop();
    return true;
  },
});
