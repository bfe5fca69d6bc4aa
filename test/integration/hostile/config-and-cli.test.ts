/**
 * Bad configuration and bad flags, as a user meets them: `poll` as a child process. Each case must
 * end with a message that says what is wrong (never echoing a credential), exit code 2, and nothing
 * written: no events file, no state table, even with --create-table.
 */
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

const SECRET_PASSWORD = 'hunter2-Sup3rSecret';
const SECRET_KEY = 'k-7f3a9c1e5b2d4f60';

function club(overrides: Record<string, unknown>) {
  return {
    clubId: 'club-1',
    baseUrl: 'https://api.example.com/v1',
    timeZone: 'Australia/Sydney',
    plan: 'basic',
    credentials: { username: 'integrator', password: SECRET_PASSWORD, apiKey: SECRET_KEY },
    ...overrides,
  };
}

describe('bad config and bad flags: a clear message, exit 2, nothing written', () => {
  let db: Dynalite;
  let dir: string;

  beforeAll(async () => {
    db = await startDynalite();
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-hostile-'));
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCli(args, localAwsEnv(db.endpoint));

  const exists = (path: string) =>
    access(path).then(
      () => true,
      () => false,
    );

  /** A clubs file with this content (a string is written as is). */
  async function clubsFile(name: string, content: unknown): Promise<string> {
    const path = join(dir, `${name}.json`);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  }

  const cases: [name: string, clubs: unknown, extra: string[], message: RegExp][] = [
    ['a missing clubs file', undefined, [], /clubs file not found/],
    [
      'a clubs file that is not valid JSON',
      `{"clubs":[{"clubId":"club-1","credentials":{"password":"${SECRET_PASSWORD}" "apiKey":1}}]}`,
      [],
      /is not valid JSON \(line 1, column \d+\)/,
    ],
    ['an empty clubs file', '', [], /not valid JSON \(the file is empty\)/],
    ['a clubs file without clubs', { clubs: [] }, [], /lists no club/],
    [
      'an unknown time zone',
      { clubs: [club({ timeZone: 'Mars/Olympus_Mons' })] },
      [],
      /club 'club-1' timeZone: unknown IANA time zone/,
    ],
    [
      'a base URL that is not a URL',
      { clubs: [club({ baseUrl: 'api example com' })] },
      [],
      /club 'club-1' baseUrl: not a URL/,
    ],
    [
      'plain http:// to a host that is not loopback',
      { clubs: [club({ baseUrl: 'http://api.example.com/v1' })] },
      [],
      /plain http:\/\/ is refused for api\.example\.com/,
    ],
    [
      'credentials in the base URL',
      { clubs: [club({ baseUrl: `https://integrator:${SECRET_PASSWORD}@api.example.com/v1` })] },
      [],
      /baseUrl: must not embed credentials/,
    ],
    [
      'an empty API key',
      { clubs: [club({ credentials: { username: 'u', password: 'p', apiKey: '' } })] },
      [],
      /credentials: apiKey is empty/,
    ],
    [
      'an API key that is not a string',
      { clubs: [club({ credentials: { username: 'u', password: SECRET_PASSWORD, apiKey: 4711 } })] },
      [],
      // the whole clause, not a dangling "expected string, "
      /credentials\.apiKey: Invalid input: expected string\n/,
    ],
    [
      'an API key with a trailing newline',
      {
        clubs: [
          club({ credentials: { username: 'u', password: SECRET_PASSWORD, apiKey: `${SECRET_KEY}\n` } }),
        ],
      },
      [],
      /club 'club-1' credentials: apiKey ends with a newline \(.*echo.*\)/,
    ],
    [
      'an API key with a control character',
      {
        clubs: [
          club({ credentials: { username: 'u', password: SECRET_PASSWORD, apiKey: `k\u0001${SECRET_KEY}` } }),
        ],
      },
      [],
      /club 'club-1' credentials: apiKey contains a control character \(U\+0001\) inside it/,
    ],
    [
      'a username with a colon',
      { clubs: [club({ credentials: { username: 'a:b', password: SECRET_PASSWORD, apiKey: SECRET_KEY } })] },
      [],
      /club 'club-1' credentials: username contains ':'/,
    ],
    [
      'a password with a trailing newline',
      {
        clubs: [
          club({ credentials: { username: 'u', password: `${SECRET_PASSWORD}\n`, apiKey: SECRET_KEY } }),
        ],
      },
      [],
      /club 'club-1' credentials: password ends with a newline/,
    ],
    ['an unknown field', { clubs: [club({ pollEvery: 5 })] }, [], /club 'club-1'.*pollEvery/s],
    ['a page size of 0', { clubs: [club({})] }, ['--page-size', '0'], /--page-size must be >= 1/],
    [
      'an interval that is not a number',
      { clubs: [club({})] },
      ['--interval', 'soon'],
      /--interval must be an integer/,
    ],
    ['an unknown flag', { clubs: [club({})] }, ['--bogus'], /Unknown option '--bogus'/],
    ['an unknown source', { clubs: [club({})] }, ['--source', 'lockers'], /unknown --source 'lockers'/],
    ['an unknown club', { clubs: [club({})] }, ['--club', 'club-9'], /unknown --club club-9/],
    [
      'an impossible backfill date',
      { clubs: [club({})] },
      ['--backfill-from', '2026-02-30'],
      /--backfill-from must be/,
    ],
  ];

  it('rejects each bad input with its message, exit 2, and writes nothing', async () => {
    // Act: every case in parallel (each is a process of its own).
    const results = await Promise.all(
      cases.map(async ([name, content, extra], i) => {
        const path =
          content === undefined ? join(dir, 'does-not-exist.json') : await clubsFile(`case-${i}`, content);
        const eventsFile = join(dir, `events-${i}.jsonl`);
        const table = `hostile-cli-${i}`;
        const result = await cli([
          'poll',
          '--clubs',
          path,
          '--table',
          table,
          '--create-table',
          '--events-file',
          eventsFile,
          '--once',
          ...extra,
        ]);
        return { name, result, eventsFile, table };
      }),
    );
    const { TableNames = [] } = await db.client.send(new ListTablesCommand({}));
    // Assess
    for (const [i, { name, result, eventsFile, table }] of results.entries()) {
      const [, , , message] = cases[i]!;
      expect({ name, code: result.code }).toEqual({ name, code: 2 });
      expect(result.stderr, name).toMatch(message);
      expect(result.stderr, name).toMatch(/^gym-bridge poll: /);
      for (const secret of [SECRET_PASSWORD, SECRET_KEY]) {
        expect(result.stderr + result.stdout, `${name} echoes a credential`).not.toContain(secret);
      }
      expect(await exists(eventsFile), `${name} wrote an events file`).toBe(false);
      expect(TableNames, `${name} created a table`).not.toContain(table);
    }
  }, 120_000);

  it('refuses to start without --bus or --events-file, or with both', async () => {
    const path = await clubsFile('valid', { clubs: [club({})] });
    const [neither, both] = await Promise.all([
      cli(['poll', '--clubs', path, '--once']),
      cli(['poll', '--clubs', path, '--once', '--bus', 'b', '--events-file', join(dir, 'both.jsonl')]),
    ]);
    expect(neither).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/give --bus NAME or --events-file FILE/),
    });
    expect(both).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/either --bus or --events-file, not both/),
    });
    expect(await exists(join(dir, 'both.jsonl'))).toBe(false);
  }, 60_000);
  it('refuses an events file that is a directory or in a missing folder, creating nothing', async () => {
    // Prepare
    const path = await clubsFile('valid-events', { clubs: [club({})] });
    const missingFolder = join(dir, 'not-created');
    const poll = (eventsFile: string, table: string) =>
      cli([
        'poll',
        '--clubs',
        path,
        '--table',
        table,
        '--create-table',
        '--events-file',
        eventsFile,
        '--once',
      ]);
    // Act
    const [folder, noParent] = await Promise.all([
      poll(dir, 'hostile-events-dir'),
      poll(join(missingFolder, 'events.jsonl'), 'hostile-events-missing'),
    ]);
    // Assess
    expect(folder).toMatchObject({
      code: 2,
      stderr: `gym-bridge poll: --events-file ${dir} is a directory: give a file path, e.g. ${join(dir, 'events.jsonl')}\n`,
    });
    expect(noParent).toMatchObject({
      code: 2,
      stderr: `gym-bridge poll: --events-file ${join(missingFolder, 'events.jsonl')}: the folder ${missingFolder} does not exist: create it first (mkdir -p ${missingFolder}) or give a path in an existing folder\n`,
    });
    expect(await exists(missingFolder)).toBe(false);
    const { TableNames = [] } = await db.client.send(new ListTablesCommand({}));
    expect(TableNames).not.toContain('hostile-events-dir');
    expect(TableNames).not.toContain('hostile-events-missing');
  }, 60_000);
});
