/**
 * `local-aws` as a user runs it: a child process that prints the environment to export; the real
 * AWS SDK, configured only by that environment, makes DynamoDB and PutEvents calls against it; the
 * events it receives are printed and saved. A taken port ends it at once, non-zero. And the README
 * path end to end: local-aws, a live sandbox, `poll --once` twice, events printed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { DescribeEventBusCommand, EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, type CliProcess, killCli, spawnCli } from '../../support/cli-process';

const execFileAsync = promisify(execFile);

/** The variables of the printed `export A=1 B=2 ...` line. */
async function exportedEnv(cli: CliProcess): Promise<Record<string, string>> {
  const [line] = await cli.waitFor(/^export .+$/m);
  const env: Record<string, string> = {};
  for (const pair of line.replace(/^export /, '').split(/\s+/)) {
    const eq = pair.indexOf('=');
    if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** Runs `body` with `env` in process.env, so SDK clients find endpoint, region and credentials there. */
async function withEnv<T>(env: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await body();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function takenPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

let dir: string;
const running: CliProcess[] = [];
const spawn = (args: string[], env: Record<string, string> = {}) => {
  const cli = spawnCli(args, env);
  running.push(cli);
  return cli;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-local-aws-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => killCli(cli)));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('local-aws', () => {
  it('prints the environment; the SDK reaches DynamoDB and EventBridge with it; events are printed and saved', async () => {
    const eventsFile = join(dir, 'received.jsonl');
    const cli = spawn(['local-aws', '--port', '0', '--bus', 'test-bus', '--events-file', eventsFile]);
    const env = await exportedEnv(cli);
    expect(env).toMatchObject({
      AWS_ENDPOINT_URL_DYNAMODB: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      AWS_ENDPOINT_URL_EVENTBRIDGE: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: expect.any(String),
      AWS_SECRET_ACCESS_KEY: expect.any(String),
    });
    expect(cli.stdout()).toMatch(/bus +test-bus/);

    // Endpoint, region and credentials from the environment alone, as `poll` gets them.
    await withEnv(env, async () => {
      const dynamo = new DynamoDBClient({});
      const events = new EventBridgeClient({});
      try {
        await dynamo.send(
          new CreateTableCommand({
            TableName: 'local-aws-check',
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          }),
        );
        // As against DynamoDB, a new table is CREATING for a moment: wait for ACTIVE before writing.
        await waitUntilTableExists(
          { client: dynamo, maxWaitTime: 20, minDelay: 0.1, maxDelay: 0.5 },
          { TableName: 'local-aws-check' },
        );
        await dynamo.send(
          new PutItemCommand({ TableName: 'local-aws-check', Item: { pk: { S: 'a' }, n: { N: '1' } } }),
        );
        const got = await dynamo.send(
          new GetItemCommand({ TableName: 'local-aws-check', Key: { pk: { S: 'a' } } }),
        );
        expect(got.Item?.n?.N).toBe('1');
        // Beside the one made here, the webhook table local-aws delivers from (docs/webhooks.md, Locally).
        expect((await dynamo.send(new ListTablesCommand({}))).TableNames).toEqual([
          'gym-bridge-webhooks',
          'local-aws-check',
        ]);

        const bus = await events.send(new DescribeEventBusCommand({ Name: 'test-bus' }));
        expect(bus.Arn).toMatch(/event-bus\/test-bus$/);
        const put = await events.send(
          new PutEventsCommand({
            Entries: [
              {
                EventBusName: 'test-bus',
                Source: 'gym-bridge',
                DetailType: 'Member Visit Recorded',
                Detail: JSON.stringify({
                  clubId: 'club-9',
                  occurredAt: '2026-11-22T19:14:05.000Z',
                  subject: { memberNumber: '100231' },
                  door: 'Main Entrance',
                }),
              },
            ],
          }),
        );
        expect(put.FailedEntryCount).toBe(0);
      } finally {
        dynamo.destroy();
        events.destroy();
      }
    });

    const [printed] = await cli.waitFor(/^.*Member Visit Recorded.*$/m);
    expect(printed).toContain('test-bus');
    expect(printed).toContain('club-9');
    expect(printed).toContain('member 100231');
    const saved = (await readFile(eventsFile, 'utf8')).trim().split('\n');
    expect(saved).toHaveLength(1);
    expect(JSON.parse(saved[0] ?? '')).toMatchObject({
      eventBusName: 'test-bus',
      source: 'gym-bridge',
      detailType: 'Member Visit Recorded',
      detail: { clubId: 'club-9' },
    });

    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);
    expect(cli.stdout()).toContain('local AWS endpoints stopped');
  });

  it.each([
    ['--eventbridge-port', 'the EventBridge endpoint'],
    ['--dynamodb-port', 'the DynamoDB endpoint'],
  ])(
    'exits 1 at once when %s is taken, naming the port',
    async (flag, what) => {
      const { server, port } = await takenPort();
      try {
        const other = flag === '--dynamodb-port' ? '--eventbridge-port' : '--dynamodb-port';
        const started = Date.now();
        const cli = spawn(['local-aws', flag, String(port), other, '0', '--secretsmanager-port', '0']);
        const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref());
        expect(await Promise.race([cli.exit, hung]), cli.stdout()).toBe(1);
        expect(Date.now() - started).toBeLessThan(20_000);
        expect(cli.stderr()).toContain(`${what} cannot listen on port ${port}`);
        expect(cli.stderr()).toMatch(/already in use/);
        expect(cli.stderr()).toContain(flag);
        expect(cli.stdout()).not.toMatch(/^export /m);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
    30_000,
  );

  it('exits 2 on a bad flag, an events file that is a directory, or a bad bus name', async () => {
    for (const [args, message] of [
      [['--port', 'x'], /--port must be an integer/],
      [['--port', '0', '--events-file', dir], /is a directory/],
      [['--port', '0', '--bus', 'bad bus!'], /not an event bus name/],
    ] as const) {
      const cli = spawn(['local-aws', ...args]);
      expect(await cli.exit).toBe(2);
      expect(cli.stderr()).toMatch(message);
    }
  }, 60_000);
});

describe('the README path: local-aws, a live sandbox, poll twice, events printed', () => {
  it('the second poll publishes events that local-aws prints', async () => {
    const clubsFile = join(dir, 'clubs.json');
    const started = Date.now();
    const aws = spawn(['local-aws', '--port', '0']);
    const sandbox = spawn([
      'sandbox',
      '--port',
      '0',
      '--clubs',
      '2',
      '--members',
      '100',
      // No history: at the activity scale below a day of it is ~30,000 records, and the baseline
      // poll spent 20 s reading them.
      '--history-days',
      '0',
      '--live',
      '--open-24h',
      // ~9 visits a minute per club: the test waits seconds, not the ~30 s a scale of 60 averaged
      // (it once waited out its 40 s cap under CI load and polled before anything had happened).
      '--activity-scale',
      '300',
      '--write-clubs',
      clubsFile,
    ]);
    const env = await exportedEnv(aws);
    const [, apiUrl] = await sandbox.waitFor(/gym API sandbox at (http:\S+)\/v1/);
    await sandbox.waitFor(/clubs file written/);

    const poll = (extra: string[] = []) =>
      execFileAsync(
        process.execPath,
        [...CLI_ENTRY, 'poll', '--clubs', clubsFile, '--bus', 'gym-bridge-local', '--once', ...extra],
        { cwd: process.cwd(), env: { ...process.env, ...env }, timeout: 60_000 },
      );
    const journal = async (since: number) =>
      (await (await fetch(`${apiUrl}/__admin/journal?since=${since}`)).json()) as {
        lastSeq: number;
        entries: { kind: string }[];
      };

    const baseline = await poll(['--create-table']);
    expect(baseline.stdout).toMatch(/club-1: ok/);
    expect(baseline.stdout).toMatch(/baseline recorded/);
    // A visit in the sandbox after the baseline: the next poll has something to report.
    const { lastSeq } = await journal(0);
    const deadline = Date.now() + 60_000;
    let visited = false;
    while (!visited && Date.now() < deadline) {
      visited = (await journal(lastSeq)).entries.some((e) => e.kind === 'visit');
      if (!visited) await new Promise((r) => setTimeout(r, 200));
    }
    expect(visited, 'the live sandbox made a visit after the baseline').toBe(true);
    const second = await poll();
    expect(second.stdout).toMatch(/club-1: ok/);
    expect(second.stdout).toMatch(/[1-9]\d* events?/);

    await aws.waitFor(/gym-bridge-local {2}\S.* club-\d/, 10_000);

    // A mistyped bus: exit 2 at once, saying so (local-aws has only the buses it was given).
    const typo = await poll(['--bus', 'gym-bridge-locl']).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stderr).toContain("event bus 'gym-bridge-locl' does not exist at");

    // The bus's archive, replayed: local-aws prints every event again, marked with the replay.
    const live = aws.stdout().match(/^\S+ {2}gym-bridge-local .*$/gm)!.length;
    const replay = await execFileAsync(
      process.execPath,
      [
        ...[...CLI_ENTRY, 'events', 'replay', '--bus', 'gym-bridge-local'],
        ...['--from', new Date(started - 60_000).toISOString(), '--to', 'now', '--interval', '1'],
      ],
      { cwd: process.cwd(), env: { ...process.env, ...env }, timeout: 60_000 },
    );
    expect(replay.stdout).toMatch(/replay gym-bridge-\S+ started: archive gym-bridge-local-archive/);
    expect(replay.stdout).toMatch(/COMPLETED/);
    const replayed = () => aws.stdout().match(/\(replay gym-bridge-\S+\)$/gm)?.length ?? 0;
    for (let i = 0; i < 100 && replayed() < live; i++) await new Promise((r) => setTimeout(r, 100));
    expect(replayed()).toBe(live);
  }, 180_000);
});

describe('clubs add against local-aws', () => {
  it('writes the secret and the club: clubs list shows it, the secret is in local Secrets Manager', async () => {
    const aws = spawn(['local-aws', '--port', '0', '--quiet']);
    const env = await exportedEnv(aws);
    expect(env.AWS_ENDPOINT_URL_SECRETS_MANAGER).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const cli = (args: string[], extra: Record<string, string> = {}) =>
      execFileAsync(process.execPath, [...CLI_ENTRY, ...args], {
        cwd: process.cwd(),
        env: { ...process.env, ...env, ...extra },
        timeout: 60_000,
      });
    // The state table, as a poll makes it
    await withEnv(env, async () => {
      const { createStateTable } = await import('../../../lambdas/state/table');
      const dynamo = new DynamoDBClient({});
      try {
        await createStateTable(dynamo, 'local-clubs');
      } finally {
        dynamo.destroy();
      }
    });
    const add = await cli(
      [
        ...['clubs', 'add', '--table', 'local-clubs', '--club-id', 'club-7', '--base-url'],
        ...['https://api.example.com/v1', '--time-zone', 'Australia/Sydney', '--plan', 'basic'],
        ...['--username', 'integrator', '--api-key', 'local-key-7'],
      ],
      { GYM_BRIDGE_PASSWORD: 'local-password' },
    );
    expect(add.stdout).toMatch(/club-7: added \(basic, Australia\/Sydney; secret gym-bridge\/clubs\/club-7 /);
    // A shared secret: created, then a second club merged in (the compare-and-swap on version
    // stages: GYMBRIDGE_PENDING, then AWSCURRENT moved with UpdateSecretVersionStage)
    const shared = (clubId: string) =>
      cli(
        [
          ...['clubs', 'add', '--table', 'local-clubs', '--club-id', clubId, '--base-url'],
          ...['https://api.example.com/v1', '--time-zone', 'Australia/Sydney', '--plan', 'basic'],
          ...['--username', 'chain-login', '--api-key', `key-${clubId}`, '--shared-secret', 'chain'],
        ],
        { GYM_BRIDGE_PASSWORD: 'chain-password' },
      );
    expect((await shared('chain-1')).stdout).toContain(
      'shared secret gym-bridge/clubs/chain created: 1 club key written',
    );
    expect((await shared('chain-2')).stdout).toContain(
      'shared secret gym-bridge/clubs/chain updated: 1 club key written',
    );
    const list = await cli(['clubs', 'list', '--table', 'local-clubs', '--json']);
    expect(
      JSON.parse(list.stdout)
        .map((c: { clubId: string }) => c.clubId)
        .sort(),
    ).toEqual(['chain-1', 'chain-2', 'club-7']);
    expect(list.stdout).not.toContain('local-password');
    aws.child.kill('SIGTERM');
    expect(await aws.exit).toBe(0);
    expect(aws.stdout()).toMatch(/local AWS endpoints stopped: 0 events received, 2 secrets held/);
  }, 120_000);
});
