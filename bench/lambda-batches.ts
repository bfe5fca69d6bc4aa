/**
 * How long a poll invocation lasts: as long as the slowest club of its batch, with the CPU of all of
 * them shared. The clubs of a batch run side by side on one Node event loop: their CPU work never
 * runs at once (each burst waits for the loop), their network waits overlap. So an invocation is
 * simulated, not averaged: `batch` polls drawn (seeded) from the typical club's measured polls, each
 * a run of CPU bursts between its network waits (its API requests on the critical path, its
 * DynamoDB and PutEvents calls), the bursts sharing the loop equally (processor sharing) at the
 * function's CPU share. The invocation ends with its last club.
 */
import { mulberry32 } from '../lambdas/common/seeded-random';

/** Latencies (ms) the Lambda duration model adds per network call (prices.ts, or the caller's). */
export interface Latencies {
  readonly gymApiRequest: number;
  readonly dynamoRequest: number;
  readonly putEventsRequest: number;
}

/**
 * What one measured poll did: its local time (on-CPU ms on a whole core: the lower of its process
 * CPU and its wall time) and its network calls.
 */
export interface PollWork {
  readonly localMs: number;
  readonly criticalApiRequests: number;
  readonly storeRequests: number;
  readonly putEventsRequests: number;
}

/** At most this many polls are kept to draw batches from (seeded; enough for the mean and tail). */
export const POLL_WORK_SAMPLES = 400;

/** `POLL_WORK_SAMPLES` of the polls, drawn without replacement (all of them when fewer). */
export function samplePollWork(polls: readonly PollWork[], seed = 1): PollWork[] {
  if (polls.length <= POLL_WORK_SAMPLES) return [...polls];
  const random = mulberry32(seed);
  const pool = [...polls];
  for (let i = 0; i < POLL_WORK_SAMPLES; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, POLL_WORK_SAMPLES);
}

interface Club {
  /** CPU left in the current burst, ms at the function's whole share. */
  cpuLeft: number;
  /** When the current wait ends (ms), or undefined while in a burst. */
  waitUntil?: number;
  burstsLeft: number;
  readonly burstMs: number;
  readonly waitMs: number;
}

/**
 * One invocation's duration (ms): each poll's CPU (`localMs × cpuStretch`) in `waits + 1` equal
 * bursts around its `waits` network waits (its latency spread evenly over them), the bursts of all
 * clubs sharing the loop.
 */
export function invocationMs(polls: readonly PollWork[], cpuStretch: number, L: Latencies): number {
  const clubs: Club[] = polls.map((p) => {
    const waitTotal =
      p.criticalApiRequests * L.gymApiRequest +
      p.storeRequests * L.dynamoRequest +
      p.putEventsRequests * L.putEventsRequest;
    // Waits on the critical path: the API requests; DynamoDB and PutEvents calls add to them.
    const waits = waitTotal > 0 ? Math.max(1, p.criticalApiRequests) : 0;
    const burstMs = (p.localMs * cpuStretch) / (waits + 1);
    return { cpuLeft: burstMs, burstsLeft: waits, burstMs, waitMs: waits > 0 ? waitTotal / waits : 0 };
  });
  let now = 0;
  for (;;) {
    const running = clubs.filter((c) => c.waitUntil === undefined && (c.cpuLeft > 0 || c.burstsLeft > 0));
    const waiting = clubs.filter((c) => c.waitUntil !== undefined);
    if (running.length === 0 && waiting.length === 0) return now;
    const n = running.length;
    const nextBurstEnd = n > 0 ? Math.min(...running.map((c) => c.cpuLeft)) * n : Number.POSITIVE_INFINITY;
    const nextWaitEnd =
      waiting.length > 0 ? Math.min(...waiting.map((c) => c.waitUntil!)) - now : Number.POSITIVE_INFINITY;
    const dt = Math.max(0, Math.min(nextBurstEnd, nextWaitEnd));
    now += dt;
    for (const c of running) {
      c.cpuLeft -= dt / n;
      if (c.cpuLeft <= 1e-9) {
        c.cpuLeft = 0;
        if (c.burstsLeft > 0) {
          c.burstsLeft--;
          c.waitUntil = now + c.waitMs;
        }
      }
    }
    for (const c of waiting) {
      if (c.waitUntil! <= now + 1e-9) {
        c.waitUntil = undefined;
        c.cpuLeft = c.burstMs;
      }
    }
  }
}

export interface BatchDurations {
  /** Mean invocation duration, ms. */
  readonly meanMs: number;
  readonly p95Ms: number;
  /** Mean over the batch of the clubs' own durations alone (the average club), ms. */
  readonly meanClubAloneMs: number;
}

/** Invocations of `batch` polls drawn (seeded, with replacement) from `samples`: their durations. */
export function batchDurations(
  samples: readonly PollWork[],
  batch: number,
  cpuStretch: number,
  L: Latencies,
  draws = 1000,
  seed = 7,
): BatchDurations {
  if (samples.length === 0) return { meanMs: 0, p95Ms: 0, meanClubAloneMs: 0 };
  const random = mulberry32(seed);
  const durations: number[] = [];
  let alone = 0;
  for (let i = 0; i < draws; i++) {
    const polls = Array.from({ length: batch }, () => samples[Math.floor(random() * samples.length)]!);
    durations.push(invocationMs(polls, cpuStretch, L));
    for (const p of polls) alone += invocationMs([p], cpuStretch, L);
  }
  durations.sort((a, b) => a - b);
  const mean = durations.reduce((a, b) => a + b, 0) / draws;
  return {
    meanMs: mean,
    p95Ms: durations[Math.min(draws - 1, Math.floor(draws * 0.95))]!,
    meanClubAloneMs: alone / (draws * batch),
  };
}
