/** Quarantine entries: the key is built here only (a hash of the raw record). */
import { boundedCopy, safeStringify } from '../../common/bounded-value';
import { logger } from '../../common/logger';
import type { SourceName } from '../../common/source-names';
import type { ClubQuarantine, ClubSeen } from '../../state/state-store';
import type { QuarantinedRecord } from '../../state/store';
import { fingerprint } from './fingerprint';

export interface QuarantineEntry {
  readonly key: string;
  readonly reason: string;
  readonly raw: unknown;
}

/**
 * The quarantine mark of a raw record: one per distinct record, whatever the reason. Built from a
 * cut copy (common/bounded-value.ts), so no record, however deep or large, can make it throw.
 */
export function quarantineKey(raw: unknown): string {
  // Within the limits this is JSON.stringify's text: the keys of records quarantined before match.
  return fingerprint(
    `Q|${raw === undefined ? '' : safeStringify(raw, { maxChars: 64 * 1024, maxDepth: 16 })}`,
  );
}

/** A quarantine entry: the raw record is kept as a cut copy (what the table stores is bounded). */
export function quarantineEntry(raw: unknown, reason: string): QuarantineEntry {
  return {
    key: quarantineKey(raw),
    reason: reason.slice(0, 1000),
    // Strings up to 8 KB whole (a long record number is shown as it came), 32 KB in all.
    raw: boundedCopy(raw, { maxChars: 32 * 1024, maxStringChars: 8 * 1024 }),
  };
}

export function eventErrorReason(err: unknown): string {
  return `event could not be built: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000);
}

/** Quarantined records (and their marks in the seen set) are kept this long. */
const QUARANTINE_TTL_SEC = 30 * 86_400;

/**
 * Quarantines each bad record once (a mark in the seen set), with its reason. Returns how many
 * were quarantined now (records quarantined before are not counted again).
 */
export async function quarantineOnce(
  store: ClubSeen & ClubQuarantine,
  where: { readonly clubId: string; readonly source: SourceName; readonly startMs: number },
  records: readonly QuarantineEntry[],
): Promise<number> {
  if (records.length === 0) return 0;
  const { clubId, source, startMs } = where;
  const unique = new Map(records.map((r) => [r.key, r]));
  const nowSec = Math.floor(startMs / 1000);
  const known = await store.filterSeen(source, [...unique.keys()], nowSec);
  const fresh = [...unique.values()].filter((r) => !known.has(r.key));
  if (fresh.length === 0) return 0;
  const at = new Date(startMs).toISOString();
  const items: QuarantinedRecord[] = fresh.map((r) => ({ key: r.key, reason: r.reason, raw: r.raw, at }));
  const expiresAt = nowSec + QUARANTINE_TTL_SEC;
  await store.putQuarantined(source, items, expiresAt);
  await store.putSeen(
    source,
    items.map((r) => r.key),
    expiresAt,
  );
  logger.warn('records quarantined', {
    clubId,
    source,
    count: fresh.length,
    reasons: [...new Set(fresh.map((r) => r.reason.slice(0, 200)))].slice(0, 5),
  });
  return fresh.length;
}
