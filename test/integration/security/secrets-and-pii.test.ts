/**
 * Secrets and personal data, end to end. The engine polls the sandbox for a simulated day (clubs
 * with good credentials, a wrong API key, a wrong password, 5xx, and an upstream that echoes the
 * credentials back in its error bodies), with every log line captured at DEBUG, every event taken
 * off a local EventBridge endpoint, and the whole state table read back. None of it may contain a
 * password, an API key, a Basic header or a bearer token the sandbox issued; and with the minimal
 * PII policy no event carries an email, phone, address or date of birth of any member or prospect,
 * and class attendance events carry only the allow-listed fields (no instructor's name).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { logger } from '../../../lambdas/common/logger';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { type ClubReport, pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { MINIMAL_ALLOW_LISTS } from '../../../lambdas/events/pii-allow-lists';
import { EventBridgeSink, MemorySink } from '../../../lambdas/events/publisher';
import type { FetchFn } from '../../../lambdas/gym-api';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

const HOUR = 3_600_000;
const WRONG_PASSWORD = 'Wr0ng-Passw0rd-for-the-test';
const WRONG_API_KEY = 'ffffeeeeddddccccbbbbaaaa99998888';

/** Everything written to stdout/stderr while `run` runs (the Powertools logger writes there). */
async function captureOutput<T>(run: () => Promise<T>): Promise<{ result: T; output: string }> {
  const chunks: string[] = [];
  const original = { out: process.stdout.write, err: process.stderr.write };
  const record = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  process.stdout.write = record as typeof process.stdout.write;
  process.stderr.write = record as typeof process.stderr.write;
  try {
    const result = await run();
    return { result, output: chunks.join('') };
  } finally {
    process.stdout.write = original.out;
    process.stderr.write = original.err;
  }
}

describe('no secret in logs, events or state; no personal data in minimal-policy events', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let bus: LocalEventBridge;
  let eventBridge: EventBridgeClient;
  let tableName: string;
  let output = '';
  const reports: ClubReport[] = [];
  /** Every AccessToken the sandbox issued during the run. */
  const issuedTokens: string[] = [];
  /** Every Authorization header the client sent. */
  const sentAuthorizations = new Set<string>();
  let clubs: { good: ClubConfig[]; badKey: ClubConfig; badPassword: ClubConfig };

  beforeAll(async () => {
    db = await startDynalite();
    bus = await startLocalEventBridge();
    eventBridge = new EventBridgeClient({
      endpoint: bus.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    sandbox = await startSandbox({
      seed: 31,
      clubs: [
        { clubId: 'club-1', timeZone: 'Australia/Sydney', members: 80, open24h: true },
        { clubId: 'club-2', timeZone: 'Europe/London', members: 80, open24h: true },
      ],
      historyDays: 2,
      startTime: '2026-07-01T20:00:00Z',
      activityScale: 5,
    });
    tableName = await createTestTable(db.client, 'security');
    const [one, two] = parseClubsFile(sandbox.clubsFile());
    clubs = {
      // club-1 keeps the default (minimal) policy; club-2 opts in to full, as a control.
      good: [one!, { ...two!, piiPolicy: 'full' }],
      badKey: {
        ...one!,
        clubId: 'club-bad-key',
        credentials: { ...one!.credentials, apiKey: WRONG_API_KEY },
      },
      badPassword: {
        ...two!,
        clubId: 'club-bad-password',
        credentials: { ...two!.credentials, password: WRONG_PASSWORD },
      },
    };

    const recordingFetch: FetchFn = async (input, init) => {
      const auth = new Headers(init?.headers).get('authorization');
      if (auth) sentAuthorizations.add(auth);
      const response = await fetch(input, init);
      if (String(input).endsWith('/token') && response.ok) {
        const body = (await response.clone().json()) as { AccessToken?: string };
        if (body.AccessToken) issuedTokens.push(body.AccessToken);
      }
      return response;
    };
    const store = new DynamoDbStateStore({
      client: db.client,
      tableName,
      now: () => sandbox.clock.now().getTime(),
    });
    const sink = new EventBridgeSink({ client: eventBridge, busName: 'security', baseDelayMs: 1 });
    const clients = new GymApiClientFactory({
      fetch: recordingFetch,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    const pollAll = async (list: ClubConfig[]) => {
      for (const club of list) {
        reports.push(
          await pollClub(
            { store, sink, clients, owner: 'security', now: () => sandbox.clock.now().getTime() },
            club,
            {
              deadlineMs: Date.now() + 30_000,
              ignorePause: true,
            },
          ),
        );
      }
    };

    // Act: everything below runs with DEBUG logs captured.
    logger.setLogLevel('DEBUG');
    try {
      ({ output } = await captureOutput(async () => {
        logger.debug('capture canary');
        await pollAll(clubs.good); // silent baseline
        for (let round = 0; round < 6; round++) {
          sandbox.advance(4 * HOUR);
          if (round === 1) sandbox.faults.errorRate5xx = 0.3;
          if (round === 2) {
            sandbox.faults.errorRate5xx = 0;
            // An upstream that echoes the credentials back in its error bodies.
            const apiKey = clubs.good[0]!.credentials.apiKey;
            const basic = Buffer.from(
              `${sandbox.integrator.username}:${sandbox.integrator.password}`,
            ).toString('base64');
            const echo = JSON.stringify({
              Message: `rejected: x-api-key: ${apiKey}, Authorization: Basic ${basic}, Bearer ${issuedTokens.at(-1)}, password=${sandbox.integrator.password}`,
            });
            sandbox.failNext(5, 500, { body: echo, contentType: 'application/json', pathPrefix: '/members' });
            sandbox.failNext(1, 401, {
              body: echo,
              contentType: 'application/json',
              pathPrefix: '/prospects',
            });
          }
          await pollAll([...clubs.good, clubs.badKey, clubs.badPassword]);
        }
        // A token expired on the sandbox clock: the client refreshes it (logged at DEBUG).
        sandbox.faults.tokenLifetimeSec = 60;
        sandbox.advance(HOUR);
        await pollAll(clubs.good);
        sandbox.advance(HOUR);
        await pollAll(clubs.good);
      }));
    } finally {
      logger.setLogLevel('SILENT');
    }
  }, 120_000);

  afterAll(async () => {
    eventBridge.destroy();
    await bus.close();
    await sandbox.close();
    await db.close();
  });

  /** Every secret of the run, in the forms it could leak in. */
  function secrets(): string[] {
    const { username, password } = sandbox.integrator;
    const basic = (u: string, p: string) => Buffer.from(`${u}:${p}`).toString('base64');
    return [
      password,
      WRONG_PASSWORD,
      WRONG_API_KEY,
      ...sandbox.clubs.map((c) => c.apiKey),
      basic(username, password),
      basic(username, WRONG_PASSWORD),
      ...issuedTokens,
      // A token's signature alone identifies it.
      ...issuedTokens.map((t) => t.split('.')[2]!),
    ];
  }

  const events = () => bus.events.map((e) => JSON.stringify({ detailType: e.detailType, detail: e.detail }));
  /** Every item of the table, the club state items' gzipped cursors decoded (else they hide what they hold). */
  const stateItems = async () => {
    const items = (await db.client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
    const cursors = items
      .filter((i) => i.sk?.S === 'STATE' && i.c?.B)
      .map((i) => gunzipSync(i.c!.B!).toString('utf8'));
    return `${JSON.stringify(items)}\n${cursors.join('\n')}`;
  };

  it('really exercised what it checks: DEBUG logs, failures of every kind, tokens in use', () => {
    expect(output).toContain('capture canary');
    expect(output).toContain('gym-api retrying');
    expect(output).toContain('source poll failed');
    const kinds = new Set(reports.flatMap((r) => r.failures.map((f) => f.kind)));
    expect([...kinds]).toEqual(expect.arrayContaining(['auth', 'unavailable']));
    expect(bus.events.some((e) => e.detailType === 'Club Credentials Rejected')).toBe(true);
    expect(issuedTokens.length).toBeGreaterThan(2);
    // The needles are real: each token went out in an Authorization header.
    for (const token of issuedTokens) expect(sentAuthorizations).toContain(`Bearer ${token}`);
    expect(bus.events.length).toBeGreaterThan(100);
  });

  it('no password, API key, Basic header or bearer token in any log line', () => {
    for (const secret of secrets())
      expect(output.includes(secret), `a secret in the logs: ${secret.slice(0, 4)}…`).toBe(false);
  });

  it('no password, API key, Basic header or bearer token in any event', () => {
    const text = events().join('\n');
    for (const secret of secrets())
      expect(text.includes(secret), `a secret in an event: ${secret.slice(0, 4)}…`).toBe(false);
  });

  it('no secret in the state table (cursors, errors, quarantine) or in poll reports', async () => {
    const text = `${await stateItems()}\n${JSON.stringify(reports)}`;
    expect(text).toContain('lastError');
    for (const secret of secrets())
      expect(text.includes(secret), `a secret in state: ${secret.slice(0, 4)}…`).toBe(false);
  });

  it('minimal PII policy: no email, phone, address or date of birth in any event; the full policy carries them', () => {
    const personal = (clubId: string) => {
      const values = new Set<string>();
      const collect = (record: Record<string, unknown>) => {
        const contact = (record.Contact ?? {}) as Record<string, unknown>;
        for (const value of [
          contact.Email,
          contact.Mobile,
          contact.Home,
          contact.Work,
          contact.Address,
          record.Email,
          record.Mobile,
          record.Address,
          record.DateOfBirth,
        ]) {
          if (typeof value === 'string' && value.length >= 6) values.add(value);
        }
      };
      for (const op of ['members', 'prospects', 'debtCollection'] as const) {
        for (const record of sandbox.records(clubId, op)) collect(record);
      }
      return [...values];
    };
    const eventsOf = (clubId: string) =>
      bus.events
        .filter((e) => (e.detail as { clubId: string }).clubId === clubId)
        .map((e) => JSON.stringify(e.detail));
    const minimal = eventsOf('club-1').join('\n');
    const full = eventsOf('club-2').join('\n');
    expect(eventsOf('club-1').length).toBeGreaterThan(50);
    const minimalValues = personal('club-1');
    expect(minimalValues.length).toBeGreaterThan(100);
    for (const value of minimalValues)
      expect(minimal.includes(value), `personal data in an event: ${value.slice(0, 3)}…`).toBe(false);
    // Control: the same kinds of events under the full policy do carry contact details.
    expect(personal('club-2').filter((v) => full.includes(v)).length).toBeGreaterThan(5);
  });

  it('minimal PII policy: class attendance keeps only the allow-listed fields (no instructor); full carries the record', async () => {
    // Class attendance is opt-in: poll only that source of club-1, from two days back, into a table
    // and a sink of its own, once as the club is (minimal) and once under full as the control.
    const poll = async (piiPolicy: 'minimal' | 'full') => {
      const store = new DynamoDbStateStore({
        client: db.client,
        tableName: await createTestTable(db.client, `classes-${piiPolicy}`),
        now: () => sandbox.clock.now().getTime(),
      });
      const sink = new MemorySink();
      const club: ClubConfig = { ...clubs.good[0]!, piiPolicy, sources: ['classAttendance'] };
      const report = await pollClub(
        {
          store,
          sink,
          clients: new GymApiClientFactory({}),
          owner: 'classes',
          now: () => sandbox.clock.now().getTime(),
        },
        club,
        {
          deadlineMs: Date.now() + 30_000,
          backfillFromMs: sandbox.clock.now().getTime() - 2 * 24 * HOUR,
          ignorePause: true,
        },
      );
      expect(report.failures).toEqual([]);
      return sink.ofType(DETAIL_TYPES.ClassAttendanceRecorded).map((e) => e.detail.data);
    };
    const minimal = await poll('minimal');
    const full = await poll('full');
    expect(minimal.length).toBeGreaterThan(10);
    expect(full).toHaveLength(minimal.length);
    const allowed = new Set(Object.keys(MINIMAL_ALLOW_LISTS.classAttendance));
    for (const data of minimal) for (const key of Object.keys(data)) expect(allowed, key).toContain(key);
    expect(minimal.every((data) => typeof data.ClassName === 'string')).toBe(true);
    const instructors = new Set(full.map((data) => data.Instructor as string));
    expect(instructors.size).toBeGreaterThan(0);
    const text = JSON.stringify(minimal);
    for (const name of instructors)
      expect(text.includes(name), `an instructor in an event: ${name}`).toBe(false);
  });

  it('the CLI, at DEBUG, prints no credential when the password or the API key is wrong', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gym-bridge-security-'));
    try {
      const file = sandbox.clubsFile();
      file.clubs[0]!.credentials.password = WRONG_PASSWORD;
      file.clubs[1]!.credentials.apiKey = WRONG_API_KEY;
      await writeFile(join(dir, 'clubs.json'), JSON.stringify(file));
      const outcome = await runCli(
        [
          'poll',
          '--clubs',
          join(dir, 'clubs.json'),
          '--table',
          'cli-security',
          '--create-table',
          '--events-file',
          join(dir, 'events.jsonl'),
          '--once',
          '--deadline',
          '10',
        ],
        { LOG_LEVEL: 'DEBUG', ...localAwsEnv(db.endpoint) },
      );
      expect(outcome.code).toBe(1);
      const text = outcome.stdout + outcome.stderr;
      expect(text).toMatch(/failed \(auth\)/);
      expect(text).toMatch(/"level":"(DEBUG|ERROR)"/);
      const basic = Buffer.from(`${sandbox.integrator.username}:${WRONG_PASSWORD}`).toString('base64');
      for (const secret of [
        WRONG_PASSWORD,
        WRONG_API_KEY,
        sandbox.clubs[0]!.apiKey,
        sandbox.integrator.password,
        basic,
      ]) {
        expect(text.includes(secret), `a credential in the CLI output: ${secret.slice(0, 4)}…`).toBe(false);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // The client never holds the integrator password (the TokenProvider does); it asks its token source
  // for the secrets to redact, so a data endpoint echoing the password cannot leak it.
  it('an upstream echoing the integrator password in a 5xx body does not put it in the error', async () => {
    const store = new DynamoDbStateStore({
      client: db.client,
      tableName: await createTestTable(db.client, 'echo'),
    });
    const sink = new EventBridgeSink({ client: eventBridge, busName: 'security', baseDelayMs: 1 });
    const clients = new GymApiClientFactory({ retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const body = JSON.stringify({ Message: `login rejected: password=${sandbox.integrator.password}` });
    sandbox.failNext(5, 500, { body, contentType: 'application/json', pathPrefix: '/members' });
    const report = await pollClub(
      { store, sink, clients, owner: 'echo', now: () => sandbox.clock.now().getTime() },
      clubs.good[0]!,
      { deadlineMs: Date.now() + 20_000, sources: ['members'], ignorePause: true },
    );
    expect(report.failures).toHaveLength(1);
    expect(JSON.stringify(report)).not.toContain(sandbox.integrator.password);
  });
});
