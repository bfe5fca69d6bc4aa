/**
 * Property-based, the whole engine over a real socket (issue 32): a tiny upstream on 127.0.0.1
 * echoes a credential of the request (the API key, the bearer token, the username, the password,
 * the Basic value, `username:password`) written in arbitrary JSON escapes (test/support/
 * credential-echoes.ts) into arbitrary strings of the records of all eight operations (values, new
 * fields, keys, nested values, `href`, `next`), or into an error body of any status, or into the
 * token response. pollClub polls it with dynalite as the table and every log line captured; the
 * credential must be in no event, quarantined record, snapshot, seen key, cursor or any other
 * table item, no log line and no poll report, in any form a reader could decode (test/support/
 * credential-leaks.ts). Records that quoted it still arrive (published or quarantined).
 *
 * Then the CLI as a user runs it (`poll --once`, `status`, `explain`) against the same upstream:
 * nothing it prints or writes holds a credential either.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { type ClubReport, pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../../lambdas/gym-api/operations';
import { SOURCE_ORDER } from '../../../lambdas/sources';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { localAwsEnv, runCli } from '../../support/cli-process';
import {
  credentialsArbitrary,
  type Echo,
  type EchoCredentials,
  echoArbitrary,
  echoLiteral,
  escapeJson,
  namedCredentials,
  pageWithEcho,
  RECORD_TEMPLATES,
} from '../../support/credential-echoes';
import { credentialForms, findCredentials } from '../../support/credential-leaks';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { captureLogs } from '../../support/log-capture';

const START = Date.parse('2026-05-04T08:00:00Z');
const RECORD_AT = START - 10 * 60_000;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly type: string;
}

/** What the upstream answers: per operation (absent: an empty page) and for /token. */
interface Script {
  credentials: EchoCredentials;
  token?: (c: EchoCredentials) => Answer;
  data: Partial<Record<OperationName, (url: URL) => Answer>>;
}

const json = (body: string, status = 200): Answer => ({
  status,
  body,
  type: 'application/json; charset=utf-8',
});

const goodToken = (c: EchoCredentials) =>
  json(`{"AccessToken":"${escapeJson(c.token, { kind: 'minimal' })}","ExpiresIn":3600,"TokenType":"Bearer"}`);

const OPERATION_AT = new Map<string, OperationName>(
  OPERATION_NAMES.map((op) => [`/v1${OPERATIONS[op].path}`, op]),
);

function answer(script: Script, req: IncomingMessage): Answer {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
  const c = script.credentials;
  if (url.pathname === '/v1/token') return (script.token ?? goodToken)(c);
  const op = OPERATION_AT.get(url.pathname);
  if (!op) return json('{"Message":"not found"}', 404);
  // The credentials really travel: a request without them is refused, as a real API does.
  if (req.headers['x-api-key'] !== c.apiKey || req.headers.authorization !== `Bearer ${c.token}`)
    return json('{"Message":"Authorization has been denied for this request."}', 401);
  const page = script.data[op];
  if (!page || url.searchParams.get('offset') !== '0')
    return json(JSON.stringify({ href: url.href, data: [] }));
  return page(url);
}

function nextOf(url: URL): string {
  const next = new URL(url);
  next.searchParams.set('offset', String(Number(url.searchParams.get('offset') ?? 0) + 100));
  return next.href;
}

/**
 * Three records of `op` (minutes after `atMs`), one of them (or a link) quoting the credential as
 * `echo` writes it.
 */
const recordsPage =
  (op: OperationName, echo: Echo, c: EchoCredentials, seed: number, atMs = RECORD_AT) =>
  (url: URL) =>
    json(
      pageWithEcho(
        [1, 2, 3].map((i) => RECORD_TEMPLATES[op](seed * 10 + i, atMs + i * 60_000)),
        echo,
        c,
        { href: url.href, next: nextOf(url) },
        seed,
      ),
    );

const ERROR_BODIES: readonly ((lit: string) => string)[] = [
  (lit) => `{"Message":"${lit}"}`,
  (lit) =>
    `{"Message":"An error has occurred.","ExceptionMessage":"${lit}","ExceptionType":"System.Exception"}`,
  (lit) => `{"error":{"code":"denied","detail":"${lit}"}}`,
  (lit) => `<html><body><h1>Error</h1><pre>${lit}</pre></body></html>`,
];

const TOKEN_ANSWERS: readonly ((c: EchoCredentials, lit: string) => Answer)[] = [
  (c, lit) =>
    json(
      `{"AccessToken":"${escapeJson(c.token, { kind: 'minimal' })}","ExpiresIn":3600,"TokenType":"${lit}"}`,
    ),
  (_c, lit) => json(`{"Message":"${lit}"}`, 401),
  (_c, lit) => json(`{"error":"invalid_client","error_description":"${lit}"}`, 400),
  (_c, lit) => json(`{"error":{"message":"${lit}"}}`, 500),
];

describe('credentials echoed with JSON escapes reach nothing the bridge writes', () => {
  let db: Dynalite;
  let server: Server;
  let baseUrl: string;
  let tableName: string;
  const script: Script = {
    credentials: {
      apiKey: 'unset-key-1',
      username: 'unset-user',
      password: 'unset-pass',
      token: 'unset-tok',
    },
    data: {},
  };

  beforeAll(async () => {
    db = await startDynalite();
    tableName = await createTestTable(db.client, 'escaped');
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      const a = answer(script, req);
      res.writeHead(a.status, { 'content-type': a.type, 'content-length': Buffer.byteLength(a.body) });
      res.end(a.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await db?.close();
  });

  const clubFile = (clubId: string, c: EchoCredentials) => ({
    clubs: [
      {
        clubId,
        baseUrl,
        timeZone: 'Australia/Brisbane',
        plan: 'basic',
        piiPolicy: 'full',
        unstatedZone: 'local',
        unstatedZoneConfirmed: true,
        sources: [...SOURCE_ORDER],
        credentials: { username: c.username, password: c.password, apiKey: c.apiKey },
      },
    ],
  });

  /** Every item of the table (the runs before included: their credentials differ). */
  const tableItems = async () =>
    (await db.client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];

  let runs = 0;
  it('in records of every operation, in error bodies and in token responses', async () => {
    await fc.assert(
      fc.asyncProperty(
        credentialsArbitrary,
        fc.constantFrom('records', 'errors', 'token'),
        fc.tuple(...OPERATION_NAMES.map(() => echoArbitrary)),
        fc.tuple(...OPERATION_NAMES.map(() => fc.constantFrom(400, 401, 403, 404, 500, 503))),
        fc.nat({ max: 100 }),
        async (c, mode, echoes, statuses, seed) => {
          // Prepare: a new club; a silent baseline of empty pages, then the echoes
          const clubId = `club-${++runs}`;
          const club = parseClubsFile(clubFile(clubId, c))[0]!;
          const store = new DynamoDbStateStore({ client: db.client, tableName, now: () => START });
          const sink = new MemorySink();
          const poll = () =>
            pollClub(
              {
                store,
                sink,
                clients: new GymApiClientFactory({
                  retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 1 },
                }),
                owner: 'escaped',
                now: () => START,
              },
              club,
              { deadlineMs: Date.now() + 30_000, ignorePause: true },
            );
          Object.assign(script, { credentials: c, data: {}, token: undefined });
          const reports: ClubReport[] = [];
          const logs = captureLogs();
          try {
            reports.push(await poll());
            OPERATION_NAMES.forEach((op, i) => {
              const echo = echoes[i]!;
              if (mode === 'records') script.data[op] = recordsPage(op, echo, c, seed + i);
              else if (mode === 'errors') {
                const body = ERROR_BODIES[(seed + i) % ERROR_BODIES.length]!(echoLiteral(echo, c));
                script.data[op] = () => json(body, statuses[i]!);
              }
            });
            if (mode === 'token') {
              const echo = echoes[0]!;
              script.token = (creds) =>
                TOKEN_ANSWERS[seed % TOKEN_ANSWERS.length]!(creds, echoLiteral(echo, creds));
            }
            // Act
            reports.push(await poll());
          } finally {
            logs.stop();
          }
          // Assess
          const forms = credentialForms(namedCredentials(c));
          const found = [
            ...findCredentials('event', sink.events, forms),
            ...findCredentials('report', reports, forms),
            ...findCredentials('table', await tableItems(), forms),
            ...findCredentials('log', logs.lines, forms),
          ];
          expect(found, `${mode}: ${JSON.stringify(echoes.map((e) => [e.credential, e.placement]))}`).toEqual(
            [],
          );
          const last = reports[1]!;
          if (mode === 'records') {
            // Nothing lost: every source completed, its records published or quarantined.
            expect(last.failures, JSON.stringify(last.failures)).toEqual([]);
            for (const s of last.sources) expect(s.events + s.quarantined, s.source).toBeGreaterThan(0);
          } else if (mode === 'errors') {
            expect(last.failures.length + (last.outcome === 'paused' ? 1 : 0)).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 16 },
    );
  }, 300_000);

  it('in what the CLI prints and writes: poll --once, status, explain, the events file', async () => {
    // Prepare: a clubs file for the upstream, the credentials of a .NET-style API
    const c: EchoCredentials = {
      apiKey: 'k3Y+/Zq7"fP2\\mLx9&<w>',
      username: 'integrator-7Hq2',
      password: 'S3cret pa$$/wörd"&+\u{1F600}',
      token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLWxvbmctZW5vdWdo',
    };
    const dir = await mkdtemp(join(tmpdir(), 'gym-bridge-escaped-'));
    try {
      const clubsFile = join(dir, 'clubs.json');
      await writeFile(clubsFile, JSON.stringify(clubFile('club-cli', c)), { mode: 0o600 });
      const events = join(dir, 'events.jsonl');
      Object.assign(script, { credentials: c, data: {}, token: undefined });
      const cli = async (args: string[]) => {
        const out = await runCli(args, localAwsEnv(db.endpoint), { timeoutMs: 90_000 });
        return `${out.stdout}\n${out.stderr}`;
      };
      const poll = [
        'poll',
        '--clubs',
        clubsFile,
        '--table',
        'escaped-cli',
        '--events-file',
        events,
        '--once',
      ];
      // Every operation's records quote a credential, each written another way (published on the
      // first run by a backfill); then every operation answers an error that quotes one
      const styles = [
        { kind: 'all', upper: false },
        { kind: 'dotnet' },
        { kind: 'slash' },
        { kind: 'all', upper: true },
        { kind: 'some', choices: [0, 3, 1, 2] },
      ] as const;
      const names = ['apiKey', 'password', 'basicValue', 'username', 'login', 'token'] as const;
      const placements = ['value', 'extra', 'key', 'nested', 'href', 'next'] as const;
      OPERATION_NAMES.forEach((op, i) => {
        const echo: Echo = {
          credential: names[i % names.length]!,
          style: styles[i % styles.length]!,
          placement: placements[i % placements.length]!,
          before: i % 2 ? '\\uD83D\\uDE00' : 'key=',
          after: i % 3 ? ' ' : '\\/',
        };
        script.data[op] = recordsPage(op, echo, c, i, Date.now() - 10 * 60_000);
      });
      const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z';
      let output = await cli([...poll, '--create-table', '--backfill-from', since, '--log-level', 'debug']);
      for (const [i, op] of OPERATION_NAMES.entries()) {
        const lit = echoLiteral(
          {
            credential: names[i % names.length]!,
            style: styles[(i + 1) % styles.length]!,
            placement: 'value',
            before: '',
            after: '',
          },
          c,
        );
        script.data[op] = () =>
          json(ERROR_BODIES[i % ERROR_BODIES.length]!(lit), [400, 401, 500, 403][i % 4]!);
      }
      output += await cli([...poll, '--log-level', 'debug']);
      output += await cli(['status', '--clubs', clubsFile, '--table', 'escaped-cli', '--json']);
      // The members' page quoted a credential in M1's record: what explain shows of it.
      output += await cli([
        'explain',
        '--clubs',
        clubsFile,
        '--table',
        'escaped-cli',
        '--club',
        'club-cli',
        '--member',
        'M1',
      ]);
      const written = await readFile(events, 'utf8');
      // Act done; Assess
      const forms = credentialForms(namedCredentials(c));
      expect(written).toMatch(/Member Visit Recorded/);
      expect(findCredentials('cli output', output, forms)).toEqual([]);
      expect(findCredentials('events file', written, forms)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
