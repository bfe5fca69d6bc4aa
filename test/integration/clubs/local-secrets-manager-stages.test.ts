/**
 * The local Secrets Manager's version stages (test/support/local-secrets-manager.ts) as the API
 * reference describes them, so that a test of a compare-and-swap on them (shared-secret writes)
 * proves something about AWS: each label on one version at a time, AWSPREVIOUS following
 * AWSCURRENT, a client request token naming one version, and UpdateSecretVersionStage refusing to
 * move a label from a version that no longer has it. Real SDK client over a socket.
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';

describe('local Secrets Manager: version stages', () => {
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

  const put = (SecretString: string, ClientRequestToken: string, VersionStages?: string[]) =>
    client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString,
        ClientRequestToken,
        ...(VersionStages ? { VersionStages } : {}),
      }),
    );
  const stages = async () =>
    (await client.send(new DescribeSecretCommand({ SecretId: 's' }))).VersionIdsToStages ?? {};
  const move = (MoveToVersionId: string, RemoveFromVersionId?: string) =>
    client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: 's',
        VersionStage: 'AWSCURRENT',
        MoveToVersionId,
        ...(RemoveFromVersionId ? { RemoveFromVersionId } : {}),
      }),
    );
  const errorName = (p: Promise<unknown>) =>
    p.then(
      () => 'no error',
      (err: Error) => err.name,
    );

  it('moves labels one version at a time, and refuses a move from a version that lost AWSCURRENT', async () => {
    // Prepare: v1 current; v2 stored under a custom label, not current
    sm.setSecret('s', 'one');
    const v1 = (await client.send(new GetSecretValueCommand({ SecretId: 's' }))).VersionId!;
    await put('two', '00000000-0000-4000-8000-000000000002', ['PENDING']);
    const v2 = '00000000-0000-4000-8000-000000000002';
    // Assess: AWSCURRENT did not move; the label reads the pending version
    expect(sm.currentValue('s')).toBe('one');
    const pending = await client.send(new GetSecretValueCommand({ SecretId: 's', VersionStage: 'PENDING' }));
    expect(pending.SecretString).toBe('two');
    expect(await stages()).toEqual({ [v1]: ['AWSCURRENT'], [v2]: ['PENDING'] });

    // Act: a move needs RemoveFromVersionId naming where AWSCURRENT is
    expect(await errorName(move(v2))).toBe('InvalidParameterException');
    expect(await errorName(move(v2, v2))).toBe('InvalidParameterException');
    await move(v2, v1);
    // Assess: v2 current, v1 previous
    expect(sm.currentValue('s')).toBe('two');
    expect(await stages()).toEqual({ [v1]: ['AWSPREVIOUS'], [v2]: ['PENDING', 'AWSCURRENT'] });

    // Act: a writer that read v1 tries to move AWSCURRENT from it: refused, nothing changes
    await put('three', '00000000-0000-4000-8000-000000000003', ['PENDING']);
    const v3 = '00000000-0000-4000-8000-000000000003';
    expect(await errorName(move(v3, v1))).toBe('InvalidParameterException');
    expect(sm.currentValue('s')).toBe('two');
    // PENDING moved to v3 (one version at a time)
    expect(await stages()).toEqual({ [v1]: ['AWSPREVIOUS'], [v2]: ['AWSCURRENT'], [v3]: ['PENDING'] });
  });

  it('a client request token names one version: sent again with the same value nothing changes, with another it is refused', async () => {
    // Prepare
    const token = '00000000-0000-4000-8000-0000000000aa';
    await put('four', token);
    // Act / Assess
    expect((await put('four', token)).VersionId).toBe(token);
    expect(await errorName(put('five', token))).toBe('ResourceExistsException');
    expect(sm.currentValue('s')).toBe('four');
    const byId = await client.send(new GetSecretValueCommand({ SecretId: 's', VersionId: token }));
    expect(byId.VersionStages).toEqual(['AWSCURRENT']);
    expect(
      await errorName(client.send(new GetSecretValueCommand({ SecretId: 's', VersionStage: 'NOPE' }))),
    ).toBe('ResourceNotFoundException');
  });
});
