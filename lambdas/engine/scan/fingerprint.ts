import { createHash } from 'node:crypto';
import { hasLoneSurrogate } from '../../common/bounded-value';

/**
 * Seen keys and quarantine marks are stored hashed: fixed size, no personal data in table keys.
 * A key that is not well-formed UTF-16 (a lone surrogate from the upstream's JSON) is hashed in its
 * JSON-escaped form: UTF-8 would turn every lone surrogate into the same U+FFFD, and two records
 * would share a fingerprint. Well-formed keys hash as they always did.
 */
export function fingerprint(key: string): string {
  const text = hasLoneSurrogate(key) ? JSON.stringify(key) : key;
  return createHash('sha256').update(text).digest('base64url').slice(0, 27);
}
