/** LeaseStore in process memory: taken if absent, expired or already ours; released only by its owner. */
import { leaseKey } from '../keys';
import type { LeaseStore } from '../store';
import { validateLeaseArgs } from '../validation';
import { flatKey } from './partitions';

interface Lease {
  owner: string;
  expiresAtMs: number;
}

export class MemoryLeaseStore implements LeaseStore {
  private readonly items = new Map<string, Lease>();

  async acquireLease(
    clubId: string,
    source: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<boolean> {
    validateLeaseArgs(owner, ttlMs, nowMs);
    const id = flatKey(leaseKey(clubId, source));
    const current = this.items.get(id);
    if (current && current.expiresAtMs > nowMs && current.owner !== owner) return false;
    this.items.set(id, { owner, expiresAtMs: nowMs + ttlMs });
    return true;
  }

  async releaseLease(clubId: string, source: string, owner: string): Promise<void> {
    const id = flatKey(leaseKey(clubId, source));
    if (this.items.get(id)?.owner === owner) this.items.delete(id);
  }
}
