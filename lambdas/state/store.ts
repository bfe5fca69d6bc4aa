/**
 * The state store port: everything the engine persists between polls (cursors and watermarks,
 * leases, seen fingerprints, member/prospect snapshots, quota counters, quarantined records).
 *
 * Two adapters implement it with identical semantics: `DynamoDbStateStore` (production, the CLI,
 * integration tests against dynalite) and `MemoryStateStore` (unit tests, benchmarks). The shared
 * contract test suite runs against both. Item layout and the reasons behind it: docs/state.md.
 */

import type { SourceName } from '../common/source-names';
import type { Snapshot, SnapshotKind } from '../common/subject-snapshot';
import type { LifecycleFailure, LifecycleNotes } from './lifecycle-notes';

export { isSourceName, SOURCE_NAMES, type SourceName } from '../common/source-names';
export type { Snapshot, SnapshotKind } from '../common/subject-snapshot';

/** Progress of a scan that did not finish inside one invocation; the next poll resumes from it. */
export interface ScanProgress {
  fromdate: string;
  nextOffset: number;
  startedAt: string;
  maxRecordTime?: string;
  pages: number;
  records: number;
}

export interface SourceHealth {
  lastPollAt?: string;
  lastSuccessAt?: string;
  consecutiveFailures: number;
  lastError?: { kind: string; message: string; at: string };
  pausedUntil?: string;
  nextDueAt?: string;
  staleNotifiedAt?: string;
  /** Set while the source's endpoint is missing or unusable for this club (engine/club-poll/source-outcomes.ts). */
  unavailable?: SourceUnavailable;
  /**
   * Operational events announced and not delivered yet (engine/club-poll/announcer.ts): each is
   * written with the state it announces, removed once published, and published again by the next
   * poll until then, under the same eventId. Absent in a normal poll.
   */
  owedEvents?: OwedEvent[];
}

/** An operational event as a cursor keeps it until it is delivered (the catalog validates it then). */
export interface OwedEvent {
  readonly detailType: string;
  readonly detail: { readonly eventId: string } & Record<string, unknown>;
}

/** A source whose endpoint answered 404/403 (or, for an experimental one, 400 or an unusable shape). */
export interface SourceUnavailable {
  /** not-found (404), forbidden (403), bad-request (400), unusable-response (not a usable envelope). */
  kind: string;
  /** The error as the client reported it (redacted, at most 500 characters). */
  reason: string;
  /** HTTP status, when there was one. */
  status?: number;
  /** First seen unavailable (UTC ISO): with the source, identifies the episode. */
  since: string;
  /** Last time the endpoint was tried and still unavailable (UTC ISO). */
  checkedAt: string;
  /** Not polled before this (UTC ISO); a successful poll then clears the mark. */
  retryAt: string;
}

export interface Cursor {
  clubId: string;
  source: SourceName;
  /** Optimistic-locking version: 0 = never stored; every successful `putCursor` adds 1. */
  version: number;
  /** Highest record time seen (UTC ISO with Z), capped at poll start. */
  watermark?: string;
  baselineDone: boolean;
  /**
   * An explicit backfill asked for and not finished yet: its start (UTC ISO with Z). Set when the
   * backfill is asked for, cleared when it completes; while set, the scheduler polls the source
   * again soon (reason `backfill`). The backfill never moves `watermark`, `scan` or the sweep timing.
   */
  backfillFrom?: string;
  /** Progress of the regular polls' scan that did not finish inside one invocation. */
  scan?: ScanProgress;
  /** Progress of the pending backfill's own scan, kept apart from `scan`. */
  backfillScan?: ScanProgress;
  health: SourceHealth;
  stats?: Record<string, number>;
  /**
   * A state source's row marks: rows its last completed regular scan committed (committed-rows.ts).
   */
  committedRows?: string;
}

export interface QuarantinedRecord {
  key: string;
  reason: string;
  raw: unknown;
  /** When it was quarantined (UTC ISO with Z); with `key` it identifies the item. */
  at: string;
}

export interface FilterSeenOptions {
  /** @default true */
  readonly consistentRead?: boolean;
}

/** An entry of the time-ordered seen set: a fingerprint filed under its record's instant. */
export interface SeenAt {
  /** The fingerprint (same alphabet and limits as filterSeen's). */
  readonly fingerprint: string;
  /** The record's instant as UTC ISO with milliseconds and Z, e.g. 2026-11-22T10:00:00.000Z (24 chars). */
  readonly at: string;
  /**
   * Optional, returned by `seenEntriesSince`: a key shared by one record's entries (a hash of a
   * payment's Id) and the value that made this one (its Response). Both or neither; <= 64/256 bytes.
   */
  readonly group?: string;
  readonly value?: string;
  /** Optional, returned by `seenEntriesSince`: what a later reader needs of the record (<= 256 bytes). */
  readonly memo?: string;
  /**
   * Optional, returned by `seenEntriesSince`: filed after every event of its facet was published
   * (absent: a silent baseline filed it, its facet had no event, or a release before the mark), so
   * that `explain` shows an eventId only for what was published.
   */
  readonly announced?: true;
}

/** An entry of the time-ordered seen set as read back, with its group, value and memo when it has them. */
export type SeenEntry = SeenAt;

export interface SeenSinceOptions {
  /** Exclusive upper bound, in the same format as `at`. @default no upper bound */
  readonly toAt?: string;
  /** @default false (eventually consistent: half the read units) */
  readonly consistentRead?: boolean;
}

/**
 * The store is a few narrow ports, one per stored item (in the spirit of Powertools' idempotency
 * persistence layer): the club state item (`ClubStateStore`: lease, cursors, counter, lifecycle
 * marks), and the club's other items (`ItemPorts`: seen set, snapshots, quarantine, lifecycle
 * documents), each taking the club first. What the engine is handed is a club's session
 * (`ClubSession`): every one of those bound to the club, its writes fenced by the lease once.
 * `StateStore` itself keeps only what needs no lease: opening a club, the dispatcher's batched read,
 * and read-only views of a club for the CLI and `explain` (state-store.ts).
 */

/** A club's cursors as its session (or a view) serves them: watermark, scan progress and health per source. */
export interface CursorStore {
  /** The stored cursor, or a fresh version-0 cursor if none. */
  getCursor(source: SourceName): Promise<Cursor>;
  /** Every stored cursor of the club, ordered by source name. */
  listCursors(): Promise<Cursor[]>;
  /**
   * Conditional on the stored version === cursor.version (0 = must not exist). Returns the cursor
   * with version+1. Throws ConcurrentModificationError otherwise.
   */
  putCursor(cursor: Cursor): Promise<Cursor>;
}

/** A club's monthly request counter, as its session serves it (in the club state item). */
export interface QuotaStore {
  /** Adds to the month's counter (a new month starts from 0); returns the new total. */
  addQuotaUsage(month: string, requests: number): Promise<number>;
  /** Requests counted for the month, 0 if none. */
  getQuotaUsage(month: string): Promise<number>;
}

/**
 * The club state item: the lease that keeps one poller per club, the cursors and the month's
 * request counter, in one item (club-state.ts). A poll opens a session (one conditional write that
 * takes the lease and reads the rest) and closes it (one conditional write of what changed, with the
 * release). Outside a session the item is only read.
 */
export interface ClubStateStore {
  /**
   * Takes the club's lease (absent, expired, or already `owner`'s) and reads its state: undefined
   * when another poller holds it. The session serves the club's cursors and counter until closed.
   */
  openClub(
    clubId: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<ClubStateSession | undefined>;
  /** Many clubs' cursors and the month's counter, eventually consistent (BatchGetItem, 100 keys a call). */
  readClubStates(clubIds: readonly string[], month: string): Promise<Map<string, ClubStateSummary>>;
  /** The club's stored cursors, ordered by source name (strongly consistent; no lease). */
  readCursors(clubId: string): Promise<Cursor[]>;
  /** Requests counted for the club's month, 0 if none (strongly consistent; no lease). */
  readQuotaUsage(clubId: string, month: string): Promise<number>;
}

export interface ClubStateSummary {
  readonly cursors: readonly Cursor[];
  readonly quotaUsed: number;
  /** The UTC hour (epoch hours) of the club's last lifecycle evaluation, if any. */
  readonly lifecycleHour?: number;
  /** Since when and why the club's lifecycle evaluations fail, if they do (lifecycle-notes.ts). */
  readonly lifecycleFailure?: LifecycleFailure;
}

/**
 * A poll's hold on its club state item: the club's cursors and counter, changed in memory and written
 * with `checkpoint` (taken on its own every 20 s of a long poll) or `close` (which also releases the
 * lease; nothing changed: the release alone). A write after the lease was lost throws StoreError.
 */
export interface ClubStateSession extends CursorStore, QuotaStore {
  readonly clubId: string;
  checkpoint(): Promise<void>;
  close(): Promise<void>;
  /** Throws (a StoreError) when the session's lease has run out: the poll must not write more. */
  assertLeaseHeld(): void;
  /** The UTC hour (epoch ms / 3,600,000, floored) of the club's last lifecycle evaluation, if any. */
  lifecycleHour(): number | undefined;
  /** Records this poll's lifecycle evaluation: written with the session's state (checkpoint, close). */
  markLifecycleHour(hour: number): void;
  /** What the club's polls changed since its last lifecycle evaluation (lifecycle-notes.ts). */
  lifecycleNotes(): LifecycleNotes;
  /** Adds to the notes (written with the session's state). */
  noteLifecycle(more: LifecycleNotes): void;
  /** Empties the notes: an evaluation took them into account. */
  clearLifecycleNotes(): void;
}

/** The seen digest of an append source: one opaque item per club and source (docs/state.md, "Seen digests"). */
export interface SeenDigestStore {
  /**
   * The source's seen digest (engine/scan/seen-digest.ts: per-hour and per-day counts and XORs of
   * the seen fingerprints a scan vouched for), undefined when none was put or it expired. Opaque
   * bytes here. Eventually consistent unless `consistentRead: true` (a whole unit): a stale digest
   * only vouches for fewer fingerprints.
   */
  getSeenDigest(
    clubId: string,
    source: SourceName,
    nowSec: number,
    options?: { readonly consistentRead?: boolean },
  ): Promise<Uint8Array | undefined>;
  /** Replaces the source's seen digest (one PutItem, at most MAX_SEEN_DIGEST_BYTES). */
  putSeenDigest(clubId: string, source: SourceName, digest: Uint8Array, expiresAtSec: number): Promise<void>;
}

/** The seen set of append sources: fingerprints by key, the time-ordered entries, the digests. */
export interface SeenStore extends SeenDigestStore {
  /**
   * Which of these fingerprints are already seen and not expired (expiresAt filtered on read:
   * dynalite and DynamoDB TTL do not delete on time). BatchGetItem 100 keys, UnprocessedKeys retried.
   * Strongly consistent unless `consistentRead: false` (half the read units).
   */
  filterSeen(
    clubId: string,
    source: SourceName,
    fingerprints: string[],
    nowSec: number,
    options?: FilterSeenOptions,
  ): Promise<Set<string>>;
  /** BatchWriteItem 25 per call, UnprocessedItems retried with backoff until done or throws. */
  putSeen(clubId: string, source: SourceName, fingerprints: string[], expiresAtSec: number): Promise<void>;
  /**
   * Fingerprints of the time-ordered seen set whose `at` is >= fromAt (and < toAt when given), not
   * expired (expiresAt > nowSec, filtered on read). One Query, paginated to the end (LastEvaluatedKey).
   * Eventually consistent unless `consistentRead: true`.
   */
  seenSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<Set<string>>;
  /**
   * The entries behind `seenSince` (the same Query, also projecting `group` and `value`), in key
   * order. Entries written without a group (or before groups existed) come back without one.
   */
  seenEntriesSince(
    clubId: string,
    source: SourceName,
    fromAt: string,
    nowSec: number,
    options?: SeenSinceOptions,
  ): Promise<SeenEntry[]>;
  /** Writes time-ordered seen entries (idempotent puts; BatchWriteItem 25, UnprocessedItems retried as putSeen does). */
  putSeenAt(
    clubId: string,
    source: SourceName,
    entries: readonly SeenAt[],
    expiresAtSec: number,
  ): Promise<void>;
}

/** Snapshots of state-source records (members, prospects). */
export interface SnapshotStore {
  /**
   * The stored snapshots among `ids`, keyed by id; unknown ids are absent from the map. Eventually
   * consistent (half the read units): a stale read can only repeat a transition (same eventId);
   * strongly consistent with `consistentRead: true` (the lifecycle evaluation's read).
   */
  getSnapshots(
    clubId: string,
    kind: SnapshotKind,
    ids: string[],
    options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>>;
  /** Writes (replaces) snapshots; for a repeated id the last one wins. */
  putSnapshots(clubId: string, kind: SnapshotKind, snapshots: Snapshot[]): Promise<void>;
  /**
   * Every snapshot of the club's kind by id: one Query (docs/state.md), eventually consistent
   * unless `consistentRead: true` (twice the read units).
   */
  listSnapshots(
    clubId: string,
    kind: SnapshotKind,
    options?: { readonly consistentRead?: boolean },
  ): Promise<Map<string, Snapshot>>;
}

/** Records that failed validation, kept with their reason. */
export interface QuarantineStore {
  putQuarantined(
    clubId: string,
    source: SourceName,
    records: QuarantinedRecord[],
    expiresAtSec: number,
  ): Promise<void>;
  /** Unexpired quarantined records, newest first, at most `limit` (default 100). */
  listQuarantined(clubId: string, source: SourceName, limit?: number): Promise<QuarantinedRecord[]>;
}

/** A fresh, never-stored cursor (version 0): what `getCursor` returns when there is none. */
export function newCursor(clubId: string, source: SourceName): Cursor {
  return { clubId, source, version: 0, baselineDone: false, health: { consecutiveFailures: 0 } };
}

export const DEFAULT_QUARANTINE_LIST_LIMIT = 100;
export { ConcurrentModificationError, StoreError } from './store-errors';
