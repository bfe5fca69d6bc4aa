/**
 * Credentials where they must not be: echoed by the upstream in records (any form: as is, Basic,
 * URL-encoded, the token), held in an API key or token HTTP headers cannot carry, quoted by a
 * transport error. Injected fetch, no network.
 */
import { describe, expect, it } from 'vitest';
import { AuthError, InvalidResponseError, UnavailableError } from '../../../lambdas/gym-api/errors';
import { json } from './fake-upstream';
import { API_KEY, harness, PASSWORD, rejection, USER } from './hostile-harness';

describe('credentials the upstream echoes', () => {
  it('are replaced in every record string (values and keys), in any form, before anyone reads them', async () => {
    // Prepare: the key as is, the Basic value without its prefix, the URL-encoded password, the token
    const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    const h = harness(
      () =>
        json({
          data: [
            {
              MemberNumber: 'M1',
              VisitDateTime: '2025-03-01T06:00:00',
              Door: `key=${API_KEY}`,
              ScanSource: `auth ${basic}`,
              Note: { deep: [`p=${encodeURIComponent(PASSWORD)}`, 'tok-secret-token-1'] },
              [`x-${API_KEY}`]: 'key in a key',
            },
          ],
        }),
      {},
      'tok-secret-token-1',
    );
    // Act
    const result = await h.client.fetchAll('visits');
    // Assess
    const text = JSON.stringify(result.items);
    for (const secret of [API_KEY, basic, PASSWORD, encodeURIComponent(PASSWORD), 'tok-secret-token-1']) {
      expect(text).not.toContain(secret);
    }
    expect(result.items[0]!.Door).toBe('key=[redacted]');
    expect(text).toContain('x-[redacted]');
  });
});

describe('values HTTP headers cannot carry', () => {
  it('an API key with a control character is an AuthError naming the key, never quoting it', async () => {
    const key = 'abc\ndef-secret';
    const h = harness(() => json({ data: [] }), { apiKey: key });
    const err = await rejection(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ reason: 'apiKey' });
    expect((err as Error).message).toMatch(/x-api-key header/);
    expect((err as Error).message).not.toContain('def-secret');
    expect(h.dataCalls()).toHaveLength(0);
  });

  it('a token with a control character is an InvalidResponseError, never quoted', async () => {
    const h = harness(() => json({ data: [] }), {}, 'tok\u0007en-secret-value');
    const err = await rejection(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect((err as Error).message).toMatch(/AccessToken holds characters/);
    expect((err as Error).message).not.toContain('secret-value');
  });

  it('a transport error that quotes what was sent is redacted', async () => {
    const h = harness(() => {
      throw new TypeError('fetch failed', {
        cause: { code: 'ERR_X', message: `bad header x-api-key: ${API_KEY}` },
      });
    });
    const err = await rejection(h.client.fetchAll('visits'));
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).not.toContain(API_KEY);
    expect((err as Error).message).toMatch(/redacted/);
  });
});
