/**
 * Standard Webhooks signing, checked against the official `standardwebhooks` package: its signer
 * gives the same header, its verifier accepts ours (both keys during a rotation), and secrets are
 * `whsec_` + base64 of 24..64 bytes.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  isWebhookSecret,
  signedHeaders,
  signingKeyOf,
  WebhookSecretError,
} from '../../../lambdas/delivery/webhook-signature';

describe('webhook signing', () => {
  it('signs id.timestamp.body exactly as standardwebhooks does', () => {
    const secret = generateWebhookSecret();
    const body = '{"type":"Member Joined","timestamp":"2026-01-01T00:00:00.000Z","data":{"é":1}}';
    const ts = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([signingKeyOf(secret)], 'a1b2c3d4e5f60718293a4b5c6d7e8f90', ts, body);
    expect(headers['webhook-signature']).toBe(
      new Webhook(secret).sign('a1b2c3d4e5f60718293a4b5c6d7e8f90', new Date(ts * 1000), body),
    );
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('during a rotation signs with both keys: a receiver holding either verifies', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = '{"a":1}';
    const headers = signedHeaders(
      [signingKeyOf(newSecret), signingKeyOf(oldSecret)],
      'abc',
      Math.floor(Date.now() / 1000),
      body,
    );
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('secrets: whsec_ and 24..64 bytes; generated ones are 32', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(signingKeyOf(secret)).toHaveLength(32);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(23).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(65).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBe(true);
    expect(isWebhookSecret('whsec_not base64!')).toBe(false);
  });

  it('refuses an id with a dot (ambiguous signed content) and a key-less signature', () => {
    const key = signingKeyOf(generateWebhookSecret());
    expect(() => signedHeaders([key], 'a.b', 1, '{}')).toThrow(WebhookSecretError);
    expect(() => signedHeaders([], 'ab', 1, '{}')).toThrow(WebhookSecretError);
  });
});
