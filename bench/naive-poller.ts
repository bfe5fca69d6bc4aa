/**
 * The baseline the bridge is compared with: a naive poller that, every cycle, re-reads every
 * endpoint in full (no filter, all pages) and diffs the records with the previous cycle in memory.
 * Same client, same sandbox, same cycle as the bridge's dispatch period.
 */
import type { ClubConfig } from '../lambdas/clubs/club-config';
import { OPERATION_NAMES } from '../lambdas/gym-api/operations';
import { SOURCES } from '../lambdas/sources';
import type { JournalEntry } from '../sandbox';
import type { HostProcess } from './hosts/rpc';
import { CountingClientFactory } from './sim-clients';

export interface NaiveCycle {
  readonly requests: number;
  readonly rows: number;
  readonly changes: number;
  readonly wallMs: number;
}

export interface NaiveResult {
  /** Cycles after the first (which only records what exists). */
  readonly cycles: NaiveCycle[];
  readonly tokenRequests: number;
  readonly journalChanges: number;
}

export async function runNaivePoller(
  host: HostProcess,
  club: ClubConfig,
  cycles: number,
  stepMs: number,
  sinceSeq: number,
): Promise<NaiveResult> {
  const clients = new CountingClientFactory();
  const client = clients.forClub(club, () => {});
  const previous = new Map<string, Map<string, string>>();
  const results: NaiveCycle[] = [];
  let lastSeq = sinceSeq;
  let journalChanges = 0;
  for (let cycle = 0; cycle <= cycles; cycle++) {
    if (cycle > 0) {
      const advanced = await host.call<{ lastSeq: number }>('advance', stepMs);
      journalChanges += (await host.call<JournalEntry[]>('journal', lastSeq)).length;
      lastSeq = advanced.lastSeq;
    }
    const started = performance.now();
    let rows = 0;
    let requests = 0;
    let changes = 0;
    for (const op of OPERATION_NAMES) {
      const identity = SOURCES[op].identity as (item: unknown) => string | undefined;
      const result = await client.fetchAll(op);
      requests += result.pageCount;
      rows += result.items.length + result.invalid.length;
      const before = previous.get(op);
      const now = new Map<string, string>();
      for (const item of result.items) {
        const id = identity(item);
        if (id === undefined) continue;
        const body = JSON.stringify(item);
        now.set(id, body);
        if (before && before.get(id) !== body) changes++;
      }
      previous.set(op, now);
    }
    if (cycle > 0) results.push({ requests, rows, changes, wallMs: performance.now() - started });
  }
  return { cycles: results, tokenRequests: clients.counts.token, journalChanges };
}
