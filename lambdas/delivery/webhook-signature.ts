/**
 * Standard Webhooks signing (the specification's "Signature scheme" and "Webhook headers"):
 *
 * - a secret is `whsec_` + base64 of 24 to 64 random bytes; the signing key is the decoded bytes;
 * - the signed content is `<webhook-id>.<webhook-timestamp>.<body>` (the exact bytes sent);
 * - `webhook-signature` is `v1,<base64 HMAC-SHA256>`, one per key, space-separated: during a
 *   rotation the new key and the old one both sign, so a receiver holding either verifies;
 * - `webhook-timestamp` is the attempt's time in whole seconds since the epoch (a retry gets a new
 *   one), `webhook-id` the event's eventId (the same on every attempt, replay and redrive).
 *
 * Keys never leave this module's callers as text: errors name the problem, never the value.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Bytes of a generated key (the spec allows 24..64). */
export const GENERATED_KEY_BYTES = 32;
export const MIN_KEY_BYTES = 24;
export const MAX_KEY_BYTES = 64;
/** What a secret is, in words (for error messages). */
export const WEBHOOK_SECRET_RULE = `whsec_ followed by the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`;

export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export class WebhookSecretError extends Error {
  override readonly name = 'WebhookSecretError';
}

/** A new secret: `whsec_` + base64 of GENERATED_KEY_BYTES random bytes (node:crypto). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(GENERATED_KEY_BYTES).toString('base64')}`;
}

/** The signing key of a `whsec_` secret (also accepted without the prefix). */
export function signingKeyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new WebhookSecretError('a webhook secret is whsec_ followed by standard base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new WebhookSecretError(
      `a webhook secret holds ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes, this one ${key.length}`,
    );
  }
  return key;
}

/** True when `secret` is a valid `whsec_` secret. */
export function isWebhookSecret(secret: string): boolean {
  try {
    signingKeyOf(secret);
    return secret.startsWith(SECRET_PREFIX);
  } catch {
    return false;
  }
}

/** `v1,<base64 HMAC-SHA256 of id.timestamp.body>` for one key. */
export function signatureOf(key: Buffer, webhookId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8').digest();
  return `v1,${mac.toString('base64')}`;
}

/**
 * The three Standard Webhooks headers of one attempt, signed by every key (the current first, then
 * the one being rotated out). Throws on an id with a '.' (the spec forbids it: it would make the
 * signed content ambiguous) or no key.
 */
export function signedHeaders(
  keys: readonly Buffer[],
  webhookId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  if (keys.length === 0) throw new WebhookSecretError('no signing key');
  if (webhookId === '' || webhookId.includes('.') || /\s/.test(webhookId)) {
    throw new WebhookSecretError('a webhook-id must be non-empty, without dots or spaces');
  }
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new WebhookSecretError('webhook-timestamp must be whole seconds since the epoch');
  }
  return {
    [WEBHOOK_HEADERS.id]: webhookId,
    [WEBHOOK_HEADERS.timestamp]: String(timestampSeconds),
    [WEBHOOK_HEADERS.signature]: keys.map((k) => signatureOf(k, webhookId, timestampSeconds, body)).join(' '),
  };
}
