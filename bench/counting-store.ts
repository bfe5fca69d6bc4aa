/**
 * A StateStore decoration (decorateStore, lambdas/state/state-store.ts) that counts what the bridge asks of its
 * store: calls per method, the DynamoDB API calls they become, items, read and write request units
 * (store-units.ts), and the wall time spent inside the store. Semantics are the wrapped store's:
 * every call is passed through unchanged.
 */
import type { LifecycleNotes } from '../lambdas/state/lifecycle-notes';
import { type BridgeStateStore, decorateStore, type StoreMethod } from '../lambdas/state/state-store';
import type { ClubStateSession, Cursor } from '../lambdas/state/store';
import { entryOf } from './stats';
import { type Bill, billOf, sessionWriteBill } from './store-units';

export { queryCost } from './store-units';

export interface StoreCounts {
  /** Port calls per method. */
  calls: Record<string, number>;
  /** DynamoDB API requests these calls become. */
  apiRequests: number;
  itemsRead: number;
  itemsWritten: number;
  readUnits: number;
  writeUnits: number;
  /** Wall time inside store calls, ms. */
  wallMs: number;
  /** Items and request units per port method. */
  byMethod: Record<string, { items: number; readUnits: number; writeUnits: number }>;
}

export function emptyStoreCounts(): StoreCounts {
  return {
    calls: {},
    apiRequests: 0,
    itemsRead: 0,
    itemsWritten: 0,
    readUnits: 0,
    writeUnits: 0,
    wallMs: 0,
    byMethod: {},
  };
}

export function addStoreCounts(into: StoreCounts, more: StoreCounts): StoreCounts {
  for (const [k, v] of Object.entries(more.calls)) into.calls[k] = (into.calls[k] ?? 0) + v;
  into.apiRequests += more.apiRequests;
  into.itemsRead += more.itemsRead;
  into.itemsWritten += more.itemsWritten;
  into.readUnits += more.readUnits;
  into.writeUnits += more.writeUnits;
  into.wallMs += more.wallMs;
  for (const [k, v] of Object.entries(more.byMethod)) {
    const t = entryOf(into.byMethod, k, () => ({ items: 0, readUnits: 0, writeUnits: 0 }));
    t.items += v.items;
    t.readUnits += v.readUnits;
    t.writeUnits += v.writeUnits;
  }
  return into;
}

/** The store, counted: `counts` so far, `take()` returns them and starts new ones. */
export interface CountingStateStore extends BridgeStateStore {
  counts: StoreCounts;
  take(): StoreCounts;
}

/** Each side of a bill, with the totals it adds to. */
const SIDES = [
  ['read', 'itemsRead', 'readUnits'],
  ['write', 'itemsWritten', 'writeUnits'],
] as const;

/** Adds a call's bill to the counts, under `name`. */
function record(counts: StoreCounts, name: string, bill: Bill): void {
  const m = entryOf(counts.byMethod, name, () => ({ items: 0, readUnits: 0, writeUnits: 0 }));
  for (const [side, items, units] of SIDES) {
    const usage = bill[side];
    if (!usage) continue;
    counts.apiRequests += usage.requests;
    counts[items] += usage.items;
    counts[units] += usage.units;
    m.items += usage.items;
    m[units] += usage.units;
  }
}

/** seenEntriesSince is the same Query as seenSince: counted under its name. */
const countedAs = (method: StoreMethod): string => (method === 'seenEntriesSince' ? 'seenSince' : method);

export function countingStore(inner: BridgeStateStore): CountingStateStore {
  const counter = { counts: emptyStoreCounts() };
  const countCall = (name: string) => {
    counter.counts.calls[name] = (counter.counts.calls[name] ?? 0) + 1;
  };
  const decorated = decorateStore(inner, async (method, args, call) => {
    const name = countedAs(method);
    countCall(name);
    const started = performance.now();
    try {
      const result = await call();
      record(counter.counts, name, await billOf(method, inner, args, result));
      if (method !== 'openClub' || result === undefined) return result;
      return countingSession(result as ClubStateSession, (write, cursors, notes) => {
        countCall(write);
        record(counter.counts, write, sessionWriteBill((result as ClubStateSession).clubId, cursors, notes));
      });
    } finally {
      counter.counts.wallMs += performance.now() - started;
    }
  });
  const store = decorated as CountingStateStore;
  Object.defineProperty(store, 'counts', {
    get: () => counter.counts,
    set: (counts: StoreCounts) => {
      counter.counts = counts;
    },
    enumerable: true,
  });
  store.take = () => {
    const taken = counter.counts;
    counter.counts = emptyStoreCounts();
    return taken;
  };
  return store;
}

/**
 * A poll's session, counted: its reads and writes of cursors and counter are in memory (free); its
 * checkpoints and its close are one UpdateItem each of the whole item.
 */
function countingSession(
  inner: ClubStateSession,
  countWrite: (write: 'checkpoint' | 'closeClub', cursors: readonly Cursor[], notes: LifecycleNotes) => void,
): ClubStateSession {
  const counted: Pick<ClubStateSession, 'checkpoint' | 'close'> = {
    checkpoint: async () => {
      await inner.checkpoint();
      countWrite('checkpoint', await inner.listCursors(), inner.lifecycleNotes());
    },
    close: async () => {
      const cursors = await inner.listCursors();
      const notes = inner.lifecycleNotes();
      await inner.close();
      countWrite('closeClub', cursors, notes);
    },
  };
  return new Proxy(inner, {
    get: (target, name) => {
      if (name === 'checkpoint' || name === 'close') return counted[name];
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
