/**
 * `poll` as a new user meets it against an API that is not ours: an endpoint the API does not have,
 * credentials that get rejected and then fixed, a deployed stage's event source, logs kept apart
 * from the report. The CLI runs as a child process; the sandbox and dynalite over real sockets.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CLUB_PAUSED } from '../../../cli/commands/poll';
import { startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

const MINUTE = 60_000;

interface ClubsFile {
  clubs: { clubId: string; sources?: string[]; credentials: { password: string } }[];
}

describe('poll at first contact', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let dir: string;
  let clubsFile: string;

  beforeAll(async () => {
    db = await startDynalite();
    sandbox = await startSandbox({
      seed: 12,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
      members: 80,
      historyDays: 2,
      // The sandbox starts at the run's own time (the CLI polls on the real clock), and its activity
      // follows the hour of the day: busy enough that a quiet hour still has events to publish.
      activityScale: 30,
    });
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-first-contact-'));
    clubsFile = join(dir, 'clubs.json');
    await sandbox.writeClubsFile(clubsFile);
  });
  afterAll(async () => {
    await sandbox.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { ...localAwsEnv(db.endpoint), ...env });

  const writeClubs = async (file: string, edit: (c: ClubsFile['clubs'][number]) => void) => {
    const json = JSON.parse(await readFile(clubsFile, 'utf8')) as ClubsFile;
    for (const c of json.clubs) edit(c);
    await writeFile(file, JSON.stringify(json));
    return file;
  };

  const readEvents = async (file: string) =>
    (await readFile(file, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { source: string; detailType: string; detail: { eventId: string } });

  it('the classes endpoint answers 404: the default clubs file exits 0 and every other source publishes', async () => {
    sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: '/members/attendance/classes' });
    try {
      const defaults = await writeClubs(join(dir, 'defaults.json'), (c) => {
        delete c.sources;
      });
      const events = join(dir, 'defaults.jsonl');
      const poll = ['poll', '--clubs', defaults, '--table', 'fc-404', '--events-file', events, '--once'];
      const first = await cli([...poll, '--create-table']);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('baseline recorded, no events by design');
      sandbox.advance(60 * MINUTE);
      const second = await cli(poll);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/club-1: ok, 7 sources/);
      const published = await readEvents(events);
      expect(published.length).toBeGreaterThan(5);
      expect(new Set(published.map((e) => e.detailType))).toContain('Member Visit Recorded');

      // Opted in, the missing endpoint is reported unavailable (once announced), never a failure.
      const optedIn = await writeClubs(join(dir, 'classes.json'), (c) => {
        c.sources = ['members', 'visits', 'classAttendance'];
      });
      const classEvents = join(dir, 'classes.jsonl');
      const withClasses = [
        'poll',
        '--clubs',
        optedIn,
        '--table',
        'fc-404',
        '--events-file',
        classEvents,
        '--once',
      ];
      const opted = await cli(withClasses);
      expect(opted.code, opted.stderr).toBe(0);
      expect(opted.stdout).toMatch(/classAttendance unavailable: /);
      const again = await cli(withClasses);
      expect(again.code).toBe(0);
      const unavailable = (await readEvents(classEvents)).filter(
        (e) => e.detailType === 'Club Source Unavailable',
      );
      expect(unavailable).toHaveLength(1);
    } finally {
      sandbox.clearFailures();
    }
  }, 180_000);

  it('rejected credentials pause the club: --once says why and until when, exits 3; --resume polls it again', async () => {
    const wrong = await writeClubs(join(dir, 'wrong.json'), (c) => {
      c.credentials.password = 'not-the-password';
    });
    const events = join(dir, 'paused.jsonl');
    const poll = ['--table', 'fc-pause', '--events-file', events, '--once'];
    const rejected = await cli(['poll', '--clubs', wrong, ...poll, '--create-table']);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toMatch(/failed \(auth\)/);
    expect(rejected.stdout).not.toContain('not-the-password');

    // The operator fixes the password: still paused, and said so.
    const paused = await cli(['poll', '--clubs', clubsFile, ...poll]);
    expect(paused.code).toBe(EXIT_CLUB_PAUSED);
    expect(paused.stdout).toMatch(/club-1: paused until \d{4}-\d{2}-\d{2}T[\d:.]+Z, nothing polled/);
    expect(paused.stdout).toContain('credentials or API key rejected');
    expect(paused.stdout).toContain('--resume');
    expect(paused.stderr).toContain('paused, not polled: club-1');

    const status = await cli(['status', '--clubs', clubsFile, '--table', 'fc-pause']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/paused until/i);

    const resumed = await cli(['poll', '--clubs', clubsFile, ...poll, '--resume']);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/club-1: resumed/);
    expect(resumed.stdout).toMatch(/club-1: ok, /);
  }, 180_000);

  it('--stage and --event-source set the events source; a bad one is exit 2', async () => {
    const bus = await startLocalEventBridge({ port: 0, buses: ['b'] });
    try {
      const env = { AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint };
      const poll = ['poll', '--clubs', clubsFile, '--table', 'fc-source', '--bus', 'b', '--once'];
      await cli([...poll, '--create-table', '--stage', 'dev'], env);
      sandbox.advance(30 * MINUTE);
      const dev = await cli([...poll, '--stage', 'dev'], env);
      expect(dev.code, dev.stderr).toBe(0);
      expect(bus.events.length).toBeGreaterThan(0);
      expect(new Set(bus.events.map((e) => e.source))).toEqual(new Set(['gym-bridge.dev']));

      const bad = await cli([...poll, '--event-source', 'aws.gym'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--event-source');
      const badStage = await cli([...poll, '--stage', 'qa'], env);
      expect(badStage.code).toBe(2);
      expect(badStage.stderr).toContain('not a deployment stage');
    } finally {
      await bus.close();
    }
  }, 180_000);

  it('--log-level info: JSON log lines on stderr only, the report alone on stdout', async () => {
    sandbox.failNext(Number.POSITIVE_INFINITY, 503, { pathPrefix: '/members/pos' });
    try {
      const events = join(dir, 'logs.jsonl');
      const run = await cli([
        'poll',
        '--clubs',
        clubsFile,
        '--table',
        'fc-logs',
        '--create-table',
        '--events-file',
        events,
        '--once',
        '--deadline',
        '8',
        '--log-level',
        'info',
      ]);
      expect(run.code).toBe(1);
      for (const line of run.stdout.split('\n').filter(Boolean)) expect(line.trimStart()).not.toMatch(/^\{/);
      const logs = run.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: string; message: string; error?: unknown });
      expect(logs.some((l) => l.level === 'INFO')).toBe(true);
      const failed = logs.find((l) => l.message === 'source poll failed');
      expect(failed, run.stderr).toBeDefined();
      expect(JSON.stringify(failed)).toMatch(/503/);
      expect(run.stderr).not.toContain('reserved key');
    } finally {
      sandbox.clearFailures();
    }
  }, 120_000);

  it('a backfill that starts in the future is refused with exit 2', async () => {
    const run = await cli([
      'poll',
      '--clubs',
      clubsFile,
      '--table',
      'fc-future',
      '--events-file',
      join(dir, 'future.jsonl'),
      '--once',
      '--backfill-from',
      new Date(Date.now() + 86_400_000).toISOString(),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is in the future');
  }, 60_000);

  it('start-up checks: a directory as events file, a bad table name, a missing table (with the hint)', async () => {
    const base = ['poll', '--clubs', clubsFile, '--once'];
    const folder = await cli([...base, '--table', 'fc-checks', '--create-table', '--events-file', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('--events-file');
    const badName = await cli([...base, '--table', 'no spaces!', '--events-file', join(dir, 'c.jsonl')]);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain("--table 'no spaces!' is not a DynamoDB table name");
    const missing = await cli([
      ...base,
      '--table',
      'fc-never-created',
      '--events-file',
      join(dir, 'c.jsonl'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('add --create-table');
    // Nothing was polled: no events file was started.
    await expect(readFile(join(dir, 'c.jsonl'), 'utf8')).rejects.toThrow();
  }, 60_000);
});
