/**
 * The club state item: one item per club (`CLUB#<id>` / `STATE`) holding what every poll reads and
 * writes: the club lease, the cursors of all its sources and the month's request counter. A poll
 * takes the lease and reads the rest in ONE conditional write (ReturnValues ALL_OLD), and writes what
 * changed and releases the lease in ONE more (conditional on still holding it): two writes a poll,
 * where the per-source layout wrote a cursor per source, a lease twice and a counter.
 *
 * The cursors are one attribute, `c`: the JSON array of the cursors without their club id, gzipped
 * (about a fifth of the JSON), so the whole item stays near 1 KB and each write costs one or two
 * write units. This module is the codec and the backend contract; club-states.ts is the logic on top
 * and dynamodb/club-items.ts, memory/club-items.ts the two backends.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { encodeNotes, isEmptyNotes, type LifecycleNotes } from './lifecycle-notes';
import { type Cursor, isSourceName, type SourceName, StoreError } from './store';
import { storableCursor } from './stored-values';

export const CLUB_STATE_SK = 'STATE';

/** The club state as stored (before decoding the cursors' owner club into each cursor). */
export interface StoredClubState {
  /** Every committed write adds 1; 0 = no item. */
  readonly version: number;
  readonly leaseOwner?: string;
  readonly leaseExpiresAtMs?: number;
  /** Undefined: the item was never committed (a club of the per-source layout not migrated yet, or a new club). */
  readonly cursors?: Cursor[];
  readonly quotaMonth?: string;
  readonly quotaRequests?: number;
  /** The UTC hour (epoch hours) of the club's last lifecycle evaluation (docs/lifecycle.md). */
  readonly lifecycleHour?: number;
  /** What the polls changed since that evaluation (lifecycle-notes.ts); absent: nothing. */
  readonly lifecycleNotes?: LifecycleNotes;
  /**
   * Set by `take` only: the item still held a lease when it was taken (expired, or the taker's own),
   * so the poll that held it stopped without its closing write and its notes may be lost.
   */
  readonly uncleanStop?: boolean;
}

/** One conditional write of the club state. */
export interface ClubWrite {
  readonly clubId: string;
  /** The version written (the version read + 1). */
  readonly version: number;
  /** All the club's cursors, when they changed. */
  readonly cursors?: readonly Cursor[];
  readonly quota?: { readonly month: string; readonly requests: number };
  readonly lifecycleHour?: number;
  /** The notes as they are now (empty: none); written with every write. */
  readonly lifecycleNotes?: LifecycleNotes;
  /**
   * The write's condition: the owner still holds the lease, unexpired at `nowMs`, and the item is
   * still at `expectVersion` (the version the session read or last wrote): a poller whose lease ran
   * out, or was taken over and written since, writes nothing (`release` also drops it). Every write
   * of the item is a session's.
   */
  readonly condition: {
    readonly owner: string;
    readonly release: boolean;
    readonly expectVersion: number;
    readonly nowMs: number;
  };
}

/** What a backend stores: the two adapters implement it, ClubStates holds the rules. */
export interface ClubItemBackend {
  /**
   * Takes the lease if absent, expired (expiresAtMs <= nowMs) or already the owner's, in one
   * conditional write, and returns the state after it (`uncleanStop` when the item still held a
   * lease); 'held' when another owner holds it.
   */
  take(clubId: string, owner: string, expiresAtMs: number, nowMs: number): Promise<StoredClubState | 'held'>;
  /** Drops the owner's lease without writing anything else (a poll that found nothing to do). */
  drop(clubId: string, owner: string): Promise<void>;
  /** One conditional write; false when its condition failed. */
  write(change: ClubWrite): Promise<boolean>;
  /** The stored state (strongly consistent), or undefined when there is no item. */
  read(clubId: string): Promise<StoredClubState | undefined>;
  /** The states of many clubs (eventually consistent: the dispatcher's read). */
  readMany(clubIds: readonly string[]): Promise<Map<string, StoredClubState>>;
  /**
   * The per-source layout (cursor items, lease item, monthly counter items), read for a club whose
   * state item was never committed. Absent: the backend has no previous layout (memory).
   */
  readonly previousLayout?: PreviousLayout;
}

export interface PreviousLayout {
  /** The `CURSOR#<source>` items. */
  cursors(clubId: string): Promise<Cursor[]>;
  /** The `QUOTA#<yyyy-mm>` counter (0 when absent). */
  quota(clubId: string, month: string): Promise<number>;
  /** Takes `LEASE#CLUB` for a day under a marker owner; false when a live poller holds it. */
  claimLease(clubId: string, owner: string, nowMs: number): Promise<boolean>;
}

/** The cursors' attribute: gzipped JSON of the cursors without `clubId`, versions included. */
export function encodeCursors(cursors: readonly Cursor[]): Uint8Array {
  const plain = cursors.map((c) => {
    const { clubId: _clubId, ...rest } = storableCursor(c, c.version);
    return rest;
  });
  return gzipSync(JSON.stringify(plain), { level: 6 });
}

export function decodeCursors(clubId: string, bytes: Uint8Array): Cursor[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(gunzipSync(bytes).toString('utf8'));
  } catch (cause) {
    throw new StoreError(`club ${clubId}: the stored cursors are not readable gzipped JSON`, { cause });
  }
  if (!Array.isArray(parsed)) throw new StoreError(`club ${clubId}: the stored cursors are not a list`);
  return parsed.map((raw: unknown) => {
    const c = raw as Partial<Cursor> | null;
    if (!c || typeof c !== 'object' || typeof c.source !== 'string' || !isSourceName(c.source)) {
      throw new StoreError(`club ${clubId}: a stored cursor has no known source`);
    }
    return {
      ...c,
      clubId,
      source: c.source as SourceName,
      version: Number(c.version ?? 0),
      baselineDone: c.baselineDone === true,
      health: c.health ?? { consecutiveFailures: 0 },
    } as Cursor;
  });
}

/** The month's requests as the state counts them (another month's counter is 0). */
export function quotaOf(state: StoredClubState | undefined, month: string): number {
  return state?.quotaMonth === month ? (state.quotaRequests ?? 0) : 0;
}

/**
 * The item's size as DynamoDB counts it for write units (attribute names plus values; numbers
 * counted as their digits, a close upper bound): for the benchmarks, which bill a write per KB.
 */
export function clubStateItemBytes(clubId: string, state: StoredClubState): number {
  const strings: [string, string | undefined][] = [
    ['pk', `CLUB#${clubId}`],
    ['sk', CLUB_STATE_SK],
    ['lo', state.leaseOwner],
    ['qm', state.quotaMonth],
  ];
  const numbers: [string, number | undefined][] = [
    ['v', state.version],
    ['le', state.leaseExpiresAtMs],
    ['qn', state.quotaRequests],
    ['lh', state.lifecycleHour],
  ];
  let bytes = 0;
  for (const [name, value] of strings)
    if (value !== undefined) bytes += name.length + Buffer.byteLength(value);
  for (const [name, value] of numbers)
    if (value !== undefined) bytes += name.length + String(value).length + 1;
  if (state.cursors) bytes += 1 + encodeCursors(state.cursors).byteLength;
  if (state.lifecycleNotes && !isEmptyNotes(state.lifecycleNotes))
    bytes += 2 + Buffer.byteLength(encodeNotes(state.lifecycleNotes));
  return bytes;
}

/** Cursors in source-name order (how they are stored and listed). */
export function sortCursors(cursors: readonly Cursor[]): Cursor[] {
  return [...cursors].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}
