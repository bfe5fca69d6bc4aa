/**
 * The dispatcher over many clubs in memory: the real `dispatchDueClubs` at successive minutes, its
 * CPU priced by the cost model. The fleet at scale on dynalite, every shard: dispatch-at-scale.ts.
 */
import { MINUTE_MS } from '../../lambdas/common/time-units';
import { dispatchDueClubs } from '../../lambdas/engine/dispatch/dispatch-due-clubs';
import { MemoryStateStore } from '../../lambdas/state';
import type { Cursor } from '../../lambdas/state/store';
import { type CountingStateStore, countingStore, type StoreCounts } from '../counting-store';
import { CollectingQueue, CountingRegistry } from '../production-path';
import { cpuMsSince } from '../stats';
import { seedCursors, syntheticFleet } from './synthetic-fleet';

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
  registry: CountingRegistry,
  store: CountingStateStore,
  nowMs: number,
): Promise<DispatchRun> {
  const queue = new CollectingQueue();
  store.take();
  registry.take();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await dispatchDueClubs({ registry, store, queue, now: nowMs });
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const counts: StoreCounts = store.take();
  const registryUnits = registry.take().readUnits;
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
    out.push(await runDispatch('memory', registry, store, nowMs + r * MINUTE_MS));
  return out;
}
