import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClubsFile } from '../../../lambdas/sandbox';
import { basicHeader } from './sandbox-http';

function runCli(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'lambdas/cli/main.ts', 'sandbox', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'SILENT' },
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('npm run cli -- sandbox', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves, prints the clubs, writes a working clubs file, and stops cleanly on SIGINT', async () => {
    const file = join(dir, 'clubs.json');
    const child = runCli([
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
    const exited = exitOf(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 20_000);
      child.stdout?.on('data', () => {
        if (out.includes('clubs file written')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(out).toMatch(/gym API sandbox at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(out).toMatch(/club-1 +key [0-9a-f]{32} +Australia\/Sydney +basic/);
    expect(out).toMatch(/club-2 +key [0-9a-f]{32} +Europe\/London +advanced/);
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
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('sandbox stopped');
  });

  it('exits 2 with a clear message on a bad flag', async () => {
    const child = runCli(['--clubs', 'many']);
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    expect(await exitOf(child)).toBe(2);
    expect(err).toContain('--clubs must be an integer');
  });
});
