/**
 * A backfill that does not fit in one invocation: pollSource is called again and again with a short
 * deadline, each call resuming the scan the previous one saved, until the scan completes. Pages per
 * second are compared with what the sandbox serves to a raw fetch loop (no parsing) and to the
 * client alone (parse + validate, no engine).
 */
import { pollSource } from '../lambdas/engine/club-poll/poll-source';
import { GymApiClient, TokenProvider } from '../lambdas/gym-api';
import { SOURCES } from '../lambdas/sources';
import { toFilterValue } from '../lambdas/sources/record-time';
import { MemoryStateStore, withClubSession } from '../lambdas/state';
import type { BigClub } from './big-club';
import { CountingSink } from './counting-sink';
import { CountingClientFactory } from './sim-clients';

export interface BackfillRun {
  readonly invocations: number;
  readonly pages: number;
  readonly records: number;
  readonly wallMs: number;
  readonly pagesPerSec: number;
  /** Invocations that ended with the scan saved for the next one. */
  readonly partialInvocations: number;
  readonly outcome: string;
}

export interface FetchLoopRun {
  readonly pages: number;
  readonly wallMs: number;
  readonly pagesPerSec: number;
}

export async function resumableBackfill(
  big: BigClub,
  fromMs: number,
  invocationBudgetMs: number,
): Promise<BackfillRun> {
  const store = new MemoryStateStore();
  const sink = new CountingSink();
  const clients = new CountingClientFactory();
  let invocations = 0;
  let partial = 0;
  let pages = 0;
  let records = 0;
  let outcome = 'partial';
  const t0 = performance.now();
  while (outcome !== 'completed' && invocations < 10_000) {
    invocations++;
    // A new invocation: a new client (cold), the state only in the store.
    const client = clients.forClub(big.club, () => {});
    const owner = `invocation-${invocations}`;
    const report = await withClubSession(store, big.club.clubId, owner, (session) =>
      pollSource(
        { store: session, sink, client, now: () => big.info.nowMs, owner },
        big.ctx,
        SOURCES.visits,
        { deadlineMs: Date.now() + invocationBudgetMs + 250, reserveMs: 250, backfillFromMs: fromMs },
      ),
    );
    pages += report.pages;
    records += report.records;
    outcome = report.outcome;
    if (outcome === 'partial') partial++;
    else if (outcome !== 'completed')
      throw new Error(`backfill invocation ended '${outcome}': ${report.reason ?? ''}`);
  }
  const wallMs = performance.now() - t0;
  return {
    invocations,
    pages,
    records,
    wallMs,
    pagesPerSec: pages / (wallMs / 1000),
    partialInvocations: partial,
    outcome,
  };
}

function visitsQuery(big: BigClub, fromMs: number): string {
  return toFilterValue(fromMs, SOURCES.visits.filterZone, big.ctx);
}

/** What the sandbox alone serves: GET every page of the same query, read the body, nothing else. */
export async function rawFetchLoop(big: BigClub, fromMs: number, maxPages: number): Promise<FetchLoopRun> {
  const tokens = new TokenProvider({
    baseUrl: big.club.baseUrl,
    username: big.club.credentials.username,
    password: big.club.credentials.password,
  });
  const token = await tokens.getToken();
  const fromdate = encodeURIComponent(visitsQuery(big, fromMs));
  const headers = {
    Authorization: `Bearer ${token}`,
    'x-api-key': big.club.credentials.apiKey,
    Accept: 'application/json',
  };
  let pages = 0;
  const t0 = performance.now();
  for (let offset = 0; pages < maxPages; offset += 500) {
    const res = await fetch(
      `${big.club.baseUrl}/members/attendance/visits?fromdate=${fromdate}&offset=${offset}&limit=500`,
      { headers },
    );
    const body = await res.text();
    pages++;
    if (res.status !== 200) throw new Error(`raw fetch: HTTP ${res.status}`);
    if (!body.includes('{', 20) || body.length < 200) break;
  }
  const wallMs = performance.now() - t0;
  return { pages, wallMs, pagesPerSec: pages / (wallMs / 1000) };
}

/** The client alone: pages parsed and validated, no detection, no state, no events. */
export async function clientOnlyLoop(big: BigClub, fromMs: number, maxPages: number): Promise<FetchLoopRun> {
  const client = new GymApiClient({
    baseUrl: big.club.baseUrl,
    apiKey: big.club.credentials.apiKey,
    tokenProvider: new TokenProvider({
      baseUrl: big.club.baseUrl,
      username: big.club.credentials.username,
      password: big.club.credentials.password,
    }),
  });
  let pages = 0;
  const t0 = performance.now();
  for await (const _page of client.pages('visits', { fromdate: visitsQuery(big, fromMs) })) {
    pages++;
    if (pages >= maxPages) break;
  }
  const wallMs = performance.now() - t0;
  return { pages, wallMs, pagesPerSec: pages / (wallMs / 1000) };
}
