/**
 * Receiving the bridge's webhooks (docs/consumers.md, "Receiving webhooks"): the payload's type
 * and `verifyWebhook`, which checks a request as Standard Webhooks says (the HMAC-SHA256 of
 * `id.timestamp.body` under the `whsec_` secret, any of the space-separated `v1,` signatures, the
 * timestamp within a tolerance) and returns the payload with its `data` parsed by the catalog.
 * Web Crypto only (globalThis.crypto.subtle): no Node built-in, so it runs in Node 20+, Deno, Bun,
 * Cloudflare Workers and browsers. Use the raw body, exactly as received.
 */
import type { DetailType, EventDetail } from '../lambdas/events/catalog';
import { parseDetail } from './consumer-parse';

/** The body of every webhook: `{ type, timestamp, data }` (Standard Webhooks' payload structure). */
export type WebhookPayload<T extends DetailType = DetailType> = {
  [K in T]: { readonly type: K; readonly timestamp: string; readonly data: EventDetail<K> };
}[T];

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** Seconds a timestamp may be off the clock (replays older than this are refused). @default 300 */
  readonly toleranceSeconds?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

type HeaderBag =
  | Readonly<Record<string, string | string[] | undefined>>
  | { get(name: string): string | null };

interface Subtle {
  importKey(
    format: 'raw',
    key: Uint8Array,
    algorithm: { name: 'HMAC'; hash: 'SHA-256' },
    extractable: false,
    usages: ['verify'],
  ): Promise<unknown>;
  verify(algorithm: 'HMAC', key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const bag = headers as Readonly<Record<string, string | string[] | undefined>>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64Bytes(text: string): Uint8Array | undefined {
  const clean = text.replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(clean)) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of clean) {
    value = (value << 6) | B64.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Uint8Array.from(out);
}

/**
 * Verifies a webhook request and returns its payload, typed and parsed by the catalog (an unknown
 * field dropped, a wrong one an EventParseError). Throws WebhookVerificationError when a header is
 * missing, the timestamp is outside the tolerance, or no signature matches.
 */
export async function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  body: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp is not within the tolerance');
  }
  const key = base64Bytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (!key || key.length < 24) throw new WebhookVerificationError('the secret is not a whsec_ secret');
  const subtle = (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle;
  if (!subtle) throw new WebhookVerificationError('Web Crypto (crypto.subtle) is not available here');
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = utf8(`${id}.${timestamp}.${body}`);
  for (const versioned of signatures.split(' ')) {
    const [version, signature] = versioned.split(',');
    const bytes = version === 'v1' && signature ? base64Bytes(signature) : undefined;
    if (bytes && (await subtle.verify('HMAC', cryptoKey, bytes, signed))) {
      const payload = JSON.parse(body) as { type: DetailType; timestamp: string; data: unknown };
      return {
        type: payload.type,
        timestamp: payload.timestamp,
        data: parseDetail(payload.type, payload.data),
      } as WebhookPayload;
    }
  }
  throw new WebhookVerificationError('no signature matches');
}
