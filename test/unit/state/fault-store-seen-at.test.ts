/**
 * The chaos wrapper's handling of the time-ordered seen set: faults are injectable on seenSince and
 * putSeenAt like on the other store steps, and calls pass through unchanged otherwise.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../lambdas/state/memory-store';
import { StoreError } from '../../../lambdas/state/store';
import { FaultInjector, NO_FAULT_RATES, SimulatedCrashError } from '../../support/fault-injector';
import { faultyStore } from '../../support/fault-store';

const at = (second: number) => new Date(Date.UTC(2026, 10, 22) + second * 1_000).toISOString();
const entries = Array.from({ length: 10 }, (_, i) => ({ fingerprint: `fp-${i}`, at: at(i) }));

function setUp(injector: FaultInjector) {
  const inner = new MemoryStateStore();
  const process = injector.newProcess('poller');
  return { inner, process, store: faultyStore(inner, process) };
}

describe('FaultyStateStore time-ordered seen set', () => {
  it('passes calls and options through while faults are on but none is drawn', async () => {
    // Prepare
    const injector = new FaultInjector(1, NO_FAULT_RATES, []);
    injector.active = true;
    const { store } = setUp(injector);

    // Act
    await store.parts.seen.putSeenAt('c1', 'visits', entries, 2_000_000_000);
    const window = await store.parts.seen.seenSince('c1', 'visits', at(2), 1, {
      toAt: at(5),
      consistentRead: true,
    });

    // Assess
    expect([...window].sort()).toEqual(['fp-2', 'fp-3', 'fp-4']);
  });

  it('passes seenEntriesSince through (groups and values included) and crashes it as the seenSince step', async () => {
    // Prepare
    const injector = new FaultInjector(1, NO_FAULT_RATES, [
      { target: 'seenSince', phase: 'before', mode: 'exception', nth: 2 },
    ]);
    injector.active = true;
    const { store } = setUp(injector);
    await store.parts.seen.putSeenAt(
      'c1',
      'paymentHistory',
      [{ fingerprint: 'p', at: at(1), group: 'g', value: 'Approved' }],
      2_000_000_000,
    );

    // Act
    const first = await store.parts.seen.seenEntriesSince('c1', 'paymentHistory', at(0), 1);
    const second = store.parts.seen.seenEntriesSince('c1', 'paymentHistory', at(0), 1);

    // Assess
    expect(first).toEqual([{ fingerprint: 'p', at: at(1), group: 'g', value: 'Approved' }]);
    await expect(second).rejects.toBeInstanceOf(SimulatedCrashError);
  });

  it('writes half the entries before a partial crash of putSeenAt', async () => {
    // Prepare
    const injector = new FaultInjector(1, NO_FAULT_RATES, [
      { target: 'putSeenAt', phase: 'partial', mode: 'kill', nth: 1 },
    ]);
    injector.active = true;
    const { inner, process, store } = setUp(injector);

    // Act
    const result = store.parts.seen.putSeenAt('c1', 'visits', entries, 2_000_000_000);

    // Assess
    await expect(result).rejects.toBeInstanceOf(SimulatedCrashError);
    expect([...(await inner.parts.seen.seenSince('c1', 'visits', at(0), 1))].sort()).toEqual(
      entries.slice(0, 5).map((e) => e.fingerprint),
    );
    expect(process.dead).toBe(true);
    await expect(store.parts.seen.seenSince('c1', 'visits', at(0), 1)).rejects.toBeInstanceOf(
      SimulatedCrashError,
    );
  });

  it('crashes seenSince before it reads, and injects StoreError at the store error rate', async () => {
    // Prepare
    const injector = new FaultInjector(1, NO_FAULT_RATES, [
      { target: 'seenSince', phase: 'before', mode: 'exception', nth: 1 },
    ]);
    injector.active = true;
    const { store } = setUp(injector);

    // Act / Assess
    await expect(store.parts.seen.seenSince('c1', 'visits', at(0), 1)).rejects.toBeInstanceOf(
      SimulatedCrashError,
    );
    await expect(store.parts.seen.seenSince('c1', 'visits', at(0), 1)).resolves.toEqual(new Set());
    injector.rates.storeErrorRate = 1;
    await expect(store.parts.seen.putSeenAt('c1', 'visits', entries, 2_000_000_000)).rejects.toBeInstanceOf(
      StoreError,
    );
    expect(injector.injected['store-error']).toBe(1);
  });

  it('counts a completed putSeenAt as the commit of what the source published', async () => {
    // Prepare
    const injector = new FaultInjector(1, NO_FAULT_RATES, []);
    const { process, store } = setUp(injector);
    process.delivered([{ source: 'visits', eventId: 'e-1' }]);

    // Act
    await store.parts.seen.putSeenAt('c1', 'visits', entries, 2_000_000_000);
    process.end();

    // Assess
    expect(injector.uncommittedEventIds.size).toBe(0);
  });
});
