/**
 * The sandbox of the poison response-habit tests (`poison-responses*.test.ts`): one club of 120
 * members with 3 days of history, a token and the club's API key, the visits since FROM, served
 * over real HTTP; `withPoison` sets the poison settings for a run and puts them off after it,
 * `logSince` reads the poison log. `useResponseSandbox()` registers the hooks (in a describe); the
 * bindings below are live.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { type PoisonInput, type Sandbox, startSandbox } from '../../../sandbox';
import { requestToken } from './sandbox-http';

export const START = '2025-03-10T00:00:00Z';
export const FROM = '2025-03-08T00:00:00';

export let sandbox: Sandbox;
export let token: string;
export let apiKey: string;
export let visits: Record<string, unknown>[];

/** Starts the sandbox before the describe's tests, closes it after them. */
export function useResponseSandbox(): void {
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 17, clubs: 1, members: 120, historyDays: 3, startTime: START });
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
    visits = sandbox.records('club-1', 'visits', { fromdate: FROM });
    expect(visits.length).toBeGreaterThan(100);
  });
  afterAll(() => sandbox.close());
}

export const logSince = (seq: number) => sandbox.poison.log.entries(seq);
export const withPoison = async <T>(poison: PoisonInput, run: () => Promise<T>): Promise<T> => {
  sandbox.faults.poison = poison;
  try {
    return await run();
  } finally {
    sandbox.faults.poison = false;
  }
};
