import * as crypto from 'node:crypto';
import { hasLoneSurrogate } from '../../common/bounded-value';

/** SHA-256 of a string's UTF-8 bytes, base64url. */
type Sha256 = (text: string) => string;

/** Through a Hash object: every Node version. */
export const sha256ViaHashObject: Sha256 = (text) =>
  crypto.createHash('sha256').update(text).digest('base64url');

// `crypto.hash` (Node 20.12+, 21.7+) gives the same digest without building a Hash object (about
// 3x less CPU a key); looked up on the namespace, so an older Node 20 still loads this module.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

/** Through the one-shot `crypto.hash` where the runtime has it; undefined where it does not. */
export const sha256OneShot: Sha256 | undefined =
  typeof oneShot === 'function' ? (text) => oneShot('sha256', text, 'base64url') : undefined;

const sha256: Sha256 = sha256OneShot ?? sha256ViaHashObject;

/**
 * Seen keys and quarantine marks are stored hashed: fixed size, no personal data in table keys.
 * A key that is not well-formed UTF-16 (a lone surrogate from the upstream's JSON) is hashed in its
 * JSON-escaped form: UTF-8 would turn every lone surrogate into the same U+FFFD, and two records
 * would share a fingerprint. Well-formed keys hash as they always did.
 */
export function fingerprint(key: string): string {
  const text = hasLoneSurrogate(key) ? JSON.stringify(key) : key;
  return sha256(text).slice(0, 27);
}
