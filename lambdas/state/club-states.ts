/**
 * The rules of the club state item (club-state.ts) over either backend: the poll's session (lease
 * taken and state read in one write; cursor and counter changes held, then written with the lease
 * release in one write), the writes made outside a poll (the CLI's resume and backfill: read,
 * change, write conditional on the version and on no poll holding the club), the dispatcher's batched
 * read, and the upgrade from the per-source layout (read while a club's item was never committed).
 */

import { ClubSessionImpl } from './club-session';
import { type ClubItemBackend, quotaOf, type StoredClubState, sortCursors } from './club-state';
import { assertClubId, assertSourceName, MONTH_PATTERN } from './keys';
import {
  type ClubSession,
  type ClubStateStore,
  type ClubStateSummary,
  ConcurrentModificationError,
  type Cursor,
  type CursorStore,
  newCursor,
  type QuotaStore,
  type SourceName,
  StoreError,
} from './store';
import { copyOf, storableCursor } from './stored-values';
import { validateLeaseArgs, validateQuotaRequests } from './validation';

/** Writes outside a poll re-read and retry this many times when the item moved under them. */
const UNLEASED_ATTEMPTS = 4;

export const monthOfMs = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

function assertMonth(month: string): void {
  if (!MONTH_PATTERN.test(month)) throw new StoreError(`month must be yyyy-mm: ${JSON.stringify(month)}`);
}

export class ClubStates implements ClubStateStore, CursorStore, QuotaStore {
  constructor(
    private readonly backend: ClubItemBackend,
    private readonly now: () => number = Date.now,
  ) {}

  async openClub(
    clubId: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<ClubSession | undefined> {
    assertClubId(clubId);
    validateLeaseArgs(owner, ttlMs, nowMs);
    const taken = await this.backend.take(clubId, owner, nowMs + ttlMs, nowMs);
    if (taken === 'held') return undefined;
    let state = taken;
    let migrated = false;
    const previous = this.backend.previousLayout;
    if (state.cursors === undefined && previous) {
      // Never committed: a club of the per-source layout (or a new one). Its old lease is claimed
      // first, so a poller of the previous version still running cannot poll it any more.
      if (!(await previous.claimLease(clubId, owner, nowMs))) {
        await this.backend.drop(clubId, owner);
        return undefined;
      }
      const cursors = await previous.cursors(clubId);
      state = { ...state, cursors };
      migrated = cursors.length > 0;
    }
    // The session's clock is the opener's (`nowMs`, which the lease's expiry is counted from) moved on
    // by the time elapsed since: its lease checks and fenced writes compare like with like.
    const openedAt = this.now();
    return new ClubSessionImpl({
      backend: this.backend,
      clubId,
      owner,
      state,
      dirty: migrated,
      quotaOf: (month) => this.#quota(clubId, state, month),
      now: () => nowMs + (this.now() - openedAt),
    });
  }

  async readClubStates(clubIds: readonly string[], month: string): Promise<Map<string, ClubStateSummary>> {
    assertMonth(month);
    for (const id of clubIds) assertClubId(id);
    const states = await this.backend.readMany(clubIds);
    const out = new Map<string, ClubStateSummary>();
    for (const clubId of clubIds) {
      const state = states.get(clubId);
      const failed = state?.lifecycleNotes?.failed;
      const hour = {
        ...(state?.lifecycleHour === undefined ? {} : { lifecycleHour: state.lifecycleHour }),
        ...(failed ? { lifecycleFailure: failed } : {}),
      };
      if (state?.cursors !== undefined) {
        out.set(clubId, { cursors: state.cursors, quotaUsed: quotaOf(state, month), ...hour });
      } else {
        out.set(clubId, {
          cursors: await this.#cursors(clubId, state),
          quotaUsed: await this.#quota(clubId, state, month),
        });
      }
    }
    return out;
  }

  async getCursor(clubId: string, source: SourceName): Promise<Cursor> {
    assertSourceName(source);
    const cursors = await this.listCursors(clubId);
    return cursors.find((c) => c.source === source) ?? newCursor(clubId, source);
  }

  async listCursors(clubId: string): Promise<Cursor[]> {
    assertClubId(clubId);
    const state = await this.backend.read(clubId);
    return sortCursors(await this.#cursors(clubId, state)).map(copyOf);
  }

  /** Outside a poll: conditional on the cursor's version, the item's version and no live lease. */
  async putCursor(cursor: Cursor): Promise<Cursor> {
    assertSourceName(cursor.source);
    const stored = storableCursor(cursor, cursor.version + 1);
    await this.#writeUnleased(cursor.clubId, (state, cursors) => {
      const current = cursors.find((c) => c.source === cursor.source);
      const matches = cursor.version === 0 ? current === undefined : current?.version === cursor.version;
      if (!matches || leaseLive(state, this.now())) {
        throw new ConcurrentModificationError(cursor.clubId, cursor.source, cursor.version);
      }
      return { cursors: [...cursors.filter((c) => c.source !== cursor.source), stored] };
    });
    return copyOf(stored);
  }

  async getQuotaUsage(clubId: string, month: string): Promise<number> {
    assertClubId(clubId);
    assertMonth(month);
    return this.#quota(clubId, await this.backend.read(clubId), month);
  }

  /** Outside a poll (a poll counts in its session): read, add, write conditional on the version. */
  async addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    assertMonth(month);
    validateQuotaRequests(requests);
    let total = 0;
    await this.#writeUnleased(clubId, async (state) => {
      total = (await this.#quota(clubId, state, month)) + requests;
      return { quota: { month, requests: total } };
    });
    return total;
  }

  async #writeUnleased(
    clubId: string,
    change: (
      state: StoredClubState | undefined,
      cursors: Cursor[],
    ) =>
      | Promise<{ cursors?: Cursor[]; quota?: { month: string; requests: number } }>
      | {
          cursors?: Cursor[];
          quota?: { month: string; requests: number };
        },
  ): Promise<void> {
    assertClubId(clubId);
    for (let attempt = 1; attempt <= UNLEASED_ATTEMPTS; attempt++) {
      const state = await this.backend.read(clubId);
      const cursors = await this.#cursors(clubId, state);
      const next = await change(state, cursors);
      const written = await this.backend.write({
        clubId,
        version: (state?.version ?? 0) + 1,
        // A club never committed gets its (migrated) cursors written with the change.
        cursors: sortCursors(next.cursors ?? cursors),
        ...(next.quota ? { quota: next.quota } : {}),
        condition: { kind: 'unleased', expectVersion: state?.version ?? 0, nowMs: this.now() },
      });
      if (written) return;
    }
    throw new StoreError(`club ${clubId}: its state kept changing under a write; try again`);
  }

  /** The cursors of a state, or of the per-source layout when the item was never committed. */
  async #cursors(clubId: string, state: StoredClubState | undefined): Promise<Cursor[]> {
    if (state?.cursors !== undefined) return state.cursors;
    return this.backend.previousLayout ? this.backend.previousLayout.cursors(clubId) : [];
  }

  /** The month's requests: the item's counter, else (another month, or never counted) the old counter item. */
  async #quota(clubId: string, state: StoredClubState | undefined, month: string): Promise<number> {
    if (state?.quotaMonth === month) return state.quotaRequests ?? 0;
    return this.backend.previousLayout ? this.backend.previousLayout.quota(clubId, month) : 0;
  }
}

function leaseLive(state: StoredClubState | undefined, nowMs: number): boolean {
  return state?.leaseOwner !== undefined && (state.leaseExpiresAtMs ?? 0) > nowMs;
}
