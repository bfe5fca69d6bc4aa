/**
 * `poll --once` as a user runs it: a child process, the clubs file written by the sandbox, state in
 * a DynamoDB endpoint given by AWS_ENDPOINT_URL_DYNAMODB, events to a JSON-lines file or to an
 * EventBridge endpoint given by AWS_ENDPOINT_URL_EVENTBRIDGE. Then `status` reads the state back.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { DUMMY_AWS_ENV, runCli, runCliOk } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

const MINUTE = 60_000;

describe('poll --once from the command line', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let dir: string;
  let clubsFile: string;

  beforeAll(async () => {
    db = await startDynalite();
    // The CLI's clock is real time, so the sandbox runs on real time too; clubs open all night keep
    // the activity independent of the hour the test runs at.
    sandbox = await startSandbox({
      seed: 5,
      clubs: [
        { clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true },
        { clubId: 'club-2', timeZone: 'Europe/London', open24h: true },
      ],
      members: 100,
      historyDays: 2,
      // Open all night is still quiet at night: an hour of Sydney's 02:00 at scale 8 once brought no
      // event of club-1 (CI at 15:39 UTC); at 20 the quietest night hour of 13-19 UTC brought 5 changes.
      activityScale: 20,
    });
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-cli-'));
    clubsFile = join(dir, 'clubs.json');
    await sandbox.writeClubsFile(clubsFile);
  });
  afterAll(async () => {
    await sandbox.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], env: Record<string, string>) => runCliOk(args, { ...DUMMY_AWS_ENV, ...env });

  it('writes events to a JSON-lines file, and status shows the watermarks', async () => {
    const eventsFile = join(dir, 'events.jsonl');
    const env = { AWS_ENDPOINT_URL_DYNAMODB: db.endpoint };
    const poll = ['poll', '--clubs', clubsFile, '--table', 'cli-file', '--events-file', eventsFile, '--once'];

    const baseline = await cli([...poll, '--create-table'], env);
    expect(baseline.stdout).toMatch(/club-1: ok, 7 sources/); // the default: classAttendance is opt-in
    sandbox.advance(60 * MINUTE);
    const second = await cli(poll, env);
    expect(second.stdout).toMatch(/club-2: ok/);

    const lines = (await readFile(eventsFile, 'utf8')).trim().split('\n');
    const events = lines.map(
      (l) => JSON.parse(l) as { detailType: string; detail: { clubId: string; eventId: string } },
    );
    expect(events.length).toBeGreaterThan(5);
    expect(new Set(events.map((e) => e.detail.clubId))).toEqual(new Set(['club-1', 'club-2']));
    // No secret travels in events.
    const text = lines.join('\n');
    for (const club of sandbox.clubs) expect(text).not.toContain(club.apiKey);
    expect(text).not.toContain(sandbox.integrator.password);

    const status = await cli(['status', '--clubs', clubsFile, '--table', 'cli-file', '--json'], env);
    const json = JSON.parse(status.stdout) as {
      clubId: string;
      sources: { watermark: string | null }[];
      fastLane: { on: boolean; summary: string };
    }[];
    expect(json.map((c) => c.clubId)).toEqual(['club-1', 'club-2']);
    expect(json[0]!.sources).toHaveLength(7);
    expect(json[0]!.sources.every((s) => typeof s.watermark === 'string')).toBe(true);
    // The visits fast lane of each club, on or off and why (engine/schedule/fast-lane.ts).
    const lanes = json.map((c) => c.fastLane);
    const LANE = /^(on: visits probed every (15|20|30) s|off, visits every minute) \(.+\)$/;
    for (const lane of lanes) expect(lane.summary).toMatch(LANE);
    const words = await cli(['status', '--clubs', clubsFile, '--table', 'cli-file'], env);
    expect(words.stdout).toContain(`club-1: fast lane ${lanes[0]!.summary}`);
  }, 120_000);

  it('publishes to an EventBridge endpoint, and exits 1 with a message when the API refuses', async () => {
    const bus = await startLocalEventBridge({ port: 0, buses: ['demo-bus'] });
    try {
      const env = { AWS_ENDPOINT_URL_DYNAMODB: db.endpoint, AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint };
      const poll = [
        'poll',
        '--clubs',
        clubsFile,
        '--table',
        'cli-bus',
        '--bus',
        'demo-bus',
        '--once',
        '--create-table',
      ];
      await cli(poll, env);
      sandbox.advance(60 * MINUTE);
      await cli(poll, env);
      expect(bus.events.length).toBeGreaterThan(5);
      expect(bus.events.every((e) => e.eventBusName === 'demo-bus' && e.source === 'gym-bridge')).toBe(true);

      // Every request refused: a clear failure, non-zero exit.
      sandbox.faults.errorRate5xx = 1;
      const failed = await runCli([...poll, '--deadline', '6'], { ...DUMMY_AWS_ENV, ...env });
      sandbox.faults.errorRate5xx = 0;
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toMatch(/poll failed for club-1, club-2/);
      expect(failed?.stdout).toMatch(/failed \(unavailable\)/);
    } finally {
      await bus.close();
    }
  }, 120_000);
});
