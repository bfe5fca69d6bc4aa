/**
 * A webhook container signs for every endpoint of a fleet: each key it reads is remembered for the
 * logs' redaction (lambdas/common/redact.ts), and with 1,000 endpoints used in turn every one of
 * them must stay remembered (an LRU smaller than the fleet forgot half the keys, and rebuilt its
 * matcher at every line logged).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { forgetKnownSecrets, redactKnownSecrets } from '../../../lambdas/common/redact';
import { rememberKeyEntry } from '../../../lambdas/delivery/signing-keys';
import { generateWebhookSecret } from '../../../lambdas/delivery/webhook-signature';

afterEach(() => forgetKnownSecrets());

describe('the keys of a 1,000-endpoint fleet', () => {
  it('are all redacted after being used in turn, twice over', () => {
    // Prepare: 1,000 endpoints' keys, each with a static header value.
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      keyVersion: 1,
      key: generateWebhookSecret(),
      headers: { 'x-api-key': `sk_live_${String(i).padStart(4, '0')}abcdefghijklmnop` },
    }));
    // Act: a delivery to each, twice (as a fan-out signs them in turn).
    for (let round = 0; round < 2; round++) for (const e of entries) rememberKeyEntry(e);
    // Assess: none of them survives a log line.
    const line = entries.map((e) => `${e.key} ${e.headers['x-api-key']}`).join('\n');
    const redacted = redactKnownSecrets(line);
    for (const e of entries) {
      expect(redacted).not.toContain(e.key);
      expect(redacted).not.toContain(e.headers['x-api-key']);
    }
  });
});
