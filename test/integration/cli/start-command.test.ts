/**
 * `npm start` (the `start` command) as a user runs it: with its --port taken it says so and exits
 * non-zero at once, instead of hanging with the embedded DynamoDB still listening.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
