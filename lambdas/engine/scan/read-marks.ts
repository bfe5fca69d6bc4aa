/**
 * Read marks: one seen-set entry per record a scan has read, keyed by the scan's start, written
 * before the progress that counts them. A scan that resumes in another invocation (or re-reads
 * after a crash) knows which records it already counted, so rows skipped by drift before it
 * resumed still show up as missing from the count.
 */

import type { SourceName } from '../../common/source-names';
import { DAY_MS } from '../../common/time-units';
import type { ClubSeen } from '../../state/state-store';
import { fingerprint } from './fingerprint';
import type { EngineScan } from './scan-types';

/** How long a scan's read marks are kept: longer than any scan runs. */
export const READ_MARK_TTL_MS = 3 * DAY_MS;

export function readMarkKey(scan: Pick<EngineScan, 'startedAt' | 'mode'>, identity: string): string {
  return fingerprint(`READ|${scan.startedAt}|${scan.mode}|${identity}`);
}

/** Expiry (epoch seconds) of read marks written by a poll that started at `startMs`. */
export function readMarkExpiresAt(startMs: number): number {
  return Math.ceil((startMs + READ_MARK_TTL_MS) / 1000);
}

/** Where a scan's read marks live. */
export interface ReadMarkScope {
  readonly store: ClubSeen;
  readonly clubId: string;
  readonly source: SourceName;
  /** The poll's start (epoch ms): the marks' expiry counts from it. */
  readonly startMs: number;
}

/** Writes a read mark for each identity (before the progress that counts them). */
export async function markRead(
  where: ReadMarkScope,
  scan: Pick<EngineScan, 'startedAt' | 'mode'>,
  identities: readonly string[],
): Promise<void> {
  if (identities.length === 0) return;
  const marks = identities.map((id) => readMarkKey(scan, id));
  await where.store.putSeen(where.source, marks, readMarkExpiresAt(where.startMs));
}

/** The identities an earlier invocation of this scan did not read (count). */
export async function notReadBefore(
  where: ReadMarkScope,
  scan: Pick<EngineScan, 'startedAt' | 'mode'>,
  identities: string[],
): Promise<string[]> {
  if (identities.length === 0) return identities;
  const marks = new Map(identities.map((id) => [readMarkKey(scan, id), id]));
  const nowSec = Math.floor(where.startMs / 1000);
  const read = await where.store.filterSeen(where.source, [...marks.keys()], nowSec);
  return [...marks].filter(([mark]) => !read.has(mark)).map(([, id]) => id);
}
