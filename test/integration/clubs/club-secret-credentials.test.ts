/**
 * Club credentials read from Secrets Manager that cannot go into an HTTP header (a trailing newline,
 * a control character): the poll handler, with the real SDK client against the local Secrets
 * Manager, fails that club's poll with a config error naming the club and the field, sends nothing
 * to the API, drops the message (retrying cannot help) and never shows the value.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClubRecord,
  ClubSecretError,
  MemoryClubRegistry,
  SecretsManagerClubSecrets,
} from '../../../lambdas/clubs';
import { createMetrics } from '../../../lambdas/common/metrics';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import { createPollHandler } from '../../../lambdas/handlers/poll-handler';
import { MemoryStateStore } from '../../../lambdas/state';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';
import { captureLogs, type LogCapture } from '../../support/log-capture';

const BAD_KEY = 'key-Qm9vT0pZ7x\n';
const BAD_PASSWORD = 'pw-Hx83\u0000Lq2';

const clubRecord = (clubId: string, secretName: string): ClubRecord => ({
  clubId,
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Europe/London',
  plan: 'basic',
  enabled: true,
  sources: ['visits'],
  secretName,
});

const sqsRecord = (messageId: string, clubId: string): SQSRecord =>
  ({
    messageId,
    body: JSON.stringify({ clubId, sources: ['visits'], dispatchedAt: new Date().toISOString() }),
    receiptHandle: messageId,
    attributes: {},
    messageAttributes: {},
  }) as unknown as SQSRecord;
const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

describe('club credentials from Secrets Manager that cannot be sent', () => {
  let sm: LocalSecretsManager;
  let client: SecretsManagerClient;
  let logs: LogCapture | undefined;

  beforeAll(async () => {
    sm = await startLocalSecretsManager();
    client = new SecretsManagerClient({
      endpoint: sm.endpoint,
      region: sm.region,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  });
  afterEach(() => {
    logs?.stop();
    logs = undefined;
  });
  afterAll(async () => {
    client.destroy();
    await sm.close();
  });

  it('fails the club with a config error naming the club and the field, sends nothing, never shows the value', async () => {
    // Prepare: a club secret whose API key ends with a newline, a shared secret whose password holds
    // a NUL, and a good club beside them (its API answers 503).
    sm.setSecret(
      'gym-bridge/clubs/club-nl',
      JSON.stringify({ username: 'integrator', password: 'pw-good', apiKey: BAD_KEY }),
    );
    sm.setSecret(
      'gym-bridge/clubs/chain',
      JSON.stringify({ username: 'chain', password: BAD_PASSWORD, apiKeys: { 'club-s': 'key-s' } }),
    );
    sm.setSecret(
      'gym-bridge/clubs/club-ok',
      JSON.stringify({ username: 'integrator', password: 'pw-good', apiKey: 'key-ok' }),
    );
    const requests: { url: string; headers: string }[] = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      requests.push({ url: String(input), headers: JSON.stringify(init?.headers ?? {}) });
      return new Response('{"Message":"down"}', {
        status: 503,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    const handler = createPollHandler({
      registry: new MemoryClubRegistry([
        clubRecord('club-nl', 'gym-bridge/clubs/club-nl'),
        clubRecord('club-s', 'gym-bridge/clubs/chain'),
        clubRecord('club-ok', 'gym-bridge/clubs/club-ok'),
      ]),
      secrets: new SecretsManagerClubSecrets({ client }),
      store: new MemoryStateStore(),
      sink: new MemorySink(),
      clients: new GymApiClientFactory({ fetch, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 } }),
      metrics: createMetrics({ serviceName: 'test' }),
      piiPolicyDefault: 'minimal',
      secretPrefix: 'gym-bridge/clubs/',
    });
    const event: SQSEvent = {
      Records: [sqsRecord('m-nl', 'club-nl'), sqsRecord('m-s', 'club-s'), sqsRecord('m-ok', 'club-ok')],
    };
    // Act
    logs = captureLogs();
    const response = await handler(event, context);
    const lines = [...logs.lines];
    logs.stop();
    logs = undefined;
    // Assess: the two bad clubs are dropped (a retry cannot fix a secret), the good one is retried.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-ok' }]);
    const dropped = lines.filter((l) => l.message === 'club cannot be polled: message dropped');
    expect(dropped.map((l) => l.error)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^club 'club-nl' cannot be polled with secret 'gym-bridge\/clubs\/club-nl': apiKey ends with a newline \(.*echo.*\).*clubs add/,
        ),
        expect.stringMatching(
          /^club 'club-s' cannot be polled with secret 'gym-bridge\/clubs\/chain': password contains a control character \(NUL\) inside it/,
        ),
      ]),
    );
    expect(dropped).toHaveLength(2);
    // Only club-ok reached the API (its token request, with its login); nothing with a bad value.
    const okLogin = Buffer.from('integrator:pw-good').toString('base64');
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r.headers.includes(okLogin) || r.headers.includes('key-ok')).toBe(true);
    const logged = JSON.stringify(lines);
    for (const secret of ['key-Qm9vT0pZ7x', 'pw-Hx83', 'Lq2']) expect(logged).not.toContain(secret);
  });

  it('SecretsManagerClubSecrets refuses the value as a permanent ClubSecretError, whichever form holds it', async () => {
    // Prepare
    sm.setSecret(
      'gym-bridge/clubs/colon',
      JSON.stringify({ username: 'chain:1', password: 'pw', apiKeys: { a: 'key-a' } }),
    );
    sm.setSecret(
      'gym-bridge/clubs/spaced',
      JSON.stringify({ username: 'integrator', password: 'pw', apiKey: 'key with-space' }),
    );
    const secrets = new SecretsManagerClubSecrets({ client });
    // Act
    const colon = (await secrets
      .credentials('gym-bridge/clubs/colon', 'a')
      .catch((e: unknown) => e)) as Error;
    const spaced = (await secrets
      .credentials('gym-bridge/clubs/spaced', 'b')
      .catch((e: unknown) => e)) as ClubSecretError;
    // Assess
    expect(colon).toBeInstanceOf(ClubSecretError);
    expect((colon as ClubSecretError).retryable).toBe(false);
    expect(colon.message).toContain(
      "club 'a' cannot be polled with secret 'gym-bridge/clubs/colon': username contains ':'",
    );
    expect(colon.message).not.toContain('chain:1');
    expect(spaced.retryable).toBe(false);
    expect(spaced.message).toContain('apiKey contains a space inside it');
    expect(spaced.message).not.toContain('key with');
  });
});
