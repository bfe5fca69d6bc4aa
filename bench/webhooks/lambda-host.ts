/**
 * One webhook Lambda function in a process of its own, for the webhook bench: the real handler
 * (lambdas/delivery/handlers) over the real runtime built from the environment the template gives
 * the function (with the AWS endpoints of ./aws-host.ts), one per container, invoked by the
 * emulated SQS event source (./event-source.ts). Its own process, so its CPU is its own (the
 * event source's polling included: an upper bound of the function's). What the function writes
 * to stdout and stderr (its log lines and EMF documents) is counted, not printed. Both functions
 * attempt deliveries (the fan-out the first ones, the delivery function the others), with the
 * local address policy (the receivers are on 127.0.0.1), trusting the receivers' certificate; each
 * 2xx is recorded with its time and the function that made it, and each invocation's attempts per
 * endpoint are kept (what the Lambda duration model needs). Run by the bench, never on its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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
 * The invocations' attempts: each attempt's time; per invocation (a batch), the endpoints it
 * attempted and its longest chain of attempts to one endpoint (one endpoint's deliveries go one
 * after the other, the endpoints side by side, so an invocation lasts about as long as its longest
 * chain); and, apart, the longest time one endpoint's attempts were held by a deadline rather than
 * answered (an attempt that timed out, or a first attempt handed off at its budget): that wait is
 * the deadline's, whatever the network, so the duration model takes it as measured.
 */
const attempts = { ms: [] as number[], batches: 0, endpoints: 0, longestChains: 0, heldMs: 0 };

/** One attempt of an invocation: answered (or failed at once), or held until a deadline. */
interface BatchAttempt {
  readonly held: boolean;
  readonly ms: number;
}
const invocation = new AsyncLocalStorage<Map<string, BatchAttempt[]>>();

function countBatch(byEndpoint: Map<string, BatchAttempt[]>): void {
  if (byEndpoint.size === 0) return;
  const all = [...byEndpoint.values()];
  attempts.batches++;
  attempts.endpoints += all.length;
  attempts.longestChains += Math.max(...all.map((a) => a.filter((x) => !x.held).length));
  attempts.heldMs += Math.max(...all.map((a) => a.reduce((n, x) => n + (x.held ? x.ms : 0), 0)));
}

/** Counts what the function writes (log lines, EMF documents) instead of printing it. */
function captureOutput(): void {
  const count = (chunk: unknown, stderr: boolean) => {
    for (const line of String(chunk).split('\n')) {
      if (line === '') continue;
      const bytes = Buffer.byteLength(line) + 1;
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

/** The function's attempt: sendWebhook as deployed, with the receivers' policy and CA, recorded. */
async function recordingSend(config: LambdaHostConfig, timeoutMs: number) {
  const { sendWebhook } = await import('../../lambdas/delivery/http-delivery');
  return async (request: Parameters<typeof sendWebhook>[0]) => {
    const outcome = await sendWebhook(request, {
      policy: 'local',
      timeoutMs,
      ...(config.ca ? { ca: config.ca } : {}),
    });
    attempts.ms.push(outcome.ms);
    const path = new URL(request.url).pathname;
    const held = !outcome.ok && (outcome.kind === 'timeout' || outcome.kind === 'handoff');
    const batch = invocation.getStore();
    batch?.set(path, [...(batch.get(path) ?? []), { held, ms: outcome.ms }]);
    if (outcome.ok) delivered.push([request.headers['webhook-id'] ?? '', path, Date.now()]);
    else failures[outcome.kind] = (failures[outcome.kind] ?? 0) + 1;
    return outcome;
  };
}

async function containerFactory(config: LambdaHostConfig): Promise<() => InvokeFn> {
  const { DEFAULT_TIMEOUT_MS } = await import('../../lambdas/delivery/http-delivery');
  const send = await recordingSend(config, DEFAULT_TIMEOUT_MS);
  const counted =
    (fn: InvokeFn): InvokeFn =>
    (event, context) => {
      const batch = new Map<string, BatchAttempt[]>();
      return invocation.run(batch, () => fn(event, context)).finally(() => countBatch(batch));
    };
  if (config.kind === 'fanOut') {
    const { createFanOutHandler } = await import('../../lambdas/delivery/handlers/fan-out-handler');
    const { fanOutRuntimeFromEnv } = await import('../../lambdas/delivery/handlers/runtime');
    return () => counted(createFanOutHandler(fanOutRuntimeFromEnv(process.env), { send }) as InvokeFn);
  }
  const { createDeliverHandler } = await import('../../lambdas/delivery/handlers/deliver-handler');
  const { deliverRuntimeFromEnv } = await import('../../lambdas/delivery/handlers/runtime');
  return () => counted(createDeliverHandler(deliverRuntimeFromEnv(process.env), { send }) as InvokeFn);
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
    Object.assign(attempts, { ms: [], batches: 0, endpoints: 0, longestChains: 0, heldMs: 0 });
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
