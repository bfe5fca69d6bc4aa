/**
 * A ~100 MB page, read by `poll --once` as a user runs it, with the heap of a small function
 * (`--max-old-space-size=200`): the CLI lives, the visits source fails with the reason (the response
 * cap), the club's other sources complete, and `status` shows which is which. A proxy in front of the
 * sandbox streams the huge page (it never holds it) for every visits request, whatever the limit.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { localAwsEnv, runCli, runCliOk } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

const HUGE_BYTES = 100 * 1024 * 1024;
const CHUNK = 'x'.repeat(64 * 1024);

/** Streams `{"href":…,"data":[{…,"Door":"xxxx… 100 MB …"}]}`, stopping when the client hangs up. */
function streamHugePage(res: import('node:http').ServerResponse, counter: { bytes: number }): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"href":"x","data":[{"MemberNumber":"100001","ScanSource":"Kiosk","Door":"');
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const pump = () => {
    while (!closed && sent < HUGE_BYTES) {
      sent += CHUNK.length;
      counter.bytes += CHUNK.length;
      if (!res.write(CHUNK)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!closed) res.end('","VisitDateTime":"2026-05-04T18:00:00"}]}');
  };
  pump();
}

describe('a ~100 MB page against a 200 MB heap', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let proxy: Server;
  let dir: string;
  let clubsFile: string;
  const streamed = { bytes: 0, requests: 0 };

  beforeAll(async () => {
    db = await startDynalite();
    sandbox = await startSandbox({
      seed: 23,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
      members: 60,
      historyDays: 1,
    });
    const target = new URL(sandbox.url);
    proxy = createServer((req, res) => {
      if (req.url?.startsWith('/v1/members/attendance/visits')) {
        streamed.requests++;
        streamHugePage(res, streamed);
        return;
      }
      const forward = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (upstream) => {
          res.writeHead(upstream.statusCode ?? 502, upstream.headers);
          upstream.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-huge-'));
    clubsFile = join(dir, 'clubs.json');
    await sandbox.writeClubsFile(clubsFile);
    const clubs = JSON.parse(await readFile(clubsFile, 'utf8')) as { clubs: { baseUrl: string }[] };
    for (const c of clubs.clubs) c.baseUrl = `http://127.0.0.1:${port}/v1`;
    await writeFile(clubsFile, JSON.stringify(clubs), { mode: 0o600 });
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await sandbox?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('poll --once lives, fails the visits source with the cap as its reason, and completes the others', async () => {
    // Act: the CLI with a 200 MB heap (a 256 MB Lambda has less than that for the heap)
    const args = ['poll', '--clubs', clubsFile, '--table', 'huge', '--create-table'];
    args.push('--events-file', join(dir, 'events.jsonl'), '--once');
    const env = localAwsEnv(db.endpoint);
    const poll = await runCli(args, env, { nodeArgs: ['--max-old-space-size=200'], timeoutMs: 115_000 });
    const out = poll.stdout + poll.stderr;
    const { code, signal } = poll;
    // Assess: a failed poll (exit 1), not a crash (134 / SIGABRT: heap out of memory)
    expect(signal, out).toBeNull();
    expect(code, out).toBe(1);
    expect(out).toMatch(/visits/);
    expect(out).toMatch(/cap/);
    // a bounded number of requests, each cut near the cap (8 MiB, plus what the sockets buffered)
    expect(streamed.requests).toBeLessThanOrEqual(25);
    expect(streamed.bytes / streamed.requests).toBeLessThan(HUGE_BYTES / 4);
    const status = await runCliOk(['status', '--clubs', clubsFile, '--table', 'huge', '--json'], env);
    type Health = { lastError?: { message: string }; lastSuccessAt?: string };
    const report = JSON.parse(status.stdout) as {
      sources: { source: string; state: string; health: Health | null }[];
    }[];
    const sources = report[0]!.sources;
    const visits = sources.find((s) => s.source === 'visits')!;
    expect(visits.state).toBe('failing');
    expect(visits.health?.lastError?.message).toMatch(/cap/);
    expect(visits.health?.lastSuccessAt, JSON.stringify(visits)).toBeUndefined();
    const others = sources.filter((s) => s.source !== 'visits' && s.source !== 'classAttendance');
    expect(others.length).toBeGreaterThan(4);
    for (const s of others) {
      expect(s.state, s.source).toBe('ok');
      expect(s.health?.lastSuccessAt, JSON.stringify(s)).toEqual(expect.any(String));
    }
  }, 120_000);
});
