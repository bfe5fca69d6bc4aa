import { createHash } from 'node:crypto';

/** Seen keys and quarantine marks are stored hashed: fixed size, no personal data in table keys. */
export function fingerprint(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 27);
}
