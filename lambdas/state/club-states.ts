/**
 * The rules of the club state item (club-state.ts) over either backend: the poll's session (lease
 * taken and state read in one write; cursor and counter changes held, then written with the lease
 * release in one write), the reads without a lease (the dispatcher's batched read, a club's view),
 * and the upgrade from the per-source layout (read while a club's item was never committed). Every
 * write of the item is a session's: the CLI's too (`clubs resume` opens one, as a poll does).
 */

import { ClubSessionImpl } from './club-session';
import { type ClubItemBackend, quotaOf, type StoredClubState, sortCursors } from './club-state';
import { assertClubId, MONTH_PATTERN } from './keys';
import {
  type ClubStateSession,
  type ClubStateStore,
  type ClubStateSummary,
  type Cursor,
  StoreError,
} from './store';
import { copyOf } from './stored-values';
import { validateLeaseArgs } from './validation';

function assertMonth(month: string): void {
  if (!MONTH_PATTERN.test(month)) throw new StoreError(`month must be yyyy-mm: ${JSON.stringify(month)}`);
}

export class ClubStates implements ClubStateStore {
  constructor(
    private readonly backend: ClubItemBackend,
    private readonly now: () => number = Date.now,
  ) {}

  async openClub(
    clubId: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<ClubStateSession | undefined> {
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

  async readCursors(clubId: string): Promise<Cursor[]> {
    assertClubId(clubId);
    const state = await this.backend.read(clubId);
    return sortCursors(await this.#cursors(clubId, state)).map(copyOf);
  }

  async readQuotaUsage(clubId: string, month: string): Promise<number> {
    assertClubId(clubId);
    assertMonth(month);
    return this.#quota(clubId, await this.backend.read(clubId), month);
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
