import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate } from '../../../../lambdas/common/bounded-value';
import { fingerprint, sha256OneShot, sha256ViaHashObject } from '../../../../lambdas/engine/scan/fingerprint';

/**
 * Fingerprints are stored (seen keys, digests, quarantine marks): these are the values the release
 * before the one-shot hash wrote, and every later release must compute the same.
 */
const STORED: ReadonlyArray<readonly [string, string]> = [
  ['R|9007199254745732|Approved', 'xns-1K0ui0dUsA3eTWbmHqdg9k9'],
  ['100151|2026-03-01T04:15:00|Main Entrance', 'TwcAok2dpPO6HQZZBMHnT_gwtGV'],
  ['Zoë|東京|🏋️', 'DH8WXn1ae5dXui_wTJvSw6JJqqx'],
  // A lone surrogate is hashed in its JSON-escaped form.
  ['a\ud800b', 'J0MqhyGSpWUIwyGJUkpb0JaAacy'],
];

describe('fingerprint', () => {
  it.each(STORED)('%j hashes to the stored value', (key, stored) => {
    expect(fingerprint(key)).toBe(stored);
  });

  it('the one-shot hash (where the runtime has it) and the Hash object agree, byte for byte', () => {
    // Node 20.12+ has crypto.hash; the engines field allows older 20s, which take the Hash object.
    expect(sha256OneShot).toBeTypeOf('function');
    for (const [key] of STORED) {
      const text = hasLoneSurrogate(key) ? JSON.stringify(key) : key;
      expect(sha256OneShot?.(text)).toBe(sha256ViaHashObject(text));
    }
  });
});
