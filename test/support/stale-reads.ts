/**
 * Eventually consistent reads, where production makes them (snapshots; the seen window's
 * `seenEntriesSince`/`seenSince` and `filterSeen`, and the seen digest, unless the engine asks for
 * `consistentRead: true`), for the chaos suite.
 *
 * DynamoDB's replication delay is about a second. Wrapped per poller process, this store remembers
 * the snapshots (with the value before), the seen keys and the seen digests the process wrote, and
 * with probability `rate` an eventually consistent read does not see them: a snapshot comes back
 * as it was before the process wrote it, a seen key as unseen, a digest as the one before. With
 * `across` (RecentWrites), such a read may also miss what the previous poll wrote: a replication
 * delay past the time between two polls (15 s in the fast lane). A strongly consistent read misses
 * nothing; dynalite's own reads are always consistent.
 *
 * What the engine may do with a read that missed its own poll's writes is publish a change again
 * under the same eventId (the poller process records it: `PollerProcess.servedStaleRead`), never
 * lose or invent one. A read that missed the previous poll's writes may make the engine invent
 * one (a baseline record announced as new, a transition from a state already left): the engine
 * reads fresh after a write (engine/scan/source-reads.ts) so that it never meets one.
 */
import { BridgeStateStore } from '../../lambdas/state/state-store';
import type {
  FilterSeenOptions,
  SeenAt,
  SeenEntry,
  SeenSinceOptions,
  SeenStore,
  Snapshot,
  SnapshotKind,
  SnapshotStore,
  SourceName,
} from '../../lambdas/state/store';
import type { PollerProcess } from './fault-injector';

/** What one poller process wrote: the snapshots (with the value before), seen keys and digests. */
interface PollWrites {
  readonly snapshotsBefore: Map<string, Snapshot | undefined>;
  readonly seen: Set<string>;
  readonly digestsBefore: Map<string, Uint8Array | undefined>;
}

/** Reads that may miss the previous poll's writes: at `rate`, drawn from `random` (apart from the faults'). */
export interface AcrossPolls {
  readonly rate: number;
  readonly random: () => number;
}

/** Polls remembered (races aside, one poller process follows another). */
const REMEMBERED_POLLS = 4;

/**
 * What recent pollers wrote, shared by the stale-read stores of one run. A poller process enters
 * it at its first read or write of the seen set or snapshots (a fast-lane probe that found nothing,
 * or a poller that lost the race for the lease, is no poll of them). A read may miss what its own
 * process wrote and, with `across`, what the previous poll wrote: a replication delay longer than
 * the time between two polls of a club (rare, but DynamoDB does not bound it; the fast lane's polls
 * are 15 s apart).
 */
export class RecentWrites {
  /** Most recent first. */
  readonly #polls: PollWrites[] = [];

  constructor(readonly across?: AcrossPolls) {}

  /** A poller's first read or write of the seen set or snapshots: its writes are recorded apart. */
  enter(): PollWrites {
    const poll: PollWrites = { snapshotsBefore: new Map(), seen: new Set(), digestsBefore: new Map() };
    this.#polls.unshift(poll);
    this.#polls.length = Math.min(this.#polls.length, REMEMBERED_POLLS);
    return poll;
  }

  /** The polls before `mine` whose writes a read of `mine`'s may miss (most recent first). */
  previous(mine: PollWrites | undefined): PollWrites[] {
    if (!this.across) return [];
    return this.#polls.filter((p) => p !== mine).slice(0, 1);
  }

  /** Drawn per read when the previous poll wrote something. */
  staleAcross(): boolean {
    const across = this.across;
    return across !== undefined && across.rate > 0 && across.random() < across.rate;
  }
}

const wroteAnything = (p: PollWrites) =>
  p.snapshotsBefore.size > 0 || p.seen.size > 0 || p.digestsBefore.size > 0;

/**
 * What one read misses: the writes of the polls in `hidden`, among `order` (the polls a read may
 * miss, most recent first). An item's value is what the newest write not hidden left, or before the
 * oldest write in the window when all are hidden.
 */
class Miss {
  /** A value this read served missed what this process wrote / what the previous poll wrote. */
  missedOwn = false;
  missedPrevious = false;

  constructor(
    private readonly mine: PollWrites,
    private readonly order: readonly PollWrites[],
    private readonly hidden: ReadonlySet<PollWrites>,
  ) {}

  #note(missed: readonly PollWrites[]): void {
    if (missed.includes(this.mine)) this.missedOwn = true;
    if (missed.some((p) => p !== this.mine)) this.missedPrevious = true;
  }

  /** The poll whose value before its write a read sees, or undefined (the value as stored). */
  #before(wrote: (p: PollWrites) => boolean): PollWrites | undefined {
    let found: PollWrites | undefined;
    const missed: PollWrites[] = [];
    for (const p of this.order) {
      if (!wrote(p)) continue;
      if (!this.hidden.has(p)) break;
      found = p;
      missed.push(p);
    }
    this.#note(missed);
    return found;
  }

  snapshot(key: string): { found: boolean; value?: Snapshot } {
    const p = this.#before((q) => q.snapshotsBefore.has(key));
    if (!p) return { found: false };
    const value = p.snapshotsBefore.get(key);
    return { found: true, ...(value ? { value } : {}) };
  }

  digest(key: string): { found: boolean; value?: Uint8Array } {
    const p = this.#before((q) => q.digestsBefore.has(key));
    if (!p) return { found: false };
    const value = p.digestsBefore.get(key);
    return { found: true, ...(value ? { value } : {}) };
  }

  /** A seen key every write of which in the window is hidden. */
  unseen(fingerprint: string): boolean {
    const wrote = this.order.filter((q) => q.seen.has(fingerprint));
    const unseen = wrote.length > 0 && wrote.every((q) => this.hidden.has(q));
    if (unseen) this.#note(wrote);
    return unseen;
  }
}

/** The seen set and snapshots of a store, read as an eventually consistent read may answer. */
class StaleReads implements SeenStore, SnapshotStore {
  /** This process's writes, once it read or wrote the seen set or snapshots. */
  #mine: PollWrites | undefined;

  constructor(
    private readonly inner: BridgeStateStore,
    private readonly process: PollerProcess,
    private readonly rate: number,
    private readonly recent: RecentWrites = new RecentWrites(),
  ) {}

  #entered(): PollWrites {
    this.#mine ??= this.recent.enter();
    return this.#mine;
  }

  /**
   * What an eventually consistent read misses, if anything: this process's writes with probability
   * `rate` (drawn whether or not the other faults are on: production reads eventually consistent
   * always), the previous poll's with the run's across-polls rate. A strongly consistent read
   * misses nothing.
   */
  #miss(consistent: boolean | undefined): Miss | undefined {
    const mine = this.#entered();
    if (consistent === true) return undefined;
    const hidden = new Set<PollWrites>();
    if (wroteAnything(mine) && this.rate > 0 && this.process.injector.random() < this.rate) hidden.add(mine);
    const previous = this.recent.previous(mine);
    if (previous.some(wroteAnything) && this.recent.staleAcross()) for (const p of previous) hidden.add(p);
    return hidden.size > 0 ? new Miss(mine, [mine, ...previous], hidden) : undefined;
  }

  /**
   * A read served stale: one that missed this process's writes explains the duplicates the
   * process delivers; one that missed the previous poll's explains nothing (counted apart): the
   * engine must not read eventually consistent where that matters.
   */
  #served(miss: Miss): void {
    if (miss.missedOwn) {
      this.process.servedStaleRead = true;
      this.process.injector.count('stale-read');
    }
    if (miss.missedPrevious) this.process.injector.count('stale-read-across-polls');
  }

  #unseen<T>(values: T[], fingerprintOf: (v: T) => string, consistent: boolean | undefined): T[] {
    const miss = this.#miss(consistent);
    if (!miss) return values;
    const kept = values.filter((v) => !miss.unseen(fingerprintOf(v)));
    if (kept.length < values.length) this.#served(miss);
    return kept;
  }

  async getSnapshots(
    clubId: string,
    kind: SnapshotKind,
    ids: string[],
    options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>> {
    const found = await this.inner.parts.snapshots.getSnapshots(clubId, kind, ids, options);
    const miss = this.#miss(options?.consistentRead);
    if (!miss) return found;
    let changed = false;
    for (const id of ids) {
      const before = miss.snapshot(`${kind}|${id}`);
      if (!before.found) continue;
      if (before.value) found.set(id, before.value);
      else found.delete(id);
      changed = true;
    }
    if (changed) this.#served(miss);
    return found;
  }

  /**
   * The digest as the store has it, or (a stale read) the one before the missed puts: a digest is
   * put after the keys it vouches for, so an older one vouches for fewer, never wrongly.
   */
  async getSeenDigest(
    clubId: string,
    source: SourceName,
    nowSec: number,
    options?: { readonly consistentRead?: boolean },
  ): Promise<Uint8Array | undefined> {
    const digest = await this.inner.parts.seen.getSeenDigest(clubId, source, nowSec, options);
    const miss = this.#miss(options?.consistentRead);
    const before = miss?.digest(`${clubId}|${source}`);
    if (!miss || !before?.found) return digest;
    this.#served(miss);
    return before.value;
  }

  async putSeenDigest(
    clubId: string,
    source: SourceName,
    digest: Uint8Array,
    expiresAtSec: number,
  ): Promise<void> {
    const key = `${clubId}|${source}`;
    const mine = this.#entered();
    if (!mine.digestsBefore.has(key))
      mine.digestsBefore.set(key, await this.inner.parts.seen.getSeenDigest(clubId, source, 0));
    return this.inner.parts.seen.putSeenDigest(clubId, source, digest, expiresAtSec);
  }

  /**
   * Listed as the store has them when asked consistently (the lifecycle evaluation is); an
   * eventually consistent list may miss what this process wrote, as the other reads do.
   */
  async listSnapshots(
    clubId: string,
    kind: SnapshotKind,
    options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>> {
    const found = await this.inner.parts.snapshots.listSnapshots(clubId, kind, options);
    if (options?.consistentRead === true) return found;
    return this.getSnapshots(clubId, kind, [...found.keys()]).then((stale) => {
      // What getSnapshots serves stale for the listed ids (a snapshot this process wrote, as before it).
      for (const id of found.keys()) if (!stale.has(id)) found.delete(id);
      for (const [id, s] of stale) found.set(id, s);
      return found;
    });
  }

  async putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]): Promise<void> {
    const map = this.#entered().snapshotsBefore;
    const fresh = snapshots.map((s) => s.id).filter((id) => !map.has(`${kind}|${id}`));
    if (fresh.length > 0) {
      const before = await this.inner.parts.snapshots.getSnapshots(clubId, kind, fresh);
      for (const id of fresh) map.set(`${kind}|${id}`, before.get(id));
    }
    await this.inner.parts.snapshots.putSnapshots(clubId, kind, snapshots);
  }

  async filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options?: FilterSeenOptions,
  ): Promise<Set<string>> {
    const found = await this.inner.parts.seen.filterSeen(clubId, source, fingerprints, nowSec, options);
    const consistent = options?.consistentRead ?? true;
    return new Set(this.#unseen([...found], (f) => f, consistent));
  }

  async seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<Set<string>> {
    const found = await this.inner.parts.seen.seenSince(clubId, source, fromAt, nowSec, options);
    return new Set(this.#unseen([...found], (f) => f, options?.consistentRead));
  }

  async seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<SeenEntry[]> {
    const found = await this.inner.parts.seen.seenEntriesSince(clubId, source, fromAt, nowSec, options);
    return this.#unseen(found, (e) => e.fingerprint, options?.consistentRead);
  }

  async putSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    expiresAtSec: number,
  ): Promise<void> {
    await this.inner.parts.seen.putSeen(clubId, source, fingerprints, expiresAtSec);
    const mine = this.#entered();
    for (const f of fingerprints) mine.seen.add(f);
  }

  async putSeenAt(clubId: string, source: SourceName, entries: readonly SeenAt[], expiresAtSec: number) {
    await this.inner.parts.seen.putSeenAt(clubId, source, entries, expiresAtSec);
    const mine = this.#entered();
    for (const e of entries) mine.seen.add(e.fingerprint);
  }
}

/**
 * `inner` with stale reads of the seen set and the snapshots (what production reads eventually
 * consistently); everything else is the store's own (cursors, the club item, quarantine and the
 * lifecycle documents are read consistently).
 */
export function staleReadStore(
  inner: BridgeStateStore,
  process: PollerProcess,
  rate: number,
  recent: RecentWrites = new RecentWrites(),
): BridgeStateStore {
  const stale = new StaleReads(inner, process, rate, recent);
  return new BridgeStateStore({ ...inner.parts, seen: stale, snapshots: stale });
}
