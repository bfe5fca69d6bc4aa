/**
 * `npm start` (the `start` command) as a user runs it: with its --port taken it says so and exits
 * non-zero at once, instead of hanging with the embedded DynamoDB still listening; Ctrl-C pressed
 * (or re-sent by tsx and npm) more than once still ends with the summary and a clean exit; an
 * events file that cannot be written is refused before anything starts.
 */

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, killCli, spawnCli } from '../../support/cli-process';

describe('start with its port taken', () => {
  let blocker: Server;
  let port: number;
  let cli: CliProcess | undefined;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await killCli(cli);
    await new Promise((resolve) => blocker.close(resolve));
  });

  it('exits non-zero within seconds with a message naming the port', async () => {
    const started = Date.now();
    cli = spawnCli(['start', '--port', String(port), '--clubs', '1']);
    const timeout = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref());
    const code = await Promise.race([cli.exit, timeout]);
    expect(code, `stdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`).not.toBe('hung');
    expect(code).toBe(1);
    expect(cli.stderr()).toContain(`port ${port}`);
    expect(cli.stderr()).toMatch(/already in use/);
    expect(cli.stderr()).toMatch(/--port/);
    // Startup (tsx, the sandbox's history) takes a few seconds on a loaded machine; hanging does not.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

describe('start stopped with Ctrl-C, more than once', () => {
  let cli: CliProcess | undefined;
  afterEach(() => killCli(cli));

  it('prints the summary and exits 0 by itself (servers closed), ignoring the repeated signals', async () => {
    // Prepare: the demo running (its first poll done). The grace period is long, so that every
    // repeated signal is a duplicate however slow the machine is (stop-signal.ts).
    cli = spawnCli(['start', '--clubs', '1', '--interval', '1'], { GYM_BRIDGE_STOP_GRACE_MS: '600000' });
    await cli.waitFor(/baseline recorded/, 60_000);
    // Act: Ctrl-C and the copies tsx and npm re-send, in one burst. SIGINT and SIGTERM are distinct
    // signals (never merged by the kernel), so at least two reach the process, both before it can
    // have finished stopping: the second lands while it stops.
    cli.child.kill('SIGINT');
    cli.child.kill('SIGTERM');
    cli.child.kill('SIGINT');
    const code = await cli.exit;
    // Assess: the summary, a clean exit (the process ended by itself: the sandbox and DynamoDB
    // servers are closed, or it would still be running), the repeat seen and ignored.
    expect(code, `stdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`).toBe(0);
    expect(cli.child.signalCode).toBeNull();
    expect(cli.stdout()).toMatch(/\nstopped\. \d+ events:\n/);
    // The first signal handled says it stops: Node may hand the burst's SIGTERM over before its
    // first SIGINT (seen once, on a fresh clone), so either may be the one that speaks.
    expect(cli.stderr()).toMatch(
      /gym-bridge start: (Ctrl-C|SIGTERM): stopping after the current poll: then the summary, and the sandbox and the embedded DynamoDB are closed/,
    );
    expect(cli.stderr()).toContain('gym-bridge start: already stopping');
    expect(cli.stderr()).not.toMatch(/exiting now/);
  }, 120_000);
});

describe('start --events-file that cannot be written', () => {
  let dir: string;
  let clis: CliProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-start-'));
  });
  afterAll(async () => {
    await Promise.all(clis.map((c) => killCli(c)));
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a directory and a missing folder with exit 2 and one clear line, creating nothing', async () => {
    const missing = join(dir, 'no-such-folder', 'events.jsonl');
    const folder = spawnCli(['start', '--events-file', dir]);
    const noParent = spawnCli(['start', '--events-file', missing]);
    clis = [folder, noParent];
    const codes = await Promise.all([folder.exit, noParent.exit]);
    expect(codes, folder.stderr() + noParent.stderr()).toEqual([2, 2]);
    expect(folder.stderr()).toBe(
      `gym-bridge start: --events-file ${dir} is a directory: give a file path, e.g. ${join(dir, 'events.jsonl')}\n`,
    );
    expect(noParent.stderr()).toBe(
      `gym-bridge start: --events-file ${missing}: the folder ${join(dir, 'no-such-folder')} does not exist: create it first (mkdir -p ${join(dir, 'no-such-folder')}) or give a path in an existing folder\n`,
    );
    // Refused before anything started: no demo output, no folder created.
    expect(folder.stdout() + noParent.stdout()).toBe('');
    expect(existsSync(join(dir, 'no-such-folder'))).toBe(false);
  }, 60_000);
});
