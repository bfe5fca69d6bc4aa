/**
 * A poll's session on its club's state item: opened by ClubStates.openClub with the lease taken
 * and the state read in one write. Cursor and counter changes are kept here and written in one
 * conditional write when the session closes (with the lease release), or at a checkpoint: on its own
 * every CHECKPOINT_EVERY_MS during a long poll (a backfill), so a crash loses at most that much
 * progress. Losing progress re-reads, it does not re-publish: what was published is recorded in the
 * seen set and the snapshots, written at once (docs/state.md, "The club state item").
 */
import { type ClubItemBackend, clubStateItemBytes, type StoredClubState, sortCursors } from './club-state';
import { fitCommittedRows, withoutCommittedRows } from './committed-rows';
import { withFreshReads } from './fresh-reads';
import { assertSourceName, MONTH_PATTERN } from './keys';
import { addNotes, isEmptyNotes, type LifecycleNotes } from './lifecycle-notes';
import {
  type ClubStateSession,
  ConcurrentModificationError,
  type Cursor,
  newCursor,
  type SourceName,
  StoreError,
} from './store';
import { copyOf, storableCursor } from './stored-values';
import { validateQuotaRequests } from './validation';

/** A long poll writes its progress at least this often. */
export const CHECKPOINT_EVERY_MS = 20_000;
/** A session stops its own writes this long before its lease expires (clock skew between pollers). */
export const LEASE_MARGIN_MS = 5_000;
/** The longest lease owner the row marks leave room for (the poll Lambda's is 78-81 characters). */
const FIT_LEASE_OWNER_CHARS = 96;
/** Room the row marks leave for the next poll's version and counter growing by a digit each. */
const FIT_SLACK_BYTES = 16;

/** The poll's lease expired or another poller took the club: this session writes nothing more. */
export class LeaseLostError extends StoreError {
  override readonly name = 'LeaseLostError';
}

export interface ClubSessionOptions {
  readonly backend: ClubItemBackend;
  readonly clubId: string;
  readonly owner: string;
  readonly state: StoredClubState;
  /** True when the state must be written even if the poll changes nothing (a migrated club). */
  readonly dirty: boolean;
  /** The month's requests counted before this session (read on first use of a month). */
  readonly quotaOf: (month: string) => Promise<number>;
  readonly now: () => number;
}

export class ClubSessionImpl implements ClubStateSession {
  readonly clubId: string;
  readonly #backend: ClubItemBackend;
  readonly #owner: string;
  readonly #now: () => number;
  readonly #quotaOf: (month: string) => Promise<number>;
  readonly #cursors: Map<SourceName, Cursor>;
  #version: number;
  #quota: { month: string; requests: number } | undefined;
  #lifecycleHour: number | undefined;
  #notes: LifecycleNotes;
  /** Changes made / changes written: the state is dirty while they differ. */
  #changes: number;
  #written = 0;
  /** Writes go one at a time, in order (a checkpoint and the close can overlap). */
  #writing: Promise<void> = Promise.resolve();
  #lastWriteMs: number;
  #closed = false;
  readonly #leaseExpiresAtMs: number | undefined;

  constructor(options: ClubSessionOptions) {
    this.clubId = options.clubId;
    this.#backend = options.backend;
    this.#owner = options.owner;
    this.#now = options.now;
    this.#quotaOf = options.quotaOf;
    this.#version = options.state.version;
    this.#changes = options.dirty ? 1 : 0;
    // A poll that stopped without its closing write may have committed snapshots its cursors'
    // row marks do not name: they are dropped, in the store too (the close writes them out). It
    // may have written seen entries and snapshots it left no fresh-read mark for: every source
    // is marked, so its next poll reads them strongly consistent (fresh-reads.ts).
    const cursors = (options.state.cursors ?? []).map((c) =>
      options.state.uncleanStop ? withFreshReads(withoutCommittedRows(c)) : c,
    );
    if (cursors.some((c, i) => c !== options.state.cursors?.[i])) this.#changes++;
    this.#cursors = new Map(cursors.map((c) => [c.source, c]));
    const { quotaMonth, quotaRequests } = options.state;
    this.#quota = quotaMonth === undefined ? undefined : { month: quotaMonth, requests: quotaRequests ?? 0 };
    this.#lifecycleHour = options.state.lifecycleHour;
    // A poll that stopped without its closing write may have changed subjects it never noted.
    const stored = options.state.lifecycleNotes ?? {};
    this.#notes = options.state.uncleanStop ? addNotes(stored, { full: true }) : stored;
    if (options.state.uncleanStop && !options.state.lifecycleNotes?.full) this.#changes++;
    this.#lastWriteMs = options.now();
    this.#leaseExpiresAtMs = options.state.leaseExpiresAtMs;
  }

  /**
   * Throws LeaseLostError once the lease this session took has run out (by this process's clock,
   * LEASE_MARGIN_MS early): the poll's other writes (seen set, snapshots, quarantine) check it first,
   * so a poller that outlived its lease stops writing before another may have started.
   */
  assertLeaseHeld(): void {
    if (this.#closed) throw new StoreError(`club ${this.clubId}: the poll's session is closed`);
    const until = this.#leaseExpiresAtMs;
    if (until !== undefined && this.#now() > until - LEASE_MARGIN_MS) {
      throw new LeaseLostError(`club ${this.clubId}: the poll's lease has expired; nothing more is written`);
    }
  }

  async getCursor(source: SourceName): Promise<Cursor> {
    this.#check(this.clubId);
    assertSourceName(source);
    const stored = this.#cursors.get(source);
    return stored ? copyOf(stored) : newCursor(this.clubId, source);
  }

  async listCursors(): Promise<Cursor[]> {
    this.#check(this.clubId);
    return sortCursors([...this.#cursors.values()]).map(copyOf);
  }

  async putCursor(cursor: Cursor): Promise<Cursor> {
    this.#check(cursor.clubId);
    assertSourceName(cursor.source);
    const current = this.#cursors.get(cursor.source);
    const matches = cursor.version === 0 ? current === undefined : current?.version === cursor.version;
    if (!matches) throw new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version);
    const stored = storableCursor(cursor, cursor.version + 1);
    this.#cursors.set(cursor.source, stored);
    this.#changes++;
    if (this.#now() - this.#lastWriteMs >= CHECKPOINT_EVERY_MS) await this.checkpoint();
    return copyOf(stored);
  }

  async getQuotaUsage(month: string): Promise<number> {
    this.#check(this.clubId);
    return (await this.#quotaFor(month)).requests;
  }

  async addQuotaUsage(month: string, requests: number): Promise<number> {
    this.#check(this.clubId);
    validateQuotaRequests(requests);
    const quota = await this.#quotaFor(month);
    quota.requests += requests;
    if (requests > 0) this.#changes++;
    return quota.requests;
  }

  lifecycleHour(): number | undefined {
    return this.#lifecycleHour;
  }

  markLifecycleHour(hour: number): void {
    if (!Number.isSafeInteger(hour) || hour < 0)
      throw new StoreError(`lifecycle hour must be a whole number >= 0, got ${hour}`);
    if (hour === this.#lifecycleHour) return;
    this.#lifecycleHour = hour;
    this.#changes++;
  }

  lifecycleNotes(): LifecycleNotes {
    return this.#notes;
  }

  noteLifecycle(more: LifecycleNotes): void {
    const next = addNotes(this.#notes, more);
    if (JSON.stringify(next) === JSON.stringify(this.#notes)) return;
    this.#notes = next;
    this.#changes++;
  }

  clearLifecycleNotes(): void {
    if (isEmptyNotes(this.#notes)) return;
    this.#notes = {};
    this.#changes++;
  }

  async checkpoint(): Promise<void> {
    if (this.#closed) throw new StoreError(`club ${this.clubId}: the poll's session is closed`);
    await this.#write(false);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#write(true);
  }

  /** Writes the state if it changed (and releases the lease when asked), after any write in flight. */
  #write(release: boolean): Promise<void> {
    const next = this.#writing.then(() => this.#writeNow(release));
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async #writeNow(release: boolean): Promise<void> {
    const changes = this.#changes;
    if (changes === this.#written) {
      if (release) await this.#backend.drop(this.clubId, this.#owner);
      return;
    }
    const version = this.#version + 1;
    const written = await this.#backend.write({
      clubId: this.clubId,
      version,
      cursors: this.#fitted(version),
      ...(this.#quota ? { quota: { ...this.#quota } } : {}),
      ...(this.#lifecycleHour === undefined ? {} : { lifecycleHour: this.#lifecycleHour }),
      lifecycleNotes: this.#notes,
      condition: {
        owner: this.#owner,
        release,
        expectVersion: this.#version,
        nowMs: this.#now(),
      },
    });
    if (!written) {
      throw new LeaseLostError(
        `club ${this.clubId}: the poll's lease expired or was taken by another poller; its cursor changes were not written`,
      );
    }
    this.#version = version;
    this.#written = changes;
    this.#lastWriteMs = this.#now();
  }

  /**
   * The cursors to write, with as many row marks as fit in the write units the item costs without
   * them (committed-rows.ts), sized as the item will be while the next poll holds its lease: its
   * owner may be longer than this one's, its version and counter a digit longer (FIT_SLACK_BYTES).
   */
  #fitted(version: number): Cursor[] {
    return fitCommittedRows(
      sortCursors([...this.#cursors.values()]),
      (cursors) =>
        FIT_SLACK_BYTES +
        clubStateItemBytes(this.clubId, {
          version,
          leaseOwner: this.#owner.padEnd(FIT_LEASE_OWNER_CHARS, 'x'),
          leaseExpiresAtMs: this.#leaseExpiresAtMs ?? this.#now(),
          cursors: [...cursors],
          ...(this.#quota ? { quotaMonth: this.#quota.month, quotaRequests: this.#quota.requests } : {}),
          ...(this.#lifecycleHour === undefined ? {} : { lifecycleHour: this.#lifecycleHour }),
          lifecycleNotes: this.#notes,
        }),
    );
  }

  async #quotaFor(month: string): Promise<{ month: string; requests: number }> {
    if (!MONTH_PATTERN.test(month)) throw new StoreError(`month must be yyyy-mm: ${JSON.stringify(month)}`);
    if (this.#quota?.month !== month) {
      // Another month than the item counts: its counter starts from what the old layout counted (0 after it).
      this.#quota = { month, requests: await this.#quotaOf(month) };
    }
    return this.#quota;
  }

  #check(clubId: string): void {
    if (clubId !== this.clubId) {
      throw new StoreError(`a session of club ${this.clubId} cannot serve club ${clubId}`);
    }
    if (this.#closed) throw new StoreError(`club ${this.clubId}: the poll's session is closed`);
  }
}
