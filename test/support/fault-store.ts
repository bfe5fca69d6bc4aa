/**
 * A StateStore that injects faults in front of a real one (the port is wrapped: no SDK mock):
 * StoreError (throttled past all retries, a service error), lost lease races (conditional checks
 * that failed), and planned crashes before, after
 * or half-way through any step, the steps of a poll's club session (open = the lease taken,
 * close = the lease released with the cursor changes) included, as a session can fail
 * (FaultyClubSession). It also tells the poller process when its published events are committed
 * (seen keys, time-ordered seen entries or snapshots written), and shifts the lease clock so a
 * killed poller's lease can expire without the test waiting for it.
 */
import type { LifecycleNotes } from '../../lambdas/state/lifecycle-notes';
import { type BridgeStateStore, decorateStore, type StoreMethod } from '../../lambdas/state/state-store';
import { type ClubStateSession, type Cursor, type SourceName, StoreError } from '../../lambdas/state/store';
import type { CrashTarget, PollerProcess } from './fault-injector';

/** Runs one store step of `process` with the faults planned or drawn for it. */
async function faultyStep<T>(
  process: PollerProcess,
  target: CrashTarget,
  run: () => Promise<T>,
  half?: () => Promise<unknown>,
): Promise<T> {
  const injector = process.injector;
  process.assertAlive(target);
  const crash = injector.crashFor(target);
  if (crash?.phase === 'before') throw process.crash(crash);
  if (crash?.phase === 'partial') {
    if (half) await half();
    throw process.crash(crash);
  }
  if (injector.roll(injector.rates.storeErrorRate)) {
    injector.count('store-error');
    throw new StoreError(`injected: ${target} failed (throttled past all retries)`, { operation: target });
  }
  const result = await run();
  if (crash?.phase === 'after') throw process.crash(crash);
  return result;
}

/**
 * A cursor step of a poll's session, which production keeps in memory (lambdas/state/club-session.ts):
 * only a killed process fails it. An exception planned there does not fire: nothing in memory throws.
 */
async function inMemoryStep<T>(
  process: PollerProcess,
  target: CrashTarget,
  run: () => Promise<T>,
): Promise<T> {
  process.assertAlive(target);
  const crash = process.injector.crashFor(target);
  if (crash?.mode === 'kill') throw process.crash(crash);
  return run();
}

/**
 * A poll's session with the faults a session can have. Its cursor steps are in memory in
 * production: a read never fails, and a write takes effect before the only I/O it may do (the
 * checkpoint it triggers now and then). So a cursor read fails only in a killed process; a cursor
 * write may throw after it took effect (an injected StoreError at the store's rate, or a planned
 * exception: its checkpoint failed), or die before or after it (a kill); it never conflicts unless
 * the writer's version is stale (the lease keeps other pollers out: no injected conflict). The
 * session's writes to the table keep the store's faults: its close as the lease release (crash
 * target `releaseLease`: a crash before it leaves the lease held and the session's cursor changes
 * unwritten), and the quota counter (`addQuotaUsage`, which reads a month's count the item lacks).
 * Failing a cursor step before it took effect would let the chaos suite find losses production
 * cannot have (issue 32, seeds 78 and 767; docs/reliability.md).
 */
class FaultyClubSession implements ClubStateSession {
  constructor(
    private readonly inner: ClubStateSession,
    private readonly process: PollerProcess,
  ) {}

  get clubId() {
    return this.inner.clubId;
  }
  getCursor(source: SourceName): Promise<Cursor> {
    return inMemoryStep(this.process, 'getCursor', () => this.inner.getCursor(source));
  }
  listCursors(): Promise<Cursor[]> {
    return inMemoryStep(this.process, 'listCursors', () => this.inner.listCursors());
  }
  async putCursor(cursor: Cursor): Promise<Cursor> {
    const { process } = this;
    process.assertAlive('putCursor');
    const crash = process.injector.crashFor('putCursor');
    if (crash?.mode === 'kill' && crash.phase === 'before') throw process.crash(crash);
    const written = await this.inner.putCursor(cursor);
    if (crash) throw process.crash(crash);
    if (process.injector.roll(process.injector.rates.storeErrorRate)) {
      process.injector.count('store-error');
      throw new StoreError('injected: the checkpoint after putCursor failed (throttled past all retries)', {
        operation: 'putCursor',
      });
    }
    return written;
  }
  addQuotaUsage(month: string, requests: number): Promise<number> {
    return faultyStep(this.process, 'addQuotaUsage', () => this.inner.addQuotaUsage(month, requests));
  }
  getQuotaUsage(month: string): Promise<number> {
    this.process.assertAlive('getQuotaUsage');
    return this.inner.getQuotaUsage(month);
  }
  checkpoint(): Promise<void> {
    return faultyStep(this.process, 'releaseLease', () => this.inner.checkpoint());
  }
  close(): Promise<void> {
    return faultyStep(this.process, 'releaseLease', () => this.inner.close());
  }
  assertLeaseHeld(): void {
    this.inner.assertLeaseHeld();
  }
  lifecycleHour(): number | undefined {
    return this.inner.lifecycleHour();
  }
  markLifecycleHour(hour: number): void {
    this.inner.markLifecycleHour(hour);
  }
  lifecycleNotes(): LifecycleNotes {
    return this.inner.lifecycleNotes();
  }
  noteLifecycle(more: LifecycleNotes): void {
    this.inner.noteLifecycle(more);
  }
  clearLifecycleNotes(): void {
    this.inner.clearLifecycleNotes();
  }
}

/** The crash target of each port method that is a store step of its own. */
const STEP_TARGET: Partial<Record<StoreMethod, CrashTarget>> = {
  readCursors: 'listCursors',
  readClubStates: 'listCursors',
  filterSeen: 'filterSeen',
  seenSince: 'seenSince',
  // The same Query as seenSince, so the same crash target and faults.
  seenEntriesSince: 'seenSince',
  getSnapshots: 'getSnapshots',
  getSeenDigest: 'getSeenDigest',
  putSeenDigest: 'putSeenDigest',
  putQuarantined: 'putQuarantined',
};

/**
 * The store with the faults of `process`: each step's faults (STEP_TARGET; the other reads fail
 * only in a dead process); the lease taken (crash target `acquireLease`) with a faulty session
 * (its cursor writes may conflict); batch writes that can be cut in half, and that tell the process
 * its events are committed. The faults sit in front of the ports: a session's lease check comes
 * first, as in production.
 */
export function faultyStore(inner: BridgeStateStore, process: PollerProcess): BridgeStateStore {
  const { clubs, seen, snapshots } = inner.parts;
  const injector = process.injector;
  const batchWrite = async (
    target: CrashTarget,
    full: () => Promise<void>,
    half: () => Promise<void>,
    committed: string,
  ): Promise<void> => {
    await faultyStep(process, target, full, half);
    process.committed(committed);
  };
  return decorateStore(
    inner,
    (method, _args, call) => {
      const target = STEP_TARGET[method];
      if (target !== undefined) return faultyStep(process, target, call);
      process.assertAlive(method);
      return call();
    },
    {
      openClub: async (clubId: string, owner: string, ttlMs: number, nowMs: number) => {
        const session = await faultyStep(process, 'acquireLease', async () => {
          if (injector.roll(injector.rates.leaseConflictRate)) {
            injector.count('lease-conflict');
            return undefined;
          }
          return clubs.openClub(clubId, owner, ttlMs, nowMs + injector.leaseClockOffsetMs);
        });
        return session && new FaultyClubSession(session, process);
      },
      putSeen: (...[clubId, source, fingerprints, expiresAtSec]: Parameters<typeof seen.putSeen>) =>
        batchWrite(
          'putSeen',
          () => seen.putSeen(clubId, source, fingerprints, expiresAtSec),
          () => seen.putSeen(clubId, source, firstHalf(fingerprints), expiresAtSec),
          source,
        ),
      putSeenAt: (...[clubId, source, entries, expiresAtSec]: Parameters<typeof seen.putSeenAt>) =>
        batchWrite(
          'putSeenAt',
          () => seen.putSeenAt(clubId, source, entries, expiresAtSec),
          () => seen.putSeenAt(clubId, source, firstHalf(entries), expiresAtSec),
          source,
        ),
      putSnapshots: (...[clubId, kind, written]: Parameters<typeof snapshots.putSnapshots>) =>
        batchWrite(
          'putSnapshots',
          () => snapshots.putSnapshots(clubId, kind, written),
          () => snapshots.putSnapshots(clubId, kind, firstHalf(written)),
          kind === 'MEMBER' ? 'members' : 'prospects',
        ),
    },
  );
}

function firstHalf<T>(items: readonly T[]): T[] {
  return items.slice(0, Math.ceil(items.length / 2));
}
