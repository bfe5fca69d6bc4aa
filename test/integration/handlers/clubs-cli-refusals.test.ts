/**
 * `npm run cli -- clubs` refusing, as a child process against dynalite and the local Secrets
 * Manager (./clubs-cli-fixture.ts): bad flags, a club secret written over a shared one or the
 * reverse, credentials that cannot go into a header, a Secrets Manager that does not answer and a
 * missing table; the exit code, a message naming the problem (never a credential), and nothing
 * written.
 */
import { writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
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

  it('refuses bad flags with exit code 2 and a message naming the problem, writing nothing', async () => {
    // Act
    const results = await Promise.all([
      cli([...addFlags('bad-1'), '--password', 'oops', '--api-key', 'k']),
      cli([...addFlags('bad-2'), '--api-key', 'k']),
      cli(['add', '--table', tableName, '--club-id', 'bad-3', '--api-key', 'k'], {
        env: { GYM_BRIDGE_PASSWORD: 'p' },
      }),
      cli(
        [
          ...addFlags('bad-4').map((a) =>
            a === 'https://api.example.com/v1' ? 'http://api.example.com/v1' : a,
          ),
          '--api-key',
          'k',
        ],
        { env: { GYM_BRIDGE_PASSWORD: 'p' } },
      ),
      cli(['remove', '--club-id', 'x']),
      cli(['list', '--club-id', 'x']),
      cli([...addFlags('bad-5'), '--api-key', 'k', '--lifecycle', 'maybe'], {
        env: { GYM_BRIDGE_PASSWORD: 'p' },
      }),
      cli([...addFlags('bad-6'), '--api-key', 'k', '--inactive-days', '2w'], {
        env: { GYM_BRIDGE_PASSWORD: 'p' },
      }),
      cli([...addFlags('bad-7'), '--api-key', 'k', '--trial-ending-hours', '0'], {
        env: { GYM_BRIDGE_PASSWORD: 'p' },
      }),
    ]);
    // Assess
    const [passwordFlag, noPassword, missing, plainHttp, unknownSub, misplaced, onOff, days, hours] = results;
    expect(onOff!.stderr).toContain("--lifecycle must be on or off, got 'maybe'");
    expect(days!.stderr).toContain("--inactive-days must be a whole number, got '2w'");
    expect(hours!.stderr).toContain('lifecycle.trialEndingHours');
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(passwordFlag!.stderr).toMatch(/Unknown option '--password'/);
    expect(noPassword!.stderr).toContain('$GYM_BRIDGE_PASSWORD');
    expect(missing!.stderr).toContain('clubs add needs --base-url, --time-zone, --plan, --username');
    expect(plainHttp!.stderr).toContain('plain http:// is refused for api.example.com');
    expect(unknownSub!.stderr).toContain("unknown subcommand 'remove'");
    expect(misplaced!.stderr).toContain('clubs list does not take --club-id');
    const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
    expect((await registry.listAll()).clubs.map((c) => c.clubId)).not.toContain('bad-4');
  }, 60_000);
  it('refuses to write a club secret over a shared one, and a shared secret over a club secret: exit 2, nothing written', async () => {
    // Prepare: a shared secret 'fleet' (two clubs) and a club secret 'solo-1', as earlier adds left them
    const fleet = 'gym-bridge/clubs/fleet';
    const fleetValue = JSON.stringify({
      username: 'fleet-login',
      password: 'fleet-pass',
      apiKeys: { 'fleet-1': 'key-f1', 'fleet-2': 'key-f2' },
    });
    sm.setSecret(fleet, fleetValue);
    const solo = 'gym-bridge/clubs/solo-1';
    const soloValue = JSON.stringify({ username: 'integrator-1', password: 'solo-pass', apiKey: 'key-solo' });
    sm.setSecret(solo, soloValue);
    const file = join(dir, 'with-fleet.json');
    const base = { baseUrl: 'https://api.example.com/v1', timeZone: 'Europe/London', plan: 'basic' };
    const login = { username: 'u', password: 'file-pass' };
    await writeFile(
      file,
      JSON.stringify({
        clubs: [
          { clubId: 'ok-1', ...base, credentials: { ...login, apiKey: 'key-ok1' } },
          { clubId: 'fleet', ...base, credentials: { ...login, apiKey: 'key-x' } },
        ],
      }),
    );
    // Act: club 'fleet' (its secret name is the shared one's); a file whose second club is 'fleet';
    // club 'new-1' into a shared secret named like club secret 'solo-1'
    const [overShared, fileOverShared, overClub] = await Promise.all([
      cli([...addFlags('fleet'), '--api-key', 'key-one-club'], { env: { GYM_BRIDGE_PASSWORD: 'one-pass' } }),
      cli(['add', '--table', tableName, '--from-clubs-file', file]),
      cli([...addFlags('new-1'), '--api-key', 'key-new', '--shared-secret', 'solo-1'], {
        env: { GYM_BRIDGE_PASSWORD: 'new-pass' },
      }),
    ]);
    // Assess
    for (const r of [overShared, fileOverShared]) {
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain(
        "gym-bridge clubs: secret 'gym-bridge/clubs/fleet' is a shared secret (integrator login 'fleet-login', 2 club keys: fleet-1, fleet-2)",
      );
      expect(r.stderr).toContain(
        "every club in it would be polled with fleet's API key. Nothing was written.",
      );
      expect(r.stderr).toContain('--shared-secret');
      expect(r.stdout).toBe('');
    }
    expect(overClub.code, overClub.stdout + overClub.stderr).toBe(2);
    expect(overClub.stderr).toContain(
      "gym-bridge clubs: secret 'gym-bridge/clubs/solo-1' holds one club's credentials { username, password, apiKey }, not a shared secret",
    );
    expect(overClub.stderr).toContain('Nothing was written. Choose another --shared-secret NAME');
    expect(sm.currentValue(fleet)).toBe(fleetValue);
    expect(sm.currentValue(solo)).toBe(soloValue);
    expect(sm.currentValue('gym-bridge/clubs/ok-1')).toBeUndefined(); // the file's good club neither
    const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
    for (const id of ['fleet', 'ok-1', 'new-1']) expect(await registry.get(id)).toBeUndefined();
    for (const r of [overShared, fileOverShared, overClub]) {
      expect(r.stdout + r.stderr).not.toMatch(/fleet-pass|solo-pass|key-f|key-solo|one-pass|new-pass|key-x/);
    }
  }, 60_000);

  it('refuses credentials that cannot go into a header before writing anything: exit 2, the field named, never the value', async () => {
    // Act
    const [keyNewline, passwordNewline, stdinNewline, colon, fileKey] = await Promise.all([
      cli([...addFlags('cred-1'), '--api-key', 'key-Tq9\n'], { env: { GYM_BRIDGE_PASSWORD: 'pw-Tq9' } }),
      cli([...addFlags('cred-2'), '--api-key', 'key-Tq9'], { env: { GYM_BRIDGE_PASSWORD: 'pw-Tq9\n' } }),
      // --password-stdin drops one trailing newline; a second one is the password's
      cli([...addFlags('cred-3'), '--password-stdin', '--api-key', 'key-Tq9'], { stdin: 'pw-Tq9\n\n' }),
      cli(
        [
          ...addFlags('cred-4').map((a) => (a === 'integrator-1' ? 'integrator:1' : a)),
          '--api-key',
          'key-Tq9',
        ],
        { env: { GYM_BRIDGE_PASSWORD: 'pw-Tq9' } },
      ),
      (async () => {
        const file = join(dir, 'control.json');
        const credentials = { username: 'u', password: 'pw-Tq9', apiKey: 'key\u0007Tq9' };
        await writeFile(
          file,
          JSON.stringify({
            clubs: [
              {
                clubId: 'cred-5',
                baseUrl: 'https://api.example.com/v1',
                timeZone: 'UTC',
                plan: 'basic',
                credentials,
              },
            ],
          }),
        );
        return cli(['add', '--table', tableName, '--from-clubs-file', file]);
      })(),
    ]);
    // Assess
    const results = { keyNewline, passwordNewline, stdinNewline, colon, fileKey };
    for (const [name, r] of Object.entries(results)) {
      expect({ name, code: r.code }, r.stderr).toEqual({ name, code: 2 });
      expect(r.stdout + r.stderr, name).not.toMatch(/Tq9/);
    }
    expect(keyNewline.stderr).toContain("club 'cred-1' credentials: apiKey ends with a newline (");
    expect(passwordNewline.stderr).toContain("club 'cred-2' credentials: password ends with a newline (");
    expect(stdinNewline.stderr).toContain("club 'cred-3' credentials: password ends with a newline (");
    expect(colon.stderr).toContain("club 'cred-4' credentials: username contains ':'");
    expect(fileKey.stderr).toContain(
      "club 'cred-5' credentials: apiKey contains a control character (U+0007)",
    );
    const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
    for (const id of ['cred-1', 'cred-2', 'cred-3', 'cred-4', 'cred-5']) {
      expect(sm.currentValue(`gym-bridge/clubs/${id}`)).toBeUndefined();
      expect(await registry.get(id)).toBeUndefined();
    }
  }, 60_000);

  it('says where Secrets Manager was asked and what to check when it does not answer (exit 1), and names a missing table (exit 2)', async () => {
    // Prepare: a port nobody listens on, and an endpoint that is DynamoDB, not Secrets Manager
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const add = (clubId: string, env: Record<string, string>) =>
      cli([...addFlags(clubId), '--api-key', 'key-e'], { env: { GYM_BRIDGE_PASSWORD: 'pw-e', ...env } });
    // Act
    const [nobody, notSecretsManager, noTable, listNoTable] = await Promise.all([
      add('endpoint-1', { AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${closed}` }),
      add('endpoint-2', { AWS_ENDPOINT_URL_SECRETS_MANAGER: db.endpoint }),
      cli([...addFlags('endpoint-3').map((a) => (a === tableName ? 'no-such-table' : a)), '--api-key', 'k'], {
        env: { GYM_BRIDGE_PASSWORD: 'pw-e' },
      }),
      cli(['list', '--table', 'no-such-table']),
    ]);
    // Assess
    expect(nobody.code, nobody.stderr).toBe(1);
    expect(nobody.stderr).toMatch(
      new RegExp(
        `^gym-bridge clubs: could not read secret 'gym-bridge/clubs/endpoint-1': Secrets Manager does not answer \\(ECONNREFUSED\\) \\(Secrets Manager at http://127\\.0\\.0\\.1:${closed}\\): check AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER`,
      ),
    );
    expect(notSecretsManager.code, notSecretsManager.stderr).toBe(1);
    expect(notSecretsManager.stderr).toContain(
      `could not read secret 'gym-bridge/clubs/endpoint-2': the endpoint does not answer as Secrets Manager (`,
    );
    expect(notSecretsManager.stderr).toContain(`(Secrets Manager at ${db.endpoint})`);
    for (const r of [nobody, notSecretsManager]) {
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\(Error\)|pw-e/);
    }
    for (const r of [noTable, listNoTable]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `state table 'no-such-table' does not exist at ${db.endpoint}: give the deployed table with --table`,
      );
    }
    const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
    for (const id of ['endpoint-1', 'endpoint-2']) expect(await registry.get(id)).toBeUndefined();
  }, 60_000);
});
