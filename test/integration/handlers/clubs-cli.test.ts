/**
 * `npm run cli -- clubs add|list|disable` as a child process against dynalite and the local
 * Secrets Manager (./clubs-cli-fixture.ts), when it succeeds: a club added with its password from
 * the environment or stdin, a clubs file imported, a club disabled, a chain's clubs put into one
 * shared secret; what lands in the table and in the secrets, and what is printed. Its refusals:
 * clubs-cli-refusals.test.ts.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbClubRegistry } from '../../../lambdas/clubs';
import type { Dynalite } from '../../support/dynalite';
import type { LocalSecretsManager } from '../../support/local-secrets-manager';
import { type ClubsCliEnv, startClubsCliEnv } from './clubs-cli-fixture';

describe('clubs CLI', () => {
  let cliEnv: ClubsCliEnv;
  let db: Dynalite;
  let sm: LocalSecretsManager;
  let tableName: string;
  let dir: string;
  let cli: ClubsCliEnv['cli'];
  let addFlags: ClubsCliEnv['addFlags'];

  beforeAll(async () => {
    cliEnv = await startClubsCliEnv();
    ({ db, sm, tableName, dir, cli, addFlags } = cliEnv);
  });
  afterAll(() => cliEnv.close());

  it('adds a club with the password from the environment or stdin, keeps credentials out of the table and output, lists it', async () => {
    // Act
    const fromEnv = await cli(
      [
        ...addFlags('club-a'),
        ...['--api-key', 'key-aaaa', '--source', 'visits', '--source', 'members'],
        ...['--inactive-days', '21', '--trial-ending-hours', '48'],
      ],
      {
        env: { GYM_BRIDGE_PASSWORD: 'env-pass-123' },
      },
    );
    const fromStdin = await cli(
      [...addFlags('club-b'), '--password-stdin', '--pii-policy', 'full', '--lifecycle', 'off'],
      {
        env: { GYM_BRIDGE_API_KEY: 'key-bbbb' },
        stdin: 'stdin-pass-456\n',
      },
    );
    const again = await cli([...addFlags('club-b'), '--password-stdin'], {
      env: { GYM_BRIDGE_API_KEY: 'key-bbbb2' },
      stdin: 'stdin-pass-789\n',
    });
    const listed = await cli(['list', '--table', tableName]);
    const json = await cli(['list', '--table', tableName, '--json']);
    // Assess
    for (const r of [fromEnv, fromStdin, again, listed, json]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(/pass-|key-a|key-b/);
    }
    expect(fromEnv.stdout).toBe(
      'club-a: added (advanced, Australia/Sydney; secret gym-bridge/clubs/club-a created)\n',
    );
    expect(again.stdout).toContain('club-b: updated');
    expect(JSON.parse(sm.currentValue('gym-bridge/clubs/club-a')!)).toEqual({
      username: 'integrator-1',
      password: 'env-pass-123',
      apiKey: 'key-aaaa',
    });
    expect(JSON.parse(sm.currentValue('gym-bridge/clubs/club-b')!)).toMatchObject({
      password: 'stdin-pass-789',
      apiKey: 'key-bbbb2',
    });
    const item = await DynamoDBDocumentClient.from(db.client).send(
      new GetCommand({ TableName: tableName, Key: { pk: 'CLUB#club-a', sk: 'CONFIG' } }),
    );
    expect(item.Item).toMatchObject({
      sources: ['visits', 'members'],
      enabled: true,
      plan: 'advanced',
      lifecycle: { enabled: true, inactiveDays: 21, expiringDays: 14, trialEndingHours: 48 },
    });
    expect(JSON.stringify(item.Item)).not.toMatch(/pass-|key-a|integrator-1/);
    expect(listed.stdout.split('\n')[0]).toMatch(/^CLUB\s+ENABLED\s+PLAN\s+TIME ZONE\s+PII\s+SOURCES/);
    expect(listed.stdout).toMatch(/club-a\s+yes\s+advanced\s+Australia\/Sydney\s+default\s+visits,members/);
    // SOURCES: default (every source but the experimental classAttendance)
    expect(listed.stdout).toMatch(/club-b\s+yes\s+advanced\s+Australia\/Sydney\s+default\s+default/);
    expect((JSON.parse(json.stdout) as { clubId: string }[]).map((c) => c.clubId)).toEqual([
      'club-a',
      'club-b',
    ]);
  }, 60_000);

  it('imports a clubs file and disables a club', async () => {
    // Prepare
    const file = join(dir, 'clubs.json');
    const base = { baseUrl: 'http://127.0.0.1:4010/v1', timeZone: 'Europe/London', plan: 'basic' };
    const credentials = { username: 'u', password: 'file-pass', apiKey: 'file-key' };
    await writeFile(
      file,
      JSON.stringify({
        clubs: [
          { clubId: 'file-1', ...base, credentials, piiPolicy: 'full' },
          { clubId: 'file-2', ...base, credentials },
        ],
      }),
    );
    // Act
    const imported = await cli([
      'add',
      '--table',
      tableName,
      '--secret-prefix',
      'test/x/',
      '--from-clubs-file',
      file,
    ]);
    const disabled = await cli(['disable', '--table', tableName, '--club-id', 'file-2']);
    const unknown = await cli(['disable', '--table', tableName, '--club-id', 'nobody']);
    // Assess
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('file-1: added (basic, Europe/London; secret test/x/file-1 created)');
    expect(disabled.stdout).toContain('file-2: disabled');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no club 'nobody'");
    const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
    expect(await registry.get('file-1')).toMatchObject({
      piiPolicy: 'full',
      secretName: 'test/x/file-1',
      enabled: true,
    });
    expect((await registry.get('file-2'))?.piiPolicy).toBeUndefined();
    expect((await registry.get('file-2'))?.enabled).toBe(false);
    expect((await registry.listEnabled()).clubs.map((c) => c.clubId)).not.toContain('file-2');
    expect(sm.currentValue('test/x/file-2')).toContain('file-pass');
  }, 60_000);

  it('puts a chain into one shared secret: a file, then one more club, each club loading its own key', async () => {
    // Prepare: two clubs of one integrator login in a file
    const file = join(dir, 'chain.json');
    const base = { baseUrl: 'http://127.0.0.1:4010/v1', timeZone: 'Europe/London', plan: 'basic' };
    const login = { username: 'chain-login', password: 'chain-pass' };
    await writeFile(
      file,
      JSON.stringify({
        clubs: [
          { clubId: 'chain-1', ...base, credentials: { ...login, apiKey: 'key-c1' } },
          { clubId: 'chain-2', ...base, credentials: { ...login, apiKey: 'key-c2' } },
        ],
      }),
    );
    // Act
    const imported = await cli([
      'add',
      '--table',
      tableName,
      '--from-clubs-file',
      file,
      '--shared-secret',
      'chain',
    ]);
    const one = await cli(
      [
        ...addFlags('chain-3'),
        '--username',
        'chain-login',
        '--api-key',
        'key-c3',
        '--shared-secret',
        'chain',
      ],
      {
        env: { GYM_BRIDGE_PASSWORD: 'chain-pass' },
      },
    );
    const stranger = await cli([...addFlags('other-1'), '--api-key', 'key-o', '--shared-secret', 'chain'], {
      env: { GYM_BRIDGE_PASSWORD: 'other-pass' },
    });
    // Assess: one secret, three keys; each record names it; a club of another login refused
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(
      'chain-1: added (basic, Europe/London; shared secret gym-bridge/clubs/chain)',
    );
    expect(imported.stdout).toContain('shared secret gym-bridge/clubs/chain created: 2 club keys written');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('shared secret gym-bridge/clubs/chain updated: 1 club key written');
    expect(JSON.parse(sm.currentValue('gym-bridge/clubs/chain')!)).toEqual({
      ...login,
      apiKeys: { 'chain-1': 'key-c1', 'chain-2': 'key-c2', 'chain-3': 'key-c3' },
    });
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).toContain("belongs to integrator login 'chain-login', not 'integrator-1'");
    expect(stranger.stderr).toContain('Nothing was written');
    for (const r of [imported, one, stranger]) expect(r.stdout + r.stderr).not.toMatch(/chain-pass|key-c/);
    const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
    expect((await registry.get('chain-3'))?.secretName).toBe('gym-bridge/clubs/chain');
    expect(await registry.get('other-1')).toBeUndefined();
  }, 60_000);
});
