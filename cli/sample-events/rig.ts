/**
 * The rig of `events sample`: an in-process sandbox club polled by the real engine (memory store,
 * memory sink) on the sandbox's fixed simulated clock, and the loop that runs rounds until enough
 * events of the asked type exist. What each kind of event needs is in index.ts and operational.ts.
 */

import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent, DetailType } from '../../lambdas/events/catalog';
import { MemorySink } from '../../lambdas/events/memory-sink';
import { DEFAULT_PII_POLICY } from '../../lambdas/events/pii';
import { MemoryStateStore } from '../../lambdas/state';
import { type Sandbox, startSandbox } from '../../sandbox';
import type { SandboxOptions } from '../../sandbox/options';

export const MAX_SAMPLE_COUNT = 200;

/** The simulated clock's start: fixed, so a seed always gives the same events. */
export const SAMPLE_START = '2026-03-02T06:00:00Z';

export interface SampleOptions {
  readonly detailType: DetailType;
  /** Events wanted (1..MAX_SAMPLE_COUNT). */
  readonly count: number;
  /** Seed of the sandbox (its data, names, amounts, times). @default 1 */
  readonly seed?: number;
  /** PII policy of the sample club. @default 'minimal' (the bridge's default) */
  readonly piiPolicy?: 'minimal' | 'full';
  /** Simulated start. @default SAMPLE_START */
  readonly startTime?: string;
  /** Wall-clock budget in ms; past it, SampleError says how many were produced. @default 60000 */
  readonly budgetMs?: number;
}

export class SampleError extends Error {
  override readonly name = 'SampleError';
}

const ZONES = ['Australia/Sydney', 'Europe/London', 'America/New_York'] as const;

/** A club of the sample: the sandbox's clubs file entry, with the sample's settings. */
export interface Rig {
  readonly sandbox: Sandbox;
  readonly store: MemoryStateStore;
  readonly sink: MemorySink;
  readonly club: ClubConfig;
  poll(club?: ClubConfig, options?: { retryUnavailable?: boolean }): Promise<void>;
  now(): number;
}

export async function withRig<T>(
  options: SampleOptions,
  sandboxOptions: Partial<SandboxOptions>,
  clubSettings: Partial<ClubConfig>,
  body: (rig: Rig) => Promise<T>,
): Promise<T> {
  const seed = options.seed ?? 1;
  const sandbox = await startSandbox({
    seed,
    clubs: [
      {
        clubId: 'club-1',
        timeZone: ZONES[Math.abs(seed) % ZONES.length]!,
        plan: 'basic',
        members: sandboxOptions.members ?? 150,
        open24h: true,
      },
    ],
    historyDays: 2,
    startTime: options.startTime ?? SAMPLE_START,
    activityScale: 8,
    ...sandboxOptions,
  });
  try {
    const store = new MemoryStateStore();
    const sink = new MemorySink();
    const club: ClubConfig = {
      ...parseClubsFile(sandbox.clubsFile(), 'sample sandbox')[0]!,
      piiPolicy: options.piiPolicy ?? DEFAULT_PII_POLICY,
      ...clubSettings,
    };
    const clients = new GymApiClientFactory({ retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const now = () => sandbox.clock.now().getTime();
    const rig: Rig = {
      sandbox,
      store,
      sink,
      club,
      now,
      async poll(target = club, pollOptions = {}) {
        await pollClub({ store, sink, clients, owner: 'sample', now }, target, {
          deadlineMs: Date.now() + 60_000,
          ...(pollOptions.retryUnavailable ? { retryUnavailable: true } : {}),
        });
      },
    };
    return await body(rig);
  } finally {
    await sandbox.close();
  }
}

/** A round of `collect`: the sandbox's clock moved on by `stepMs`, then the club polled. */
export const pollEvery = (rig: Rig, stepMs: number) => async (): Promise<void> => {
  rig.sandbox.advance(stepMs);
  await rig.poll();
};

/**
 * Runs `round` until the sink holds `count` events of the type (or the budget is spent), and
 * returns the first `count` of them.
 */
export async function collect(
  rig: Rig,
  options: SampleOptions,
  round: (index: number) => Promise<void>,
  maxRounds: number,
): Promise<BridgeEvent[]> {
  const started = Date.now();
  const budget = options.budgetMs ?? 60_000;
  const have = () => rig.sink.events.filter((e) => e.detailType === options.detailType);
  for (let i = 0; i < maxRounds && have().length < options.count; i++) {
    if (Date.now() - started > budget) break;
    await round(i);
  }
  const events = have();
  if (events.length < options.count) {
    throw new SampleError(
      `the engine produced ${events.length} of ${options.count} '${options.detailType}' events within its budget: ask for fewer (--count) or another --seed`,
    );
  }
  return events.slice(0, options.count);
}
