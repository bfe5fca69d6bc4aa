/**
 * The CLI's last pass over what it prints: a credential stored in the state table by a release
 * before the redaction of echoed credentials (a `lastError` quoting the API key, the password and
 * the Basic value) is not shown by `status`, in the table or in JSON.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { createStateTable } from '../../../lambdas/state/table';
import { localAwsEnv, runCliOk } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';
import { seedCursor } from '../../support/state-seeds';

const API_KEY = 'live-key-0123456789abcdef';
const PASSWORD = 'S3cret-pa55word';

describe('status shows no credential, whatever the table holds', () => {
  let db: Dynalite;
  let dir: string;
  let clubsFile: string;

  beforeAll(async () => {
    db = await startDynalite();
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-status-'));
    clubsFile = join(dir, 'clubs.json');
    const club = {
      clubId: 'club-1',
      baseUrl: 'https://gym.example.test/v1',
      timeZone: 'Australia/Sydney',
      plan: 'basic',
      credentials: { username: 'chain-login', password: PASSWORD, apiKey: API_KEY },
    };
    await writeFile(clubsFile, JSON.stringify({ clubs: [club] }), { mode: 0o600 });
    await createStateTable(db.client, 'status-redaction');
    const store = new DynamoDbStateStore({ client: db.client, tableName: 'status-redaction' });
    const cursor = await store.view('club-1').getCursor('members');
    const basic = Buffer.from(`chain-login:${PASSWORD}`).toString('base64');
    await seedCursor(store, {
      ...cursor,
      health: {
        consecutiveFailures: 1,
        lastError: {
          kind: 'auth',
          message: `members: HTTP 401: key ${API_KEY} login ${basic} password=${encodeURIComponent(PASSWORD)}`,
          at: new Date().toISOString(),
        },
      },
    });
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([[[]], [['--json']]])('status %j', async (extra) => {
    const out = await runCliOk(
      ['status', '--clubs', clubsFile, '--table', 'status-redaction', ...extra],
      localAwsEnv(db.endpoint),
    );
    const text = out.stdout + out.stderr;
    expect(text).toMatch(/\[redacted\]/);
    for (const secret of [API_KEY, PASSWORD, Buffer.from(`chain-login:${PASSWORD}`).toString('base64')]) {
      // not whole, and not in part either (the table cuts long reasons: redacted before the cut)
      expect(text).not.toContain(secret.slice(0, 10));
    }
  });
});
