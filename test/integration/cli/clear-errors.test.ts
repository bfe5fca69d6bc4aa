/**
 * Errors the CLI used to print raw, now one line saying what is wrong and what to do, with the
 * README's exit code: `sandbox` on a port in use (1, as `start` and `local-aws`), `status` on a table
 * that does not exist (2) or at an endpoint where nothing answers (1). Child processes, real sockets.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUMMY_AWS_ENV, runCli } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { ...DUMMY_AWS_ENV, ...env });

/** Exactly one line on stderr, and no stack trace. */
function oneLine(stderr: string): string {
  expect(stderr).not.toMatch(/\n\s+at /);
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

describe('sandbox on a port in use', () => {
  let blocker: Server;
  let port: number;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => blocker.close(resolve)));

  it('says which port and what to do, exit 1, instead of a bare EADDRINUSE', async () => {
    const result = await cli(['sandbox', '--port', String(port), '--clubs', '1', '--history-days', '0']);
    expect(result.code, result.stderr).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `gym-bridge sandbox: the sandbox cannot listen on port ${port}: the port is already in use. Stop what listens there or choose another --port (0 picks a free port).`,
    );
  }, 60_000);
});

describe('status on a table that is not there', () => {
  let db: Dynalite;
  let dir: string;
  let clubs: string;

  beforeAll(async () => {
    db = await startDynalite();
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-status-'));
    clubs = join(dir, 'clubs.json');
    const credentials = { username: 'u', password: 'p', apiKey: 'k' };
    await writeFile(
      clubs,
      JSON.stringify({
        clubs: [
          {
            clubId: 'c1',
            baseUrl: 'https://api.example.com/v1',
            timeZone: 'UTC',
            plan: 'basic',
            credentials,
          },
        ],
      }),
    );
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a missing table: exit 2 naming the table, where, and what to do (not ResourceNotFoundException)', async () => {
    const result = await cli(['status', '--clubs', clubs, '--table', 'never-polled'], {
      AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(oneLine(result.stderr)).toBe(
      `gym-bridge status: state table 'never-polled' does not exist at ${db.endpoint}: nothing has been polled into it (poll --create-table creates it); check --table and AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB`,
    );
    expect(result.stdout).toBe('');
  }, 60_000);

  it('an endpoint where nothing answers: exit 1, saying where it asked', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const result = await cli(['status', '--clubs', clubs], {
      AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${closed}`,
      AWS_MAX_ATTEMPTS: '1',
    });
    expect(result.code, result.stderr).toBe(1);
    expect(oneLine(result.stderr)).toMatch(
      new RegExp(
        `^gym-bridge status: DynamoDB DescribeTable gym-bridge-state at http://127\\.0\\.0\\.1:${closed} failed: .*ECONNREFUSED.*nothing answers there`,
      ),
    );
  }, 60_000);
});

describe('bad flag values: one line saying what is wrong, exit 2', () => {
  // None gets far enough to open anything.
  const clubsAdd = [
    ...['clubs', 'add', '--club-id', 'c1', '--base-url', 'https://api.example.com/v1'],
    ...['--time-zone', 'UTC', '--plan', 'basic', '--username', 'u', '--api-key', 'k'],
  ];
  const password = { GYM_BRIDGE_PASSWORD: 'p' };
  it.each([
    ['start --speed -1', ['start', '--speed', '-1'], {}, 'gym-bridge start: --speed must be >= 1, got -1'],
    [
      'clubs add --inactive-days -5',
      [...clubsAdd, '--inactive-days', '-5'],
      password,
      "gym-bridge clubs: --inactive-days must be a whole number, got '-5'",
    ],
    [
      'poll --page-size -0.5',
      ['poll', '--clubs', 'x.json', '--events-file', 'e.jsonl', '--page-size', '-0.5'],
      {},
      "gym-bridge poll: --page-size must be an integer, got '-0.5'",
    ],
    [
      'a flag without its value',
      ['sandbox', '--port'],
      {},
      "gym-bridge sandbox: '--port' needs a value (--help lists the flags)",
    ],
    [
      'clubs add --lifecycle off with a threshold',
      [...clubsAdd, '--lifecycle', 'off', '--inactive-days', '30'],
      password,
      'gym-bridge clubs: --inactive-days would have no effect with --lifecycle off (no lifecycle events for the club): drop it, or leave out --lifecycle off',
    ],
  ])(
    '%s',
    async (_name, args, env, message) => {
      const result = await cli(args, env);
      expect(result.code, result.stderr).toBe(2);
      expect(oneLine(result.stderr)).toBe(message);
      expect(result.stdout).toBe('');
    },
    60_000,
  );
});

describe('--help', () => {
  it('lists every command with a line saying what it does', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'start',
      'sandbox',
      'local-aws',
      'poll',
      'status',
      'explain',
      'schemas',
      'clubs',
      'events',
    ])
      expect(stdout).toMatch(new RegExp(`^  ${command} +\\S.{20,}$`, 'm'));
  }, 60_000);

  it('docs/cli.md lists every command --help lists, and every events subcommand, each with its section', async () => {
    // Prepare: the commands as the CLI lists them, not as this test remembers them
    const [top, events, doc] = await Promise.all([
      cli(['--help']),
      cli(['events', '--help']),
      readFile('docs/cli.md', 'utf8'),
    ]);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z-]+) {2,}\S/gm)].map((m) => m[1]!);
    const subcommands = /events <([a-z|]+)>/.exec(events.stdout)?.[1]?.split('|') ?? [];
    expect(commands).toContain('explain');
    expect(subcommands).toEqual(['sample', 'replay', 'match']);
    const table = doc.slice(doc.indexOf('| command |'), doc.indexOf('## For every command'));
    // Assess: a row of the command table links each to its section, which exists
    const named = [...commands.filter((c) => c !== 'events'), ...subcommands.map((s) => `events ${s}`)];
    for (const name of named) {
      const anchor = name.replace(' ', '-');
      expect(table, name).toContain(`[\`${name}\`](#${anchor})`);
      expect(doc, name).toMatch(new RegExp(`^## ${name}$`, 'm'));
    }
  }, 60_000);

  it('events sample --help is the help of events sample, not of every events subcommand', async () => {
    const { code, stdout } = await cli(['events', 'sample', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: npm run --silent cli -- events sample /);
    expect(stdout).toContain('--type TYPE');
    expect(stdout).not.toContain('events replay');
    expect(stdout).not.toContain('events match');
  }, 60_000);
});
