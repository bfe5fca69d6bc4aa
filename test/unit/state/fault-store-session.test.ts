/**
 * The chaos wrapper's club session fails as a production session can (issue 32, seeds 78 and 767):
 * its cursor steps are in memory, so a read fails only in a killed process and a write takes effect
 * before it may throw (the checkpoint it triggered failed); no conflict is made up. Its writes to the
 * table (the close) keep the store's faults.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../lambdas/state/memory-store';
import { type Cursor, newCursor, StoreError } from '../../../lambdas/state/store';
import {
  type CrashPoint,
  FaultInjector,
  NO_FAULT_RATES,
  SimulatedCrashError,
} from '../../support/fault-injector';
import { faultyStore } from '../../support/fault-store';

const NOW = Date.UTC(2026, 10, 22);
const withFailures = (cursor: Cursor, n: number): Cursor => ({
  ...cursor,
  health: { ...cursor.health, consecutiveFailures: n },
});

async function openSession(rates: Partial<typeof NO_FAULT_RATES>, crashes: CrashPoint[] = []) {
  const injector = new FaultInjector(1, { ...NO_FAULT_RATES, ...rates }, crashes);
  const inner = new MemoryStateStore();
  const process = injector.newProcess('poller');
  const session = await faultyStore(inner, process).openClub('c1', process.owner, 60_000, NOW);
  if (!session) throw new Error('no session');
  await session.putCursor(newCursor('c1', 'visits'));
  injector.active = true;
  return { injector, process, session, inner };
}

describe('FaultyClubSession', () => {
  it('never fails a cursor read, and a cursor write only after it took effect', async () => {
    // Prepare: every store step fails
    const { session } = await openSession({ storeErrorRate: 1 });

    // Act
    const read = await session.getCursor('visits');
    const listed = await session.listCursors();
    const write = session.putCursor(withFailures(read, 1));
    await write.catch(() => undefined);
    const after = await session.getCursor('visits');

    // Assess
    expect(listed.map((c) => c.source)).toEqual(['visits']);
    await expect(write).rejects.toBeInstanceOf(StoreError);
    expect(after).toMatchObject({ version: read.version + 1, health: { consecutiveFailures: 1 } });
  });

  it('fires a planned crash of a cursor write after it took effect, unless the process dies before it', async () => {
    // Prepare
    const { session } = await openSession({}, [
      { target: 'putCursor', phase: 'before', mode: 'exception', nth: 1 },
      { target: 'putCursor', phase: 'before', mode: 'kill', nth: 2 },
    ]);
    const read = await session.getCursor('visits');

    // Act
    const excepted = session.putCursor(withFailures(read, 1));
    await excepted.catch(() => undefined);
    const afterException = await session.getCursor('visits');
    const killed = session.putCursor(withFailures(afterException, 2));

    // Assess
    await expect(excepted).rejects.toBeInstanceOf(SimulatedCrashError);
    expect(afterException.health.consecutiveFailures).toBe(1);
    await expect(killed).rejects.toThrow(/simulated kill before putCursor/);
    await expect(session.getCursor('visits')).rejects.toThrow(/is dead/);
  });

  it('fails a cursor read only when the process is killed there', async () => {
    // Prepare
    const { session, process } = await openSession({}, [
      { target: 'getCursor', phase: 'before', mode: 'exception', nth: 1 },
      { target: 'listCursors', phase: 'after', mode: 'kill', nth: 1 },
    ]);

    // Act
    const read = await session.getCursor('visits');
    const listed = session.listCursors();

    // Assess
    expect(read.source).toBe('visits');
    await expect(listed).rejects.toBeInstanceOf(SimulatedCrashError);
    expect(process.dead).toBe(true);
  });

  it("keeps the store's faults on the session's write to the table", async () => {
    // Prepare
    const { session, inner } = await openSession({ storeErrorRate: 1 });

    // Act
    const close = session.close();

    // Assess: the close failed before writing; the cursor is not in the table
    await expect(close).rejects.toThrow(/injected: releaseLease failed/);
    expect(await inner.view('c1').listCursors()).toEqual([]);
  });
});
