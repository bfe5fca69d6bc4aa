/**
 * The usage errors of the real CLI as a child process (exit 2), those that happen before any AWS
 * call: no arguments, an unknown command, `poll` without or with a missing clubs file, `--bus`
 * with `--events-file`. (The flag parsing itself: test/unit/cli/poll-flags.test.ts.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { runCli } from '../../support/cli-process';

const club: ClubConfig = {
  clubId: 'club-1',
  baseUrl: 'http://127.0.0.1:4010/v1',
  timeZone: 'Australia/Sydney',
  plan: 'basic',
  credentials: { username: 'u', password: 'p', apiKey: 'k' },
  enabled: true,
  piiPolicy: 'minimal',
  unstatedZone: 'local',
  unstatedZoneConfirmed: false,
};

describe.concurrent('the CLI as a child process', () => {
  let dir: string;
  let clubsFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-poll-'));
    clubsFile = join(dir, 'clubs.json');
    await writeFile(clubsFile, JSON.stringify({ clubs: [club] }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => runCli(args, {}, { timeoutMs: 20_000 });

  it('no arguments: exit 2 with the usage', async () => {
    const { code, stdout } = await cli();
    expect(code).toBe(2);
    expect(stdout).toContain('usage: npm run --silent cli -- <command>');
    expect(stdout).toContain('  poll');
  });

  it('an unknown command: exit 2, named', async () => {
    const { code, stderr } = await cli('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'frobnicate'");
  });

  it('poll without --clubs: exit 2 with a clear message', async () => {
    const { code, stderr } = await cli('poll', '--events-file', join(dir, 'events.jsonl'), '--once');
    expect(code).toBe(2);
    expect(stderr).toContain('gym-bridge poll: --clubs FILE is required');
  });

  it('poll with a missing clubs file: exit 2, clubs file not found', async () => {
    const missing = join(dir, 'nope.json');
    const { code, stderr } = await cli(
      'poll',
      '--clubs',
      missing,
      '--events-file',
      join(dir, 'e.jsonl'),
      '--once',
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`clubs file not found: ${missing}`);
  });

  it('poll with both --bus and --events-file: exit 2', async () => {
    const { code, stderr } = await cli(
      'poll',
      '--clubs',
      clubsFile,
      '--bus',
      'gym-bridge',
      '--events-file',
      join(dir, 'e.jsonl'),
      '--once',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('give either --bus or --events-file, not both');
  });
});
