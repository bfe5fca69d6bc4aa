/**
 * `clubs add --shared-secret` run several times at once against one shared secret: each run reads
 * the secret, merges its clubs' keys and writes. Without a version check the last write wins and
 * the other runs' keys are gone (the club then fails to load its key at its next poll). With the
 * secret's AWSCURRENT label moved only from the version the run read, every key survives: a run
 * that lost the race reads again and merges into the winner's version. Real SDK client, the local
 * Secrets Manager (test/support/local-secrets-manager.ts: version stages as the API has them).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putSharedClubKeys } from '../../../lambdas/clubs';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';

const LOGIN = { username: 'integrator', password: 'pw-1' };

describe('concurrent writers of one shared secret', () => {
  let sm: LocalSecretsManager;
  let client: SecretsManagerClient;

  beforeAll(async () => {
    sm = await startLocalSecretsManager();
    client = new SecretsManagerClient({
      endpoint: sm.endpoint,
      region: sm.region,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await sm.close();
  });

  const keysIn = (name: string) =>
    Object.keys((JSON.parse(sm.currentValue(name) ?? '{}') as { apiKeys?: object }).apiKeys ?? {}).sort();

  it('eight runs adding one club each to an existing secret: all eight keys and the first one stay', async () => {
    // Prepare
    await putSharedClubKeys(client, 'chain', LOGIN, { 'club-0': 'key-0' });
    const clubs = Array.from({ length: 8 }, (_, i) => `club-${i + 1}`);
    // Act
    const outcomes = await Promise.all(
      clubs.map((clubId) => putSharedClubKeys(client, 'chain', LOGIN, { [clubId]: `key-${clubId}` })),
    );
    // Assess
    expect(outcomes).toEqual(clubs.map(() => 'updated'));
    expect(keysIn('chain')).toEqual(['club-0', ...clubs].sort());
    const current = JSON.parse(
      (await client.send(new GetSecretValueCommand({ SecretId: 'chain' }))).SecretString ?? '',
    );
    expect(current.apiKeys['club-5']).toBe('key-club-5');
  });

  it('six runs creating the same secret at once: one creates it, the others merge into it', async () => {
    // Act
    const clubs = Array.from({ length: 6 }, (_, i) => `new-${i + 1}`);
    const outcomes = await Promise.all(
      clubs.map((clubId) => putSharedClubKeys(client, 'fresh', LOGIN, { [clubId]: `key-${clubId}` })),
    );
    // Assess
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(keysIn('fresh')).toEqual(clubs.sort());
  });
});
