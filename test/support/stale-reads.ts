/**
 * Eventually consistent reads, where production makes them (snapshots; the seen window's
 * `seenEntriesSince`/`seenSince` and `filterSeen` with `consistentRead: false`), for the chaos suite.
 *
 * DynamoDB's replication delay is about a second; polls of a club are a minute or more apart. So a
 * stale read can only miss what was written moments ago: what the same poll wrote. Wrapped per
 * poller process, this store remembers the snapshots (with the value before) and the seen keys the
 * process wrote, and with probability `rate`, an eventually consistent read does not see them: a
 * snapshot comes back as it was before the process wrote it, a seen key as unseen. dynalite's own
 * reads are always consistent.
 *
 * What the engine may do with a stale read is publish a change again under the same eventId (the
 * poller process records it: `PollerProcess.servedStaleRead`), never lose or invent one.
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

/**
 * What recent pollers wrote, shared by the stale-read stores of one run: the current poll's writes
 * and, when `previousPolls` > 0, those of the polls before it (a replication delay longer than
 * the minute between two polls: rare, but DynamoDB does not bound it).
 */
export class RecentWrites {
  readonly #polls: {
    snapshotsBefore: Map<string, Snapshot | undefined>;
    seen: Set<string>;
    digestsBefore: Map<string, Uint8Array | undefined>;
  }[] = [];

  constructor(readonly previousPolls = 0) {}

  /** A new poll starts: its writes are recorded apart; the oldest beyond the window are forgotten. */
  newPoll() {
    const poll = {
      snapshotsBefore: new Map<string, Snapshot | undefined>(),
      seen: new Set<string>(),
      digestsBefore: new Map<string, Uint8Array | undefined>(),
    };
    this.#polls.unshift(poll);
    this.#polls.length = Math.min(this.#polls.length, 1 + this.previousPolls);
    return poll;
  }

  /** The value of a snapshot before the oldest write in the window (undefined inside: none then). */
  snapshotBefore(key: string): { found: boolean; value?: Snapshot } {
    for (let i = this.#polls.length - 1; i >= 0; i--) {
      const map = this.#polls[i]!.snapshotsBefore;
      if (map.has(key)) return { found: true, ...(map.get(key) ? { value: map.get(key)! } : {}) };
    }
    return { found: false };
  }

  /** The seen digest before the oldest put in the window (found: false when none was put). */
  digestBefore(key: string): { found: boolean; value?: Uint8Array } {
    for (let i = this.#polls.length - 1; i >= 0; i--) {
      const map = this.#polls[i]!.digestsBefore;
      if (map.has(key)) return { found: true, ...(map.get(key) ? { value: map.get(key)! } : {}) };
    }
    return { found: false };
  }

  seenWritten(fingerprint: string): boolean {
    return this.#polls.some((p) => p.seen.has(fingerprint));
  }

  get empty(): boolean {
    return this.#polls.every(
      (p) => p.snapshotsBefore.size === 0 && p.seen.size === 0 && p.digestsBefore.size === 0,
    );
  }
}

/** The seen set and snapshots of a store, read as an eventually consistent read may answer. */
class StaleReads implements SeenStore, SnapshotStore {
  readonly #mine: ReturnType<RecentWrites['newPoll']>;

  constructor(
    private readonly inner: BridgeStateStore,
    private readonly process: PollerProcess,
    private readonly rate: number,
    private readonly recent: RecentWrites = new RecentWrites(),
  ) {
    this.#mine = recent.newPoll();
  }

  /** Drawn whether or not the other faults are on: production reads eventually consistent always. */
  #stale(): boolean {
    return this.rate > 0 && this.process.injector.random() < this.rate;
  }

  #served(): void {
    this.process.servedStaleRead = true;
    this.process.injector.count('stale-read');
  }

  #unseen<T>(values: T[], fingerprintOf: (v: T) => string, consistent: boolean | undefined): T[] {
    if (consistent === true || this.recent.empty || !this.#stale()) return values;
    const kept = values.filter((v) => !this.recent.seenWritten(fingerprintOf(v)));
    if (kept.length < values.length) this.#served();
    return kept;
  }

  async getSnapshots(
    clubId: string,
    kind: SnapshotKind,
    ids: string[],
    options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>> {
    const found = await this.inner.parts.snapshots.getSnapshots(clubId, kind, ids, options);
    if (options?.consistentRead === true || this.recent.empty || !this.#stale()) return found;
    let changed = false;
    for (const id of ids) {
      const before = this.recent.snapshotBefore(`${kind}|${id}`);
      if (!before.found) continue;
      if (before.value) found.set(id, before.value);
      else found.delete(id);
      changed = true;
    }
    if (changed) this.#served();
    return found;
  }

  /**
   * The digest as the store has it, or (a stale read) the one before this process's puts: a
   * digest is put after the keys it vouches for, so an older one vouches for fewer, never wrongly.
   */
  async getSeenDigest(clubId: string, source: SourceName, nowSec: number): Promise<Uint8Array | undefined> {
    const digest = await this.inner.parts.seen.getSeenDigest(clubId, source, nowSec);
    if (this.recent.empty || !this.#stale()) return digest;
    const before = this.recent.digestBefore(`${clubId}|${source}`);
    if (!before.found) return digest;
    this.#served();
    return before.value;
  }

  async putSeenDigest(
    clubId: string,
    source: SourceName,
    digest: Uint8Array,
    expiresAtSec: number,
  ): Promise<void> {
    const key = `${clubId}|${source}`;
    if (!this.#mine.digestsBefore.has(key))
      this.#mine.digestsBefore.set(key, await this.inner.parts.seen.getSeenDigest(clubId, source, 0));
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
    const map = this.#mine.snapshotsBefore;
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
    for (const f of fingerprints) this.#mine.seen.add(f);
  }

  async putSeenAt(clubId: string, source: SourceName, entries: readonly SeenAt[], expiresAtSec: number) {
    await this.inner.parts.seen.putSeenAt(clubId, source, entries, expiresAtSec);
    for (const e of entries) this.#mine.seen.add(e.fingerprint);
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
