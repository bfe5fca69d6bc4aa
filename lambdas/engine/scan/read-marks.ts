/**
 * Read marks: one seen-set entry per record a scan has read, keyed by the scan's start, written
 * before the progress that counts them. A scan that resumes in another invocation (or re-reads
 * after a crash) knows which records it already counted, so rows skipped by drift before it
 * resumed still show up as missing from the count.
 */
import { fingerprint } from './fingerprint';
import type { EngineScan } from './scan-types';

/** How long a scan's read marks are kept: longer than any scan runs. */
export const READ_MARK_TTL_MS = 3 * 86_400_000;

export function readMarkKey(scan: Pick<EngineScan, 'startedAt' | 'mode'>, identity: string): string {
  return fingerprint(`READ|${scan.startedAt}|${scan.mode}|${identity}`);
}

/** Expiry (epoch seconds) of read marks written by a poll that started at `startMs`. */
export function readMarkExpiresAt(startMs: number): number {
  return Math.ceil((startMs + READ_MARK_TTL_MS) / 1000);
}
