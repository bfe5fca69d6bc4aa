/** QuotaStore in process memory: one counter per (club, month). */
import { quotaKey } from '../keys';
import type { QuotaStore } from '../store';
import { validateQuotaRequests } from '../validation';
import { flatKey } from './partitions';

export class MemoryQuotaStore implements QuotaStore {
  private readonly items = new Map<string, number>();

  async addQuotaUsage(clubId: string, month: string, requests: number): Promise<number> {
    const id = flatKey(quotaKey(clubId, month));
    validateQuotaRequests(requests);
    const total = (this.items.get(id) ?? 0) + requests;
    this.items.set(id, total);
    return total;
  }

  async getQuotaUsage(clubId: string, month: string): Promise<number> {
    return this.items.get(flatKey(quotaKey(clubId, month))) ?? 0;
  }
}
