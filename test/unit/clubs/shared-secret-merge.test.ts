/**
 * The failure paths of the shared-secret compare-and-swap (lambdas/clubs/club-secret-writes.ts) that
 * a local Secrets Manager cannot be made to produce on demand: other writers winning every race
 * (the run gives up, retryable, naming why) and a swap refused while AWSCURRENT did not move (no
 * race: it stops at once instead of spinning). The races themselves run against the local Secrets
 * Manager in test/integration/clubs/shared-secret-concurrency.test.ts.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ClubSecretContentionError, ClubSecretError, putSharedClubKeys } from '../../../lambdas/clubs';

const sm = mockClient(SecretsManagerClient);
// The SDK's client is shared with the worker's next test files (vitest.config.ts isolate: false).
afterAll(() => sm.restore());
const client = new SecretsManagerClient({ region: 'us-east-1' });
const LOGIN = { username: 'integrator', password: 'pw' };
const shared = (keys: Record<string, string>) => JSON.stringify({ ...LOGIN, apiKeys: keys });
const refused = () => Object.assign(new Error('moved'), { name: 'InvalidParameterException' });

afterEach(() => {
  sm.reset();
});

describe('shared-secret merge: when the swap keeps failing', () => {
  it('other writers winning every time: gives up after 10 tries, retryable, nothing of theirs overwritten', async () => {
    // Prepare: every read sees a new current version (someone else wrote), every swap is refused
    let reads = 0;
    sm.on(GetSecretValueCommand).callsFake(() => {
      reads++;
      return { SecretString: shared({ [`other-${reads}`]: 'k' }), VersionId: `v${reads}` };
    });
    sm.on(PutSecretValueCommand).resolves({});
    sm.on(UpdateSecretVersionStageCommand).rejects(refused());
    // Act
    const error = await putSharedClubKeys(client, 'chain', LOGIN, { mine: 'k' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClubSecretContentionError);
    expect((error as ClubSecretError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/other writers changed it 10 times .*Run it again/);
    expect(reads).toBe(10);
    const swaps = sm.commandCalls(UpdateSecretVersionStageCommand).map((c) => c.args[0].input);
    expect(swaps.map((s) => s.RemoveFromVersionId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `v${i + 1}`),
    );
    // Every merge kept what it read: the other writer's key of that read, and ours
    const merged = sm
      .commandCalls(PutSecretValueCommand)
      .map((c) => JSON.parse(c.args[0].input.SecretString!));
    expect(merged.at(-1).apiKeys).toEqual({ 'other-10': 'k', mine: 'k' });
    expect(
      sm
        .commandCalls(PutSecretValueCommand)
        .every((c) => c.args[0].input.VersionStages?.[0] === 'GYMBRIDGE_PENDING'),
    ).toBe(true);
  }, 30_000);

  it('a swap refused while AWSCURRENT stayed where it was read: stops at once, not a race', async () => {
    // Prepare
    sm.on(GetSecretValueCommand).resolves({ SecretString: shared({ a: 'k' }), VersionId: 'v1' });
    sm.on(PutSecretValueCommand).resolves({});
    sm.on(UpdateSecretVersionStageCommand).rejects(refused());
    // Act
    const error = await putSharedClubKeys(client, 'chain', LOGIN, { mine: 'k' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ClubSecretError);
    expect(error).not.toBeInstanceOf(ClubSecretContentionError);
    expect((error as Error).message).toContain('refused to move AWSCURRENT from the version read (v1)');
    expect(sm.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(1);
  });
});
