/**
 * The club registry on dynalite (CONFIG items plus the CLUBS directory) and the cached club secrets
 * on the local Secrets Manager, through the real SDK clients.
 */

import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClubRecord,
  ClubRecordError,
  ClubSecretError,
  clubRecordFrom,
  DynamoDbClubRegistry,
  loadClub,
  MemoryClubRegistry,
  putClubSecret,
  SecretsManagerClubSecrets,
} from '../../../lambdas/clubs';
import { parseClubsFile } from '../../../lambdas/clubs/club-config';
import { clubDirectoryPk, LEGACY_CLUB_DIRECTORY_PK } from '../../../lambdas/clubs/dynamodb-club-registry';
import { CLUB_DIRECTORY_BUCKETS, clubBucket, clubShardIndex } from '../../../lambdas/common/club-shard';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

function config(clubId: string, extra: Record<string, unknown> = {}) {
  return parseClubsFile({
    clubs: [
      {
        clubId,
        baseUrl: 'https://api.example.com/v1',
        timeZone: 'Australia/Sydney',
        plan: 'basic',
        credentials: { username: 'integrator', password: 'pa55-word', apiKey: `key-${clubId}` },
        ...extra,
      },
    ],
  })[0]!;
}

const record = (clubId: string, extra: Record<string, unknown> = {}): ClubRecord =>
  clubRecordFrom(config(clubId, extra), `gym-bridge/clubs/${clubId}`, {
    explicitPiiPolicy: 'piiPolicy' in extra,
  });

describe('DynamoDbClubRegistry', () => {
  let db: Dynalite;
  let registry: DynamoDbClubRegistry;
  let tableName: string;

  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    tableName = await createTestTable(db.client, 'clubs');
    registry = new DynamoDbClubRegistry({
      client: db.client,
      tableName,
      now: () => Date.parse('2026-05-01T00:00:00Z'),
    });
  });

  it('stores a club at CLUB#<id>/CONFIG and in the directory, without credentials, and lists enabled clubs', async () => {
    // Act
    await registry.put(record('club-b', { sources: ['visits', 'members'], piiPolicy: 'full' }));
    await registry.put(record('club-a'));
    await registry.put({ ...record('club-c'), enabled: false });
    const enabled = await registry.listEnabled();
    const all = await registry.listAll();
    const doc = DynamoDBDocumentClient.from(db.client);
    const stored = await doc.send(
      new GetCommand({ TableName: tableName, Key: { pk: 'CLUB#club-b', sk: 'CONFIG' } }),
    );
    // Assess
    expect(enabled.clubs.map((c) => c.clubId)).toEqual(['club-a', 'club-b']);
    // One Query per directory bucket, and one of the partition of before the buckets.
    expect(enabled.requests).toBe(CLUB_DIRECTORY_BUCKETS + 1);
    expect(all.clubs.map((c) => [c.clubId, c.enabled])).toEqual([
      ['club-a', true],
      ['club-b', true],
      ['club-c', false],
    ]);
    expect(stored.Item).toMatchObject({
      clubId: 'club-b',
      secretName: 'gym-bridge/clubs/club-b',
      sources: ['visits', 'members'],
      piiPolicy: 'full',
      updatedAt: '2026-05-01T00:00:00.000Z',
    });
    const text = JSON.stringify(stored.Item);
    expect(text).not.toContain('pa55-word');
    expect(text).not.toContain('key-club-b');
    expect(text).not.toContain('integrator');
    // No explicit PII policy: the deployment default applies later.
    expect((await registry.get('club-a'))?.piiPolicy).toBeUndefined();
  });

  it('disables a club in both items, and says when the club is unknown', async () => {
    // Prepare
    await registry.put(record('club-a'));
    // Act
    const disabled = await registry.disable('club-a');
    const unknown = await registry.disable('club-zz');
    // Assess
    expect(disabled).toBe(true);
    expect(unknown).toBe(false);
    expect((await registry.get('club-a'))?.enabled).toBe(false);
    expect((await registry.listEnabled()).clubs).toEqual([]);
    expect((await registry.listAll()).clubs.map((c) => c.enabled)).toEqual([false]);
    expect(await registry.get('club-zz')).toBeUndefined();
  });

  it("lists a shard's clubs only, from its buckets only: every club in exactly one shard", async () => {
    // Prepare: 40 clubs, written through the registry.
    const ids = Array.from({ length: 40 }, (_, i) => `club-${String(i).padStart(2, '0')}`);
    for (const id of ids) await registry.put(record(id));
    const doc = DynamoDBDocumentClient.from(db.client);
    // Act
    const shards = [0, 1, 2].map((index) => registry.listEnabled({ index, count: 3 }));
    const listings = await Promise.all(shards);
    const entry = await doc.send(
      new GetCommand({
        TableName: tableName,
        Key: { pk: clubDirectoryPk(clubBucket('club-07')), sk: 'club-07' },
      }),
    );
    // Assess: disjoint, complete, each club in the shard of its bucket.
    const listed = listings.flatMap((l) => l.clubs.map((c) => c.clubId));
    expect([...listed].sort()).toEqual(ids);
    for (const [index, listing] of listings.entries()) {
      expect(listing.clubs.length).toBeGreaterThan(0);
      for (const c of listing.clubs) expect(clubShardIndex(c.clubId, 3)).toBe(index);
      // Shard 0 of 3 owns buckets 0, 3, ..., 63 (22 of 64), the others 21; plus the legacy partition.
      expect(listing.requests).toBe((index === 0 ? 22 : 21) + 1);
    }
    expect(entry.Item?.clubId).toBe('club-07');
    await expect(registry.listEnabled({ index: 3, count: 3 })).rejects.toThrow(
      /shard must be an integer in 0\.\.2/,
    );
  });

  it('lists an entry written before the buckets in its shard until put or disable moves it', async () => {
    // Prepare: two clubs in the partition of before the buckets (as the previous release wrote them).
    const doc = DynamoDBDocumentClient.from(db.client);
    for (const id of ['old-a', 'old-b']) {
      for (const key of [
        { pk: LEGACY_CLUB_DIRECTORY_PK, sk: id },
        { pk: `CLUB#${id}`, sk: 'CONFIG' },
      ]) {
        await doc.send(new PutCommand({ TableName: tableName, Item: { ...key, ...record(id) } }));
      }
    }
    const legacyEntries = async () =>
      (
        await doc.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': LEGACY_CLUB_DIRECTORY_PK },
          }),
        )
      ).Items?.map((i) => i.sk);
    const shardOf = (id: string) => ({ index: clubShardIndex(id, 4), count: 4 });
    const otherShard = (id: string) => ({ index: (clubShardIndex(id, 4) + 1) % 4, count: 4 });
    // Act + Assess: listed by its own shard only, before and after it moves.
    expect((await registry.listEnabled(shardOf('old-a'))).clubs.map((c) => c.clubId)).toContain('old-a');
    expect((await registry.listEnabled(otherShard('old-a'))).clubs.map((c) => c.clubId)).not.toContain(
      'old-a',
    );
    await registry.put(record('old-a'));
    expect(await registry.disable('old-b')).toBe(true);
    expect(await legacyEntries()).toEqual([]);
    expect((await registry.listEnabled(shardOf('old-a'))).clubs.map((c) => c.clubId)).toContain('old-a');
    expect((await registry.listEnabled()).clubs.map((c) => c.clubId)).toEqual(['old-a']);
    expect((await registry.listAll()).clubs.map((c) => [c.clubId, c.enabled])).toEqual([
      ['old-a', true],
      ['old-b', false],
    ]);
  });

  it('pages through a large directory and skips an invalid entry instead of failing the listing', async () => {
    // Prepare: 300 clubs with long records (payment rules of 3,500 characters: over 1 MB in all, so
    // more than one Query page), and one broken directory entry.
    const doc = DynamoDBDocumentClient.from(db.client);
    const paymentRules = { succeeded: ['a'.repeat(3500)] };
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: 'CLUBS',
              sk: `club-${String(i).padStart(3, '0')}`,
              ...record(`club-${String(i).padStart(3, '0')}`, { paymentRules }),
            },
          }),
        ),
      ),
    );
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'CLUBS', sk: 'broken', clubId: 'broken', plan: 'gold' },
      }),
    );
    // Act
    const listing = await registry.listEnabled();
    // Assess
    expect(listing.clubs).toHaveLength(300);
    expect(listing.requests).toBeGreaterThanOrEqual(2);
    expect(listing.clubs[299]!.paymentRules?.succeeded?.[0]).toHaveLength(3500);
    await expect(
      (async () => {
        await doc.send(
          new PutCommand({ TableName: tableName, Item: { pk: 'CLUB#bad', sk: 'CONFIG', clubId: 'bad' } }),
        );
        return registry.get('bad');
      })(),
    ).rejects.toBeInstanceOf(ClubRecordError);
  });
});

describe('SecretsManagerClubSecrets', () => {
  let sm: LocalSecretsManager;
  let client: SecretsManagerClient;

  beforeAll(async () => {
    sm = await startLocalSecretsManager();
    client = new SecretsManagerClient({
      endpoint: sm.endpoint,
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await sm.close();
  });

  it('reads a secret once for many concurrent and later reads, and again after the TTL', async () => {
    // Prepare
    const name = 'gym-bridge/clubs/cached';
    expect(await putClubSecret(client, name, { username: 'u', password: 'p', apiKey: 'k' })).toBe('created');
    let now = 1_000_000;
    const secrets = new SecretsManagerClubSecrets({ client, ttlMs: 60_000, now: () => now });
    // Act
    const together = await Promise.all(Array.from({ length: 5 }, () => secrets.credentials(name, 'c1')));
    now += 59_000;
    await secrets.credentials(name, 'c1');
    const callsWithinTtl = sm.getSecretValueCalls(name);
    expect(await putClubSecret(client, name, { username: 'u', password: 'p2', apiKey: 'k' })).toBe('updated');
    now += 2_000;
    const refreshed = await secrets.credentials(name, 'c1');
    // Assess
    expect(together.every((c) => c.password === 'p')).toBe(true);
    expect(callsWithinTtl).toBe(1);
    expect(sm.getSecretValueCalls(name)).toBe(2);
    expect(refreshed).toEqual({ username: 'u', password: 'p2', apiKey: 'k' });
  });

  it('does not cache a failure, and re-reads after invalidate', async () => {
    // Prepare
    const name = 'gym-bridge/clubs/flaky';
    sm.setSecret(name, JSON.stringify({ username: 'u', password: 'p', apiKey: 'k' }));
    const secrets = new SecretsManagerClubSecrets({ client });
    sm.serverErrorNext(1);
    // Act
    const failed = await secrets.credentials(name, 'c1').catch((e: unknown) => e);
    const ok = await secrets.credentials(name, 'c1');
    secrets.invalidate(name);
    await secrets.credentials(name, 'c1');
    // Assess
    expect(failed).toBeInstanceOf(ClubSecretError);
    expect((failed as ClubSecretError).retryable).toBe(true);
    expect(ok.apiKey).toBe('k');
    expect(sm.getSecretValueCalls(name)).toBe(2); // the failed call never reached the secret
  });

  it('serves every club of a shared secret from one read, and names a club it does not hold', async () => {
    // Prepare: one integrator login and three clubs' keys in one secret, and a club secret beside it
    const shared = 'gym-bridge/clubs/chain-1';
    sm.setSecret(
      shared,
      JSON.stringify({ username: 'chain', password: 'pw', apiKeys: { a: 'key-a', b: 'key-b', c: 'key-c' } }),
    );
    sm.setSecret('gym-bridge/clubs/solo', JSON.stringify({ username: 'u', password: 'p', apiKey: 'k' }));
    const secrets = new SecretsManagerClubSecrets({ client });
    // Act
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => secrets.credentials(shared, id)));
    const solo = await secrets.credentials('gym-bridge/clubs/solo', 'any-club');
    const stranger = (await secrets.credentials(shared, 'z').catch((e: unknown) => e)) as ClubSecretError;
    // Assess
    expect([a, b, c]).toEqual([
      { username: 'chain', password: 'pw', apiKey: 'key-a' },
      { username: 'chain', password: 'pw', apiKey: 'key-b' },
      { username: 'chain', password: 'pw', apiKey: 'key-c' },
    ]);
    expect(solo.apiKey).toBe('k');
    expect(sm.getSecretValueCalls(shared)).toBe(1);
    expect(stranger).toBeInstanceOf(ClubSecretError);
    expect(stranger.retryable).toBe(false);
    expect(stranger.message).toBe(
      "shared secret 'gym-bridge/clubs/chain-1' holds no API key for club 'z' (add it with: clubs add --shared-secret)",
    );
    expect(stranger.message).not.toContain('key-');
  });

  it('refuses a malformed shared secret without quoting it', async () => {
    // Prepare
    sm.setSecret(
      'gym-bridge/clubs/bad-shared',
      JSON.stringify({ username: 'u', apiKeys: { a: 'hunter2-key' } }),
    );
    const secrets = new SecretsManagerClubSecrets({ client });
    // Act
    const error = (await secrets
      .credentials('gym-bridge/clubs/bad-shared', 'a')
      .catch((e: unknown) => e)) as ClubSecretError;
    // Assess
    expect(error.message).toContain('password missing or empty');
    expect(error.retryable).toBe(false);
    expect(JSON.stringify({ m: error.message, s: error.stack })).not.toContain('hunter2');
  });

  it('names a missing or malformed secret without quoting its value', async () => {
    // Prepare
    const secrets = new SecretsManagerClubSecrets({ client });
    sm.setSecret('gym-bridge/clubs/not-json', '{"password":"hunter2-secret"');
    sm.setSecret('gym-bridge/clubs/partial', JSON.stringify({ username: 'u', password: 'hunter2-secret' }));
    // Act
    const missing = (await secrets
      .credentials('gym-bridge/clubs/none', 'c1')
      .catch((e: unknown) => e)) as ClubSecretError;
    const notJson = (await secrets
      .credentials('gym-bridge/clubs/not-json', 'c1')
      .catch((e: unknown) => e)) as ClubSecretError;
    const partial = (await secrets
      .credentials('gym-bridge/clubs/partial', 'c1')
      .catch((e: unknown) => e)) as ClubSecretError;
    // Assess
    expect(missing.retryable).toBe(false);
    expect(missing.message).toContain("'gym-bridge/clubs/none' does not exist");
    expect(notJson.message).toBe("club secret 'gym-bridge/clubs/not-json' is not JSON");
    expect(notJson.cause).toBeUndefined();
    expect(partial.message).toContain('apiKey missing or empty');
    for (const e of [notJson, partial]) {
      expect(e.retryable).toBe(false);
      expect(JSON.stringify({ m: e.message, s: e.stack })).not.toContain('hunter2');
    }
  });

  it('loads a club: record and secret joined into a valid ClubConfig with the deployment PII default', async () => {
    // Prepare
    const registry = new MemoryClubRegistry([record('club-x'), { ...record('club-off'), enabled: false }]);
    await putClubSecret(client, 'gym-bridge/clubs/club-x', { username: 'u', password: 'p', apiKey: 'kx' });
    const deps = {
      registry,
      secrets: new SecretsManagerClubSecrets({ client }),
      piiPolicyDefault: 'full' as const,
      secretPrefix: 'gym-bridge/clubs/',
    };
    // Act
    const loaded = await loadClub(deps, 'club-x');
    const off = await loadClub(deps, 'club-off');
    const unknown = await loadClub(deps, 'club-none');
    const outside = loadClub({ ...deps, secretPrefix: 'other/' }, 'club-x');
    // Assess
    expect(loaded.status).toBe('ready');
    if (loaded.status === 'ready') {
      expect(loaded.config).toMatchObject({
        clubId: 'club-x',
        piiPolicy: 'full',
        enabled: true,
        unstatedZone: 'local',
        credentials: { username: 'u', password: 'p', apiKey: 'kx' },
      });
    }
    expect(off.status).toBe('disabled');
    expect(unknown.status).toBe('unknown');
    await expect(outside).rejects.toThrow(/outside the prefix 'other\/'/);
  });
});
