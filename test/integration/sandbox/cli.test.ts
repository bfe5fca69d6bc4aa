import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClubsFile } from '../../../sandbox';
import { spawnCli } from '../../support/cli-process';
import { basicHeader } from './sandbox-http';

/** `npm run cli -- sandbox ...args`, quiet logs. */
const sandboxCli = (args: string[]) => spawnCli(['sandbox', ...args], { LOG_LEVEL: 'SILENT' });

describe('npm run cli -- sandbox', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves, prints the clubs, writes a working clubs file, and stops cleanly on SIGINT', async () => {
    const file = join(dir, 'clubs.json');
    const cli = sandboxCli([
      '--port',
      '0',
      '--clubs',
      '2',
      '--members',
      '20',
      '--history-days',
      '1',
      '--write-clubs',
      file,
    ]);
    await cli.waitFor(/clubs file written/, 20_000);
    const out = cli.stdout();
    expect(out).toMatch(/gym API sandbox at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(out).toMatch(/club-1 +key [0-9a-f]{32} +Australia\/Sydney +basic/);
    expect(out).toMatch(/club-2 +key [0-9a-f]{32} +Europe\/London +advanced/);
    expect(out).not.toContain('POISON');
    const clubs = JSON.parse(await readFile(file, 'utf8')) as ClubsFile;
    expect(clubs.clubs).toHaveLength(2);
    const club = clubs.clubs[0];
    if (!club) throw new Error('club expected');
    const token = await fetch(`${club.baseUrl}/token`, {
      method: 'POST',
      headers: { authorization: basicHeader(club.credentials.username, club.credentials.password) },
    });
    const { AccessToken } = (await token.json()) as { AccessToken: string };
    const members = await fetch(`${club.baseUrl}/members?limit=2`, {
      headers: { authorization: `Bearer ${AccessToken}`, 'x-api-key': club.credentials.apiKey },
    });
    expect(members.status).toBe(200);
    cli.child.kill('SIGINT');
    expect((await cli.closed).code).toBe(0);
    expect(cli.stdout()).toContain('sandbox stopped');
  });

  it('--poison says at start that it is in poison mode, its rates and what a poll should show', async () => {
    const cli = sandboxCli([
      '--port',
      '0',
      '--clubs',
      '1',
      '--members',
      '20',
      '--history-days',
      '1',
      '--poison',
    ]);
    await cli.waitFor(/Ctrl-C \(or SIGTERM\) to stop/, 20_000);
    const out = cli.stdout();
    expect(out).toContain('POISON MODE (docs/sandbox.md, "Poison mode"): this API misbehaves on purpose');
    expect(out).toMatch(/stored bad records, per club per simulated hour: 0\.5 of each class/);
    expect(out).toMatch(/response habits, share of requests: a 100 MiB page 1%/);
    expect(out).toMatch(/what a poll should show: bad records quarantined with a reason/);
    cli.child.kill('SIGTERM');
    expect((await cli.closed).code).toBe(0);
  });

  it('exits 2 with a clear message on a bad flag', async () => {
    const cli = sandboxCli(['--clubs', 'many']);
    expect((await cli.closed).code).toBe(2);
    expect(cli.stderr()).toContain('--clubs must be an integer');
  });
});
