/**
 * The dispatcher over many clubs: the real `dispatchDueClubs`, in memory and against dynalite
 * through the real DynamoDB adapters, at successive minutes.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDbClubRegistry } from '../../lambdas/clubs/dynamodb-club-registry';
import { dispatchDueClubs } from '../../lambdas/engine/dispatch/dispatch-due-clubs';
import { DynamoDbStateStore, MemoryStateStore } from '../../lambdas/state';
import type { Cursor } from '../../lambdas/state/store';
import { createStateTable } from '../../lambdas/state/table';
import { type CountingStateStore, countingStore, type StoreCounts } from '../counting-store';
import { CollectingQueue, CountingRegistry } from '../production-path';
import { cpuMsSince } from '../stats';
import type { DynaliteContext } from '../throughput';
import { forEachLimited, MINUTE, seedCursors, syntheticFleet } from './synthetic-fleet';

export interface DispatchRun {
  readonly store: 'memory' | 'dynalite';
  readonly clubs: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly messages: number;
  readonly dueSources: number;
  readonly sendMessageBatchRequests: number;
  /** Table requests the dispatcher reports (registry pages + 2 per club). */
  readonly tableReads: number;
  readonly readUnits: number;
}

async function runDispatch(
  kind: 'memory' | 'dynalite',
  registry: CountingRegistry | DynamoDbClubRegistry,
  store: CountingStateStore,
  nowMs: number,
  clubs: number,
): Promise<DispatchRun> {
  const queue = new CollectingQueue();
  store.take();
  if (registry instanceof CountingRegistry) registry.take();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await dispatchDueClubs({ registry, store, queue, now: nowMs });
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const counts: StoreCounts = store.take();
  const registryUnits =
    registry instanceof CountingRegistry ? registry.take().readUnits : Math.ceil((clubs * 400) / 4096);
  return {
    store: kind,
    clubs: summary.clubs,
    wallMs,
    cpuMs,
    messages: summary.messages,
    dueSources: summary.due,
    sendMessageBatchRequests: queue.sendMessageBatchRequests,
    tableReads: summary.tableReads,
    readUnits: counts.readUnits + registryUnits,
  };
}

/** Dispatch for `clubs` clubs in memory, at `runs` successive minutes. */
export async function dispatchInMemory(
  template: readonly Cursor[],
  nowMs: number,
  clubs: number,
  runs: number,
) {
  const { records, cursors } = syntheticFleet(clubs, template, nowMs);
  const inner = new MemoryStateStore();
  await seedCursors(inner, cursors, 1);
  const store = countingStore(inner);
  const registry = new CountingRegistry(records, () => nowMs);
  const out: DispatchRun[] = [];
  for (let r = 0; r < runs; r++)
    out.push(await runDispatch('memory', registry, store, nowMs + r * MINUTE, clubs));
  return out;
}

export interface DynaliteDispatchResult {
  readonly runs: DispatchRun[];
  readonly seedMs: number;
}

/** The same through DynamoDbClubRegistry and DynamoDbStateStore against dynalite (own process). */
export async function dispatchOnDynalite(
  db: DynaliteContext,
  template: readonly Cursor[],
  nowMs: number,
  clubs: number,
  runs: number,
): Promise<DynaliteDispatchResult> {
  const tableName = `bench-dispatch-${process.pid}-${randomUUID().slice(0, 8)}`;
  await createStateTable(db.client, tableName);
  const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
  const inner = new DynamoDbStateStore({ client: db.client, tableName });
  const { records, cursors } = syntheticFleet(clubs, template, nowMs);
  const t0 = performance.now();
  await forEachLimited(records, 32, (r) => registry.put(r));
  await seedCursors(inner, cursors, 32);
  const seedMs = performance.now() - t0;
  const store = countingStore(inner);
  const out: DispatchRun[] = [];
  for (let r = 0; r < runs; r++)
    out.push(await runDispatch('dynalite', registry, store, nowMs + r * MINUTE, clubs));
  return { runs: out, seedMs };
}
