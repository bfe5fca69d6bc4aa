/**
 * An upstream that echoes back exactly the credentials it receives, in the forms a real API may
 * write them: the Basic value without its `Basic ` prefix, `username:password`, the password
 * URL-encoded and JSON-escaped, the bearer token or only its signature, the API key, in error
 * bodies of POST /token and of data calls (401, 400, 500) and inside the records of a 200 page.
 * An echo proxy in front of the sandbox answers with what each request carried. The engine polls
 * through it with every log line captured; then `poll --once` and `status` run as a user runs them.
 * No form of any credential may appear in a log line, an event, the state table, a poll report,
 * `status` or the CLI's output.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { type ClubReport, pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { captureLogs } from '../../support/log-capture';

const USERNAME = 'chain-integrator';
const PASSWORD = 'S3cret pa$$/wörd"&+';

type Echo = (received: { basic?: string; bearer?: string; apiKey?: string }) => {
  status: number;
  body: string;
  contentType?: string;
};

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const pairOf = (basic: string) => Buffer.from(basic, 'base64').toString('utf8');

/** What the proxy answers, one per request, in turn (the rest go to the sandbox). */
const TOKEN_ECHOES: Echo[] = [
  ({ basic }) => ({ status: 401, body: JSON.stringify({ Message: `Invalid credentials ${basic}` }) }),
  ({ basic }) => ({ status: 401, body: `refused login ${pairOf(basic!)}`, contentType: 'text/plain' }),
  ({ basic }) => ({
    status: 401,
    body: JSON.stringify({
      error: 'invalid_client',
      error_description: `password=${encodeURIComponent(pairOf(basic!).split(':')[1]!)}`,
    }),
  }),
];
const DATA_ECHOES: Echo[] = [
  ({ bearer, apiKey }) => ({
    status: 401,
    body: JSON.stringify({ Message: `token ${bearer} expired; key ${encodeURIComponent(apiKey!)}` }),
  }),
  ({ bearer, apiKey }) => ({
    status: 400,
    body: JSON.stringify({ Message: `bad request for key=${apiKey} sig=${bearer!.split('.')[2]}` }),
  }),
  ({ apiKey }) => ({
    status: 500,
    body: `<html><body>Error for "${JSON.stringify(PASSWORD).slice(1, -1)}" and ${apiKey}</body></html>`,
    contentType: 'text/html',
  }),
];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('credentials echoed by the upstream never leave', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let proxy: Server;
  let dir: string;
  let clubsFile: string;
  let tableName: string;
  let logText = '';
  let cliText = '';
  const reports: ClubReport[] = [];
  const sink = new MemorySink();
  /** Every credential the proxy received. */
  const received = { basic: new Set<string>(), bearer: new Set<string>(), apiKey: new Set<string>() };
  const echoes = { token: 0, data: 0, records: 0, recordsOn: false };

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: URL,
    rewrite?: (body: string) => string,
  ) {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        if (!rewrite) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        let body = '';
        answer.setEncoding('utf8');
        answer.on('data', (c: string) => {
          body += c;
        });
        answer.on('end', () => {
          const out = rewrite(body);
          res.writeHead(answer.statusCode ?? 502, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(out),
          });
          res.end(out);
        });
      },
    );
    req.pipe(upstream);
  }

  beforeAll(async () => {
    db = await startDynalite();
    sandbox = await startSandbox({
      seed: 43,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', members: 60, open24h: true }],
      historyDays: 1,
      integrator: { username: USERNAME, password: PASSWORD },
      activityScale: 5,
      // The proxy below rewrites pages as JSON: the sandbox answers it uncompressed.
      compression: 'none',
      // The last 08:00 UTC (18:00 or 19:00 in Sydney): the polls below run through the club's busy
      // evening whatever the hour the suite runs at (from 22:00 in Sydney they met no visit).
      startTime: new Date(Math.floor((Date.now() - 8 * HOUR) / DAY) * DAY + 8 * HOUR).toISOString(),
    });
    const target = new URL(sandbox.url);
    proxy = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      const basic = /^Basic (.+)$/.exec(auth)?.[1];
      const bearer = /^Bearer (.+)$/.exec(auth)?.[1];
      const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
      if (basic) received.basic.add(basic);
      if (bearer) received.bearer.add(bearer);
      if (apiKey) received.apiKey.add(apiKey);
      const isToken = req.url?.endsWith('/token');
      const echo = isToken ? TOKEN_ECHOES[echoes.token++] : DATA_ECHOES[echoes.data++];
      if (echo) {
        req.resume();
        const answer = echo({
          ...(basic ? { basic } : {}),
          ...(bearer ? { bearer } : {}),
          ...(apiKey ? { apiKey } : {}),
        });
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
        res.end(answer.body);
        return;
      }
      if (!isToken && echoes.recordsOn && req.url?.includes('/members/attendance/visits')) {
        echoes.records++;
        // A good page whose records quote the credentials of the request.
        forward(req, res, target, (body) => {
          const page = JSON.parse(body) as { data: Record<string, unknown>[] };
          for (const record of page.data)
            record.ScanSource = `kiosk key=${apiKey} auth=${bearer} login=${b64(`${USERNAME}:${PASSWORD}`)}`;
          return JSON.stringify(page);
        });
        return;
      }
      forward(req, res, target);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-echo-'));
    clubsFile = join(dir, 'clubs.json');
    await sandbox.writeClubsFile(clubsFile);
    const file = JSON.parse(await readFile(clubsFile, 'utf8')) as { clubs: { baseUrl: string }[] };
    for (const c of file.clubs) c.baseUrl = `http://127.0.0.1:${port}/v1`;
    await writeFile(clubsFile, JSON.stringify(file), { mode: 0o600 });
    const club = parseClubsFile(file)[0]!;
    tableName = await createTestTable(db.client, 'echo');
    const now = () => sandbox.clock.now().getTime();
    const store = new DynamoDbStateStore({ client: db.client, tableName, now });

    // Act 1: the engine, DEBUG logs captured; a new token provider each poll, so /token is asked
    const logs = captureLogs();
    try {
      for (let i = 0; i < 10; i++) {
        // After the echoes of errors and a baseline: pages whose records quote the credentials.
        echoes.recordsOn = i >= 7;
        const clients = new GymApiClientFactory({ retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 } });
        reports.push(
          await pollClub({ store, sink, clients, owner: 'echo', now }, club, {
            deadlineMs: Date.now() + 20_000,
            ignorePause: true,
          }),
        );
        sandbox.advance(30 * 60_000);
      }
    } finally {
      logs.stop();
    }
    logText = JSON.stringify(logs.lines);

    // Act 2: the CLI as a user runs it, then status; the echoes start over
    echoes.token = 0;
    echoes.data = 0;
    echoes.recordsOn = false;
    const cli = async (args: string[]) => {
      const out = await runCli(args, localAwsEnv(db.endpoint));
      return out.stdout + out.stderr;
    };
    const table = ['--table', 'echo-cli', '--create-table'];
    for (let i = 0; i < 3; i++) {
      cliText += await cli([
        'poll',
        '--clubs',
        clubsFile,
        ...table,
        '--events-file',
        join(dir, 'e.jsonl'),
        '--once',
        '--resume',
        '--log-level',
        'debug',
      ]);
    }
    cliText += await cli(['status', '--clubs', clubsFile, '--table', 'echo-cli']);
    cliText += await cli(['status', '--clubs', clubsFile, '--table', 'echo-cli', '--json']);
    cliText += await readFile(join(dir, 'e.jsonl'), 'utf8').catch(() => '');
  }, 180_000);

  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await sandbox?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Every credential the proxy saw, in every form the echoes wrote it in. */
  function secrets(): string[] {
    const out = new Set<string>([
      PASSWORD,
      JSON.stringify(PASSWORD).slice(1, -1),
      encodeURIComponent(PASSWORD),
    ]);
    for (const basic of received.basic) for (const v of [basic, pairOf(basic)]) out.add(v);
    for (const token of received.bearer) for (const v of [token, token.split('.')[2]!]) out.add(v);
    for (const key of received.apiKey) for (const v of [key, encodeURIComponent(key)]) out.add(v);
    return [...out].filter((s) => s.length >= 4);
  }

  const tableText = async () => {
    const items = (await db.client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
    const cursors = items
      .filter((i) => i.sk?.S === 'STATE' && i.c?.B)
      .map((i) => gunzipSync(i.c!.B!).toString('utf8'));
    return `${JSON.stringify(items)}\n${cursors.join('\n')}`;
  };

  it('really echoed: every echo was served, failures were recorded, records quoting credentials were published', () => {
    expect(echoes.token).toBeGreaterThanOrEqual(TOKEN_ECHOES.length);
    expect(echoes.records).toBeGreaterThanOrEqual(2);
    expect(received.bearer.size).toBeGreaterThan(0);
    expect(reports.flatMap((r) => r.failures.map((f) => f.kind))).toEqual(expect.arrayContaining(['auth']));
    expect(logText).toContain('source poll failed');
    expect(sink.events.some((e) => JSON.stringify(e).includes('kiosk key=[redacted]'))).toBe(true);
    expect(cliText).toMatch(/lastError|failing|auth/);
  });

  it('no form of any credential in a log line, an event, a poll report or the state table', async () => {
    const text = `${logText}\n${JSON.stringify(sink.events)}\n${JSON.stringify(reports)}\n${await tableText()}`;
    for (const secret of secrets())
      expect(text.includes(secret), `leaked: ${secret.slice(0, 3)}…`).toBe(false);
  });

  it('no form of any credential in what poll --once, status or the events file show', () => {
    for (const secret of secrets())
      expect(cliText.includes(secret), `leaked: ${secret.slice(0, 3)}…`).toBe(false);
  });
});
