/**
 * Tokens and credentials against the sandbox over a real socket: one token for many calls, one
 * shared refresh for concurrent callers, re-auth after expiry, and which credential a 401 blames.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, OPERATION_NAMES, type RequestEvent, TokenProvider } from '../../../lambdas/gym-api';
import type { Sandbox } from '../../../sandbox';
import { recordingClient, rejection, resetFaults, startTestSandbox } from './sandbox-harness';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ clubs: 2, members: 60 });
});
afterEach(() => resetFaults(sandbox));
afterAll(async () => {
  await sandbox.close();
});

describe('token caching', () => {
  it('one token request serves every data call, and every data call is counted', async () => {
    // Prepare
    const { client, tokenEvents, dataEvents } = recordingClient(sandbox);
    const clubId = sandbox.clubs[0]!.clubId;
    const usedBefore = sandbox.requestCounts(clubId).used;

    // Act
    let pages = 0;
    for (const op of OPERATION_NAMES) pages += (await client.fetchAll(op, {}, { pageSize: 100 })).pageCount;

    // Assess
    expect(tokenEvents()).toHaveLength(1);
    expect(tokenEvents()[0]).toMatchObject({ status: 200, attempt: 1 });
    expect(dataEvents()).toHaveLength(pages);
    expect(dataEvents().every((e) => e.status === 200 && e.error === undefined)).toBe(true);
    // The hook agrees with the upstream's own quota ledger.
    expect(sandbox.requestCounts(clubId).used - usedBefore).toBe(pages);
  });

  it('concurrent callers of two clubs share one token refresh', async () => {
    const tokenRequests: RequestEvent[] = [];
    const tokens = new TokenProvider({
      baseUrl: sandbox.url,
      ...sandbox.integrator,
      onRequest: (e) => tokenRequests.push(e),
    });
    const clubs = [0, 1].map((club) => recordingClient(sandbox, { club, tokens }));
    const calls = clubs.flatMap(({ client }) => OPERATION_NAMES.map((op) => client.fetchAll(op)));
    const results = await Promise.all(calls);
    expect(results.every((r) => r.pageCount >= 1)).toBe(true);
    expect(tokenRequests).toHaveLength(1);
    // Reported once in total, to the one client whose call started the refresh.
    expect(clubs.flatMap((c) => c.tokenEvents())).toHaveLength(1);
  });

  it('an expired token (sandbox clock moved past its lifetime) leads to exactly one re-auth', async () => {
    sandbox.faults.tokenLifetimeSec = 60;
    const { client, tokenEvents, dataEvents } = recordingClient(sandbox);
    await client.fetchAll('debtCollection');
    sandbox.advance(5 * 60_000); // the sandbox now rejects the cached token; the client cannot know

    const result = await client.fetchAll('debtCollection');

    expect(result.pageCount).toBe(1);
    expect(dataEvents().map((e) => e.status)).toEqual([200, 401, 200]);
    expect(tokenEvents()).toHaveLength(2);
  });
});

describe('rejected credentials', () => {
  it('a wrong API key is AuthError(apiKey), with no pointless token refresh', async () => {
    const { client, tokenEvents, dataEvents } = recordingClient(sandbox, { apiKey: 'not-a-club-key-0000' });
    const err = await rejection(client.fetchAll('visits'));
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ reason: 'apiKey', status: 401, operation: 'visits', retryable: false });
    expect((err as Error).message).not.toContain('not-a-club-key-0000');
    expect(tokenEvents()).toHaveLength(1);
    expect(dataEvents()).toHaveLength(1);
  });

  it('a wrong integrator password is AuthError(credentials) and no data request is sent', async () => {
    const { client, tokenEvents, dataEvents } = recordingClient(sandbox, {
      tokenOptions: { password: 'wrong-password-123' },
    });
    const err = await rejection(client.fetchAll('members'));
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ reason: 'credentials', status: 401, operation: 'token' });
    expect((err as Error).message).not.toContain('wrong-password-123');
    expect((err as Error).message).not.toContain(sandbox.integrator.password);
    expect(tokenEvents()).toEqual([
      expect.objectContaining({ status: 401, error: expect.stringMatching(/^AuthError/) }),
    ]);
    expect(dataEvents()).toHaveLength(0);
  });

  it('a revoked token mid-scan is replaced once; a key rejected after that is AuthError(apiKey)', async () => {
    // The sandbox answers the next two data requests 401 "Invalid or expired token".
    sandbox.failNext(2, 401, {
      body: JSON.stringify({ Message: 'Invalid or expired token' }),
      pathPrefix: '/members',
    });
    const { client, tokenEvents, dataEvents } = recordingClient(sandbox);
    const err = await rejection(client.fetchAll('members'));
    expect(err).toMatchObject({ name: 'AuthError', reason: 'token' });
    expect(tokenEvents()).toHaveLength(2);
    expect(dataEvents().map((e) => e.status)).toEqual([401, 401]);

    sandbox.failNext(2, 401, { body: JSON.stringify({ Message: 'Unauthorized' }), pathPrefix: '/members' });
    await expect(client.fetchAll('members')).rejects.toMatchObject({ name: 'AuthError', reason: 'apiKey' });
  });
});
