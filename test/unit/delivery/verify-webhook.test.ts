/**
 * `verifyWebhook` of @gym-bridge/events accepts what the bridge signs and what `standardwebhooks`
 * signs (both keys of a rotation), returns the payload with `data` parsed by the catalog, and
 * refuses a wrong signature, a stale timestamp and missing headers.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../../event-tooling/consumer';
import { exampleEvents } from '../../../event-tooling/examples';
import { webhookBody } from '../../../lambdas/delivery/delivery-message';
import {
  generateWebhookSecret,
  signedHeaders,
  signingKeyOf,
} from '../../../lambdas/delivery/webhook-signature';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';

const event = exampleEvents()[DETAIL_TYPES.MemberStatusChanged];
const body = webhookBody({
  type: event.detailType,
  ts: event.detail.occurredAt,
  data: event.detail as unknown as Record<string, unknown>,
});
const ts = () => Math.floor(Date.now() / 1000);

describe('verifyWebhook', () => {
  it('verifies the bridge signature (either key of a rotation) and returns the typed payload', async () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signedHeaders(
      [signingKeyOf(current), signingKeyOf(previous)],
      event.detail.eventId,
      ts(),
      body,
    );
    for (const secret of [current, previous]) {
      const payload = await verifyWebhook(secret, headers, body);
      expect(payload.type).toBe(DETAIL_TYPES.MemberStatusChanged);
      expect(payload.data.eventId).toBe(event.detail.eventId);
    }
  });

  it('verifies what standardwebhooks signs, and a fetch Headers object', async () => {
    const secret = generateWebhookSecret();
    // One instant for both: signed at one second and stamped the next would not match.
    const at = ts();
    const signature = new Webhook(secret).sign('msg1', new Date(at * 1000), body);
    const headers = new Headers({
      'webhook-id': 'msg1',
      'webhook-timestamp': String(at),
      'webhook-signature': signature,
    });
    await expect(verifyWebhook(secret, headers, body)).resolves.toMatchObject({ type: event.detailType });
  });

  it('refuses another secret, a changed body, an old timestamp, missing headers', async () => {
    const secret = generateWebhookSecret();
    const headers = signedHeaders([signingKeyOf(secret)], 'id1', ts(), body);
    await expect(verifyWebhook(generateWebhookSecret(), headers, body)).rejects.toThrow(
      WebhookVerificationError,
    );
    await expect(verifyWebhook(secret, headers, `${body} `)).rejects.toThrow(WebhookVerificationError);
    const old = signedHeaders([signingKeyOf(secret)], 'id1', ts() - 3600, body);
    await expect(verifyWebhook(secret, old, body)).rejects.toThrow(/tolerance/);
    await expect(verifyWebhook(secret, {}, body)).rejects.toThrow(/missing/);
  });
});
