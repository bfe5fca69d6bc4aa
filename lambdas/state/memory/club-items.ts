/**
 * The club state item in process memory, with the DynamoDB backend's conditions (each check-and-
 * write is synchronous, so atomic for concurrent callers in one process). The cursors are kept
 * encoded as they would be stored, so a size or shape the codec refuses fails here too.
 */
import {
  type ClubItemBackend,
  type ClubWrite,
  decodeCursors,
  encodeCursors,
  type StoredClubState,
} from '../club-state';
import { isEmptyNotes, type LifecycleNotes } from '../lifecycle-notes';

interface MemoryItem {
  version: number;
  leaseOwner?: string;
  leaseExpiresAtMs?: number;
  cursors?: Uint8Array;
  quotaMonth?: string;
  quotaRequests?: number;
  lifecycleHour?: number;
  lifecycleNotes?: LifecycleNotes;
}

export class MemoryClubItems implements ClubItemBackend {
  private readonly items = new Map<string, MemoryItem>();

  async take(clubId: string, owner: string, expiresAtMs: number, nowMs: number) {
    const item = this.items.get(clubId);
    if (item && !leaseFree(item, owner, nowMs)) return 'held' as const;
    const next: MemoryItem = {
      ...(item ?? { version: 0 }),
      leaseOwner: owner,
      leaseExpiresAtMs: expiresAtMs,
    };
    this.items.set(clubId, next);
    return { ...stateOf(clubId, next), ...(item?.leaseOwner === undefined ? {} : { uncleanStop: true }) };
  }

  async drop(clubId: string, owner: string): Promise<void> {
    const item = this.items.get(clubId);
    if (item?.leaseOwner !== owner) return;
    const { leaseOwner: _o, leaseExpiresAtMs: _e, ...rest } = item;
    this.items.set(clubId, rest);
  }

  async write(change: ClubWrite): Promise<boolean> {
    const item = this.items.get(change.clubId);
    const { condition } = change;
    if (item?.leaseOwner !== condition.owner) return false;
    if (!(item.leaseExpiresAtMs !== undefined && item.leaseExpiresAtMs > condition.nowMs)) return false;
    if (item.version !== condition.expectVersion) return false;
    const next: MemoryItem = { ...(item ?? { version: 0 }), version: change.version };
    if (change.cursors) next.cursors = encodeCursors(change.cursors);
    if (change.quota) {
      next.quotaMonth = change.quota.month;
      next.quotaRequests = change.quota.requests;
    }
    if (change.lifecycleHour !== undefined) next.lifecycleHour = change.lifecycleHour;
    if (change.lifecycleNotes !== undefined) {
      if (isEmptyNotes(change.lifecycleNotes)) delete next.lifecycleNotes;
      else next.lifecycleNotes = change.lifecycleNotes;
    }
    if (condition.release) {
      delete next.leaseOwner;
      delete next.leaseExpiresAtMs;
    }
    this.items.set(change.clubId, next);
    return true;
  }

  async read(clubId: string): Promise<StoredClubState | undefined> {
    const item = this.items.get(clubId);
    return item ? stateOf(clubId, item) : undefined;
  }

  async readMany(clubIds: readonly string[]): Promise<Map<string, StoredClubState>> {
    const out = new Map<string, StoredClubState>();
    for (const clubId of clubIds) {
      const item = this.items.get(clubId);
      if (item) out.set(clubId, stateOf(clubId, item));
    }
    return out;
  }
}

function leaseFree(item: MemoryItem, owner: string, nowMs: number): boolean {
  return item.leaseExpiresAtMs === undefined || item.leaseExpiresAtMs <= nowMs || item.leaseOwner === owner;
}

function stateOf(clubId: string, item: MemoryItem): StoredClubState {
  return {
    version: item.version,
    ...(item.leaseOwner === undefined ? {} : { leaseOwner: item.leaseOwner }),
    ...(item.leaseExpiresAtMs === undefined ? {} : { leaseExpiresAtMs: item.leaseExpiresAtMs }),
    ...(item.cursors ? { cursors: decodeCursors(clubId, item.cursors) } : {}),
    ...(item.quotaMonth === undefined ? {} : { quotaMonth: item.quotaMonth }),
    ...(item.quotaRequests === undefined ? {} : { quotaRequests: item.quotaRequests }),
    ...(item.lifecycleHour === undefined ? {} : { lifecycleHour: item.lifecycleHour }),
    ...(item.lifecycleNotes === undefined ? {} : { lifecycleNotes: item.lifecycleNotes }),
  };
}
