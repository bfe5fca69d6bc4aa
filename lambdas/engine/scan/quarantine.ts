/** Quarantine entries: the key is built here only (a hash of the raw record). */
import { fingerprint } from './fingerprint';

export interface QuarantineEntry {
  readonly key: string;
  readonly reason: string;
  readonly raw: unknown;
}

/** The quarantine mark of a raw record: one per distinct record, whatever the reason. */
export function quarantineKey(raw: unknown): string {
  return fingerprint(`Q|${JSON.stringify(raw) ?? ''}`);
}

export function quarantineEntry(raw: unknown, reason: string): QuarantineEntry {
  return { key: quarantineKey(raw), reason, raw };
}

export function eventErrorReason(err: unknown): string {
  return `event could not be built: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000);
}
