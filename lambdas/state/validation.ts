/**
 * Argument checks and derived values shared by both adapters, so they accept and reject the same.
 */
import { assertSeenAt, MONTH_PATTERN } from './keys';
import { StoreError } from './store';

export function validateLeaseArgs(owner: string, ttlMs: number, nowMs: number): void {
  if (typeof owner !== 'string' || owner.length === 0)
    throw new StoreError('lease owner must be a non-empty string');
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new StoreError(`lease ttlMs must be positive, got ${ttlMs}`);
  if (!Number.isFinite(nowMs)) throw new StoreError(`lease nowMs must be a finite number, got ${nowMs}`);
}

export function validateQuotaRequests(requests: number): void {
  if (!Number.isSafeInteger(requests) || requests < 0) {
    throw new StoreError(`quota requests must be a non-negative integer, got ${requests}`);
  }
}

/** Quota counters are kept 13 months from the start of their month (a year of history), then expire. */
export function quotaExpiresAtSec(month: string): number {
  if (!MONTH_PATTERN.test(month)) throw new StoreError(`month must be yyyy-mm: ${JSON.stringify(month)}`);
  const [year, mm] = month.split('-').map(Number) as [number, number];
  return Date.UTC(year, mm - 1 + 13, 1) / 1000;
}

/**
 * The range of a time-ordered seen read: `fromAt` and `toAt` in the fixed `at` format, `nowSec` a
 * number. True if the range can hold entries (`toAt` absent or after `fromAt`), false if it is empty.
 */
export function validateSeenRange(fromAt: string, toAt: string | undefined, nowSec: number): boolean {
  assertSeenAt('fromAt', fromAt);
  if (toAt !== undefined) assertSeenAt('toAt', toAt);
  if (typeof nowSec !== 'number' || Number.isNaN(nowSec)) throw new StoreError('nowSec must be a number');
  return toAt === undefined || toAt > fromAt;
}
