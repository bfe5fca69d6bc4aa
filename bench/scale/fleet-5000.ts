/**
 * The fleet of 5,000 clubs: the real `dispatchDueClubs` over club state items in memory, with the
 * typical club's cursors, at the CPU share of the dispatch Lambda's memory (a run in full and one
 * stopped half-way); the poll side and the account quotas from the measured invocation time.
 */
import type { PollMessage } from '../../lambdas/common/deployment-contract';
import { dispatchDueClubs } from '../../lambdas/engine/dispatch/dispatch-due-clubs';
import { MemoryStateStore } from '../../lambdas/state';
import type { Cursor } from '../../lambdas/state/store';
import { type CountingStateStore, countingStore } from '../counting-store';
import { CountingRegistry } from '../production-path';
import { cpuMsSince } from '../stats';
import { seedCursors, syntheticFleet } from './synthetic-fleet';

/** What the report needs of the 5,000-club fleet (docs/benchmarks.json `scale.*`). */
export interface Fleet5000Result {
  readonly clubs: number;
  /** The dispatcher's run at the CPU share of its memory, with its requests' latency: seconds. */
  readonly dispatchSeconds: number;
  readonly dispatchTimeoutSeconds: number;
  readonly dispatchCpuMs: number;
  readonly dispatchWallMs: number;
  /** CPU time stretch at the dispatcher's memory (1,769 MB = one vCPU). */
  readonly cpuStretch: number;
  readonly messages: number;
  readonly readRequests: number;
  readonly sendMessageBatchRequests: number;
  /** When the first messages were handed to the queue, as a share of the run (sends as it goes). */
  readonly firstSendShare: number;
  /** A run stopped half-way (its deadline at half the run): what it had queued, and what it left. */
  readonly halfDeadline: { readonly messages: number; readonly notReached: number };
  /** Poll Lambdas busy at once in the steady state: invocations a minute x billed seconds / 60. */
  readonly pollConcurrencyNeeded: number;
  /** What the stage configures for this many clubs (lib/stage-config.ts pollConcurrencyFor). */
  readonly pollConcurrencyConfigured: number;
  readonly pollInvocationSeconds: number;
  /** Account quotas against the fleet's rates (us-east-1 defaults). */
  readonly rates: {
    readonly putEventsRequestsPerSecond: number;
    readonly putEventsQuotaPerSecond: number;
    readonly getSecretValuePerSecond: number;
    readonly getSecretValueQuotaPerSecond: number;
  };
  /** Requests one DynamoDB key gets a minute at most: a club's state item (read once, written twice). */
  readonly maxRequestsPerKeyPerMinute: number;
}

/** Latency assumed per dispatcher request (same region), ms. */
const DISPATCH_REQUEST_MS = 10;

export interface Fleet5000Input {
  readonly template: readonly Cursor[];
  readonly nowMs: number;
  readonly clubs: number;
  readonly dispatchMemoryMb: number;
  readonly dispatchTimeoutSeconds: number;
  readonly batchSize: number;
  readonly pollConcurrencyConfigured: number;
  /** Billed seconds of one poll invocation (a full batch), from the cost model. */
  readonly pollInvocationSeconds: number;
  /** Per club per month, from the typical club. */
  readonly putEventsRequestsPerClubMonth: number;
  /** GetSecretValue calls a second for the fleet (containers x secrets / TTL). */
  readonly getSecretValuePerSecond: number;
}

/** One whole dispatcher run: its summary, its times and when it handed its messages to the queue. */
async function timedDispatch(registry: CountingRegistry, store: CountingStateStore, nowMs: number) {
  const sends: number[] = [];
  const queue = {
    messages: 0,
    requests: 0,
    async sendBatch(messages: readonly PollMessage[]) {
      sends.push(performance.now());
      this.messages += messages.length;
      this.requests += Math.ceil(messages.length / 10);
    },
  };
  store.take();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await dispatchDueClubs({ registry, store, queue, now: nowMs });
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const firstSendShare = sends.length > 0 ? ((sends[0] ?? t0) - t0) / wallMs : 1;
  return { summary, wallMs, cpuMs, sendMessageBatchRequests: queue.requests, firstSendShare };
}

/** The same run stopped half-way (its deadline at `wallMs / 2`): what it queued before its deadline. */
async function halfDeadlineDispatch(
  registry: CountingRegistry,
  store: CountingStateStore,
  nowMs: number,
  wallMs: number,
): Promise<Fleet5000Result['halfDeadline']> {
  const half = {
    messages: 0,
    requests: 0,
    async sendBatch(m: readonly PollMessage[]) {
      this.messages += m.length;
    },
  };
  const halfSummary = await dispatchDueClubs({
    registry,
    store,
    queue: half,
    now: nowMs,
    deadlineMs: Date.now() + wallMs / 2,
  });
  return { messages: half.messages, notReached: halfSummary.notReached };
}

export async function fleet5000(input: Fleet5000Input): Promise<Fleet5000Result> {
  const { records, cursors } = syntheticFleet(input.clubs, input.template, input.nowMs);
  const inner = new MemoryStateStore();
  await seedCursors(inner, cursors, 1);
  const store = countingStore(inner);
  const registry = new CountingRegistry(records, () => input.nowMs);
  const run = await timedDispatch(registry, store, input.nowMs);
  const cpuStretch = Math.max(1, 1769 / input.dispatchMemoryMb);
  const dispatchSeconds =
    (run.cpuMs * cpuStretch + (run.summary.tableReads + 2) * DISPATCH_REQUEST_MS) / 1000;
  const halfDeadline = await halfDeadlineDispatch(registry, store, input.nowMs, run.wallMs);
  const invocationsPerMinute = Math.ceil(input.clubs / input.batchSize);
  return {
    clubs: run.summary.clubs,
    dispatchSeconds,
    dispatchTimeoutSeconds: input.dispatchTimeoutSeconds,
    dispatchCpuMs: run.cpuMs,
    dispatchWallMs: run.wallMs,
    cpuStretch,
    messages: run.summary.messages,
    readRequests: run.summary.tableReads,
    sendMessageBatchRequests: run.sendMessageBatchRequests,
    firstSendShare: run.firstSendShare,
    halfDeadline,
    pollConcurrencyNeeded: (invocationsPerMinute * input.pollInvocationSeconds) / 60,
    pollConcurrencyConfigured: input.pollConcurrencyConfigured,
    pollInvocationSeconds: input.pollInvocationSeconds,
    rates: {
      putEventsRequestsPerSecond: (input.putEventsRequestsPerClubMonth * input.clubs) / (30 * 86_400),
      putEventsQuotaPerSecond: 10_000,
      getSecretValuePerSecond: input.getSecretValuePerSecond,
      getSecretValueQuotaPerSecond: 10_000,
    },
    maxRequestsPerKeyPerMinute: 3,
  };
}
