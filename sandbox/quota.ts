/**
 * Monthly request quotas per club: Basic 1,000,000 and Advanced 5,000,000 requests per calendar
 * month (UTC month of the sandbox clock), times `quotaScale`. Only authenticated data requests that
 * get past the quota check count (so 401s, 429s and injected 5xx do not; 400s do).
 */
import type { PlanName } from './club-profile';

export const PLAN_MONTHLY_REQUESTS: Record<PlanName, number> = { basic: 1_000_000, advanced: 5_000_000 };

export interface RequestCounts {
  /** UTC month of the sandbox clock, yyyy-mm. */
  readonly month: string;
  /** Requests counted against the quota this month. */
  readonly used: number;
  readonly limit: number;
  /** Requests refused with 429 because the quota was spent, this month. */
  readonly rejected: number;
}

export function monthOf(utcMs: number): string {
  return new Date(utcMs).toISOString().slice(0, 7);
}

export class QuotaLedger {
  private readonly used = new Map<string, number>();
  private readonly rejected = new Map<string, number>();

  constructor(private readonly quotaScale: number) {}

  limit(plan: PlanName): number {
    return Math.max(1, Math.round(PLAN_MONTHLY_REQUESTS[plan] * this.quotaScale));
  }

  /** Counts the request and returns true, or returns false (and counts a rejection) when spent. */
  tryConsume(clubId: string, plan: PlanName, nowMs: number): boolean {
    const key = `${clubId}|${monthOf(nowMs)}`;
    const used = this.used.get(key) ?? 0;
    if (used >= this.limit(plan)) {
      this.rejected.set(key, (this.rejected.get(key) ?? 0) + 1);
      return false;
    }
    this.used.set(key, used + 1);
    return true;
  }

  counts(clubId: string, plan: PlanName, nowMs: number): RequestCounts {
    const month = monthOf(nowMs);
    const key = `${clubId}|${month}`;
    return {
      month,
      used: this.used.get(key) ?? 0,
      limit: this.limit(plan),
      rejected: this.rejected.get(key) ?? 0,
    };
  }
}
