/** The seen digest of an append source: one opaque item per club and source (docs/state.md, "Seen digests"). */
import type { SourceName } from '../common/source-names';

export interface SeenDigestStore {
  /**
   * The source's seen digest (engine/scan/seen-digest.ts: per-hour and per-day counts and XORs of
   * the seen fingerprints a scan vouched for), undefined when none was put or it expired. Opaque
   * bytes here. Eventually consistent: a stale digest only vouches for fewer fingerprints.
   */
  getSeenDigest(clubId: string, source: SourceName, nowSec: number): Promise<Uint8Array | undefined>;
  /** Replaces the source's seen digest (one PutItem, at most MAX_SEEN_DIGEST_BYTES). */
  putSeenDigest(clubId: string, source: SourceName, digest: Uint8Array, expiresAtSec: number): Promise<void>;
}
