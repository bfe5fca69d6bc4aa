/**
 * A StateStore that injects faults in front of a real one (the port is wrapped: no SDK mock):
 * StoreError (throttled past all retries, a service error), ConcurrentModificationError on cursor
 * writes and lost lease races (conditional checks that failed), and planned crashes before, after
 * or half-way through any step, the steps of a poll's club session (open = the lease taken,
 * close = the lease released with the cursor changes) included. It also tells the poller process when its published events are
 * committed (seen keys, time-ordered seen entries or snapshots written), and shifts the lease clock so a killed poller's lease
 * can expire without the test waiting for it.
 */
import {
  type ClubSession,
  type ClubStateSummary,
  ConcurrentModificationError,
  type Cursor,
  type FilterSeenOptions,
  type QuarantinedRecord,
  type SeenAt,
  type SeenEntry,
  type SeenSinceOptions,
  type Snapshot,
  type SnapshotKind,
  type SourceName,
  type StateStore,
  StoreError,
} from '../../lambdas/state/store';
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

/** Cursor writes that may conflict (an injected ConditionalCheckFailed), then the real write. */
function conflictingPut(process: PollerProcess, cursor: Cursor, put: () => Promise<Cursor>): Promise<Cursor> {
  return faultyStep(process, 'putCursor', () => {
    if (process.injector.roll(process.injector.rates.cursorConflictRate)) {
      process.injector.count('cursor-conflict');
      return Promise.reject(new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version));
    }
    return put();
  });
}

/**
 * A poll's session with the same faults: its cursor steps as the store's, its close as the lease
 * release (crash target `releaseLease`: a crash before it leaves the lease held and the session's
 * cursor changes unwritten).
 */
class FaultyClubSession implements ClubSession {
  constructor(
    private readonly inner: ClubSession,
    private readonly process: PollerProcess,
  ) {}

  get clubId() {
    return this.inner.clubId;
  }
  getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    return faultyStep(this.process, 'getCursor', () => this.inner.getCursor(clubId, source));
  }
  listCursors(clubId: string): Promise<Cursor[]> {
    return faultyStep(this.process, 'listCursors', () => this.inner.listCursors(clubId));
  }
  putCursor(cursor: Cursor): Promise<Cursor> {
    return conflictingPut(this.process, cursor, () => this.inner.putCursor(cursor));
  }
  addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    return faultyStep(this.process, 'addQuotaUsage', () => this.inner.addQuotaUsage(clubId, month, requests));
  }
  getQuotaUsage(clubId: string, month: string): Promise<number> {
    this.process.assertAlive('getQuotaUsage');
    return this.inner.getQuotaUsage(clubId, month);
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
}

export class FaultyStateStore implements StateStore {
  constructor(
    private readonly inner: StateStore,
    private readonly process: PollerProcess,
  ) {}

  get #injector() {
    return this.process.injector;
  }

  #step<T>(target: CrashTarget, run: () => Promise<T>, half?: () => Promise<unknown>): Promise<T> {
    return faultyStep(this.process, target, run, half);
  }

  getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    return this.#step('getCursor', () => this.inner.getCursor(clubId, source));
  }

  listCursors(clubId: string): Promise<Cursor[]> {
    return this.#step('listCursors', () => this.inner.listCursors(clubId));
  }

  putCursor(cursor: Cursor): Promise<Cursor> {
    return conflictingPut(this.process, cursor, () => this.inner.putCursor(cursor));
  }

  /** The club's lease taken (crash target `acquireLease`); the session's steps are faulty too. */
  async openClub(
    clubId: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<ClubSession | undefined> {
    const session = await this.#step('acquireLease', async () => {
      if (this.#injector.roll(this.#injector.rates.leaseConflictRate)) {
        this.#injector.count('lease-conflict');
        return undefined;
      }
      return this.inner.openClub(clubId, owner, ttlMs, nowMs + this.#injector.leaseClockOffsetMs);
    });
    return session && new FaultyClubSession(session, this.process);
  }

  readClubStates(clubIds: readonly string[], month: string): Promise<Map<string, ClubStateSummary>> {
    return this.#step('listCursors', () => this.inner.readClubStates(clubIds, month));
  }

  filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options?: FilterSeenOptions,
  ): Promise<Set<string>> {
    return this.#step('filterSeen', () =>
      this.inner.filterSeen(clubId, source, fingerprints, nowSec, options),
    );
  }

  async putSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    expiresAtSec: number,
  ): Promise<void> {
    await this.#step(
      'putSeen',
      () => this.inner.putSeen(clubId, source, fingerprints, expiresAtSec),
      () => this.inner.putSeen(clubId, source, firstHalf(fingerprints), expiresAtSec),
    );
    this.process.committed(source);
  }

  seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<Set<string>> {
    return this.#step('seenSince', () => this.inner.seenSince(clubId, source, fromAt, nowSec, options));
  }

  /** The same Query as seenSince, so the same crash target and faults. */
  seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<SeenEntry[]> {
    return this.#step('seenSince', () =>
      this.inner.seenEntriesSince(clubId, source, fromAt, nowSec, options),
    );
  }

  async putSeenAt(
    clubId: string,
    source: SourceName,
    entries: readonly SeenAt[],
    expiresAtSec: number,
  ): Promise<void> {
    await this.#step(
      'putSeenAt',
      () => this.inner.putSeenAt(clubId, source, entries, expiresAtSec),
      () => this.inner.putSeenAt(clubId, source, firstHalf(entries), expiresAtSec),
    );
    this.process.committed(source);
  }

  getSnapshots(clubId: string, kind: SnapshotKind, ids: string[]): Promise<Map<string, Snapshot>> {
    return this.#step('getSnapshots', () => this.inner.getSnapshots(clubId, kind, ids));
  }

  async putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]): Promise<void> {
    await this.#step(
      'putSnapshots',
      () => this.inner.putSnapshots(clubId, kind, snapshots),
      () => this.inner.putSnapshots(clubId, kind, firstHalf(snapshots)),
    );
    this.process.committed(kind === 'MEMBER' ? 'members' : 'prospects');
  }

  addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    return this.#step('addQuotaUsage', () => this.inner.addQuotaUsage(clubId, month, requests));
  }

  getQuotaUsage(clubId: string, month: string): Promise<number> {
    this.process.assertAlive('getQuotaUsage');
    return this.inner.getQuotaUsage(clubId, month);
  }

  putQuarantined(
    clubId: string,
    source: SourceName,
    records: QuarantinedRecord[],
    expiresAtSec: number,
  ): Promise<void> {
    return this.#step('putQuarantined', () =>
      this.inner.putQuarantined(clubId, source, records, expiresAtSec),
    );
  }

  listQuarantined(clubId: string, source: SourceName, limit?: number): Promise<QuarantinedRecord[]> {
    this.process.assertAlive('listQuarantined');
    return this.inner.listQuarantined(clubId, source, limit);
  }
}

function firstHalf<T>(items: readonly T[]): T[] {
  return items.slice(0, Math.ceil(items.length / 2));
}
