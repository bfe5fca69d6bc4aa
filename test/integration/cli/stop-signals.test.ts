/**
 * A stop signal, whatever starts the bridge: the four commands that run until stopped (`start`,
 * `sandbox`, `poll`, `local-aws`) started as a user starts them, through npm (`npm start`,
 * `npm run cli`), and sent SIGINT or SIGTERM, to the npm process (what a process manager, a CI
 * timeout or `docker stop` signals) or to the CLI's own node process. Each case: the command prints
 * its summary, npm exits with the code docs/cli.md gives (0), no process it started is left, and its
 * ports are free again.
 *
 * The node process is npm's child, not whatever is lowest in the tree: on a cold tsx cache (a fresh
 * clone) node runs esbuild's service as a child of its own, and a signal meant for node went to it.
 *
 * Before package.json's scripts `exec`ed node, npm ran `sh -c "node ..."`: npm forwarded the signal
 * to the shell, which ignored SIGINT (the demo kept printing) and died of SIGTERM, leaving node
 * running with parent 1 and its port taken; a Ctrl-C ended npm with 130.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../sandbox';
import {
  type CliProcess,
  childPids,
  isPortFree,
  isRunning,
  localAwsEnv,
  spawnNpm,
} from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

interface Case {
  /** npm's arguments. */
  readonly npm: (n: number) => string[];
  /** The output that says the command is up (and, for the pollers, polled once). */
  readonly ready: RegExp;
  /** The summary it prints at the stop. */
  readonly summary: RegExp;
  /** The ports it listens on, read from its output. */
  readonly ports: (stdout: string) => number[];
}

const portsOf = (pattern: RegExp) => (stdout: string) =>
  [...stdout.matchAll(pattern)].map((m) => Number(m[1]));

let db: Dynalite;
let sandbox: Sandbox;
let dir: string;

const CASES: Record<string, Case> = {
  start: {
    npm: () => ['--silent', 'start', '--', '--clubs', '1', '--interval', '1', '--port', '0'],
    ready: /baseline recorded; watching for changes/,
    summary: /stopped\. \d+ events?:/,
    ports: portsOf(/http:\/\/127\.0\.0\.1:(\d+)/g),
  },
  sandbox: {
    npm: () => [
      ...['run', '--silent', 'cli', '--', 'sandbox', '--port', '0', '--clubs', '1'],
      ...['--members', '30', '--history-days', '1'],
    ],
    ready: /Ctrl-C \(or SIGTERM\) to stop/,
    summary: /sandbox stopped: \d+ API requests? counted this month \(club-1 \d+\), \d+ changes? journaled/,
    ports: portsOf(/sandbox at http:\/\/127\.0\.0\.1:(\d+)/g),
  },
  'local-aws': {
    npm: () => ['run', '--silent', 'cli', '--', 'local-aws', '--port', '0'],
    ready: /received events:/,
    summary: /local AWS endpoints stopped: 0 events received/,
    ports: portsOf(/(?:DynamoDB|EventBridge|Secrets Manager) +http:\/\/127\.0\.0\.1:(\d+)/g),
  },
  poll: {
    npm: (n) => [
      ...['run', '--silent', 'cli', '--', 'poll', '--clubs', join(dir, 'clubs.json')],
      ...['--table', `stop-${n}`, '--create-table', '--events-file', join(dir, `events-${n}.jsonl`)],
      ...['--interval', '1'],
    ],
    ready: /Z club-1: ok, /,
    summary: /gym-bridge poll: stopped after \d+ rounds? of 1 club: \d+ events? published/,
    ports: () => [],
  },
};

/** Whether the process has ended within `ms` (checked every 100 ms). */
async function endsWithin(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; isRunning(pid); ) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** Starts the case, stops it with `signal` sent to npm or to node, and checks what is left. */
async function stopOnce(name: string, n: number, signal: NodeJS.Signals, target: 'npm' | 'node') {
  const c = CASES[name]!;
  const cli: CliProcess = spawnNpm(c.npm(n), localAwsEnv(db.endpoint));
  // Every process npm started, npm's children and theirs (none, when the scripts exec node).
  const started: number[] = [];
  try {
    await cli.waitFor(c.ready, 90_000);
    const npmPid = cli.child.pid!;
    for (let next = [npmPid]; next.length > 0; ) {
      next = next.flatMap((pid) => childPids(pid));
      started.push(...next);
    }
    // The CLI's node process: npm's one child (the scripts exec node: no shell between). Not the
    // bottom of the tree: on a cold tsx cache node has a child of its own, esbuild's service.
    const npmChildren = childPids(npmPid);
    expect(npmChildren, 'npm runs the CLI itself, no shell between').toHaveLength(1);
    const nodePid = npmChildren[0]!;
    const ports = c.ports(cli.stdout());
    if (name !== 'poll') expect(ports.length).toBeGreaterThan(0);
    // Act
    process.kill(target === 'npm' ? npmPid : nodePid, signal);
    const { code, signal: killedBy } = await Promise.race([
      cli.closed,
      new Promise<{ code: string; signal: null }>((resolve) =>
        setTimeout(() => resolve({ code: 'npm still running 60 s after the signal', signal: null }), 60_000),
      ),
    ]);
    // Assess: the documented exit, the summary, nothing left running or listening
    expect({ code, killedBy }, `${cli.stdout()}\n${cli.stderr()}`).toEqual({ code: 0, killedBy: null });
    expect(cli.stdout()).toMatch(c.summary);
    // node's own child, esbuild's service (cold tsx cache), ends when it reads the end of its
    // stdin, a moment after node: give each process a few seconds
    for (const pid of started)
      expect(await endsWithin(pid, 10_000), `process ${pid} npm started has ended`).toBe(true);
    for (const port of ports) expect(await isPortFree(port), `port ${port} is free`).toBe(true);
  } finally {
    // A failed case leaves nothing behind either.
    for (const pid of started) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  }
}

beforeAll(async () => {
  db = await startDynalite();
  sandbox = await startSandbox({
    seed: 5,
    clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
    members: 40,
    historyDays: 1,
  });
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-stop-'));
  await sandbox.writeClubsFile(join(dir, 'clubs.json'));
});
afterAll(async () => {
  await sandbox?.close();
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
describe.concurrent.each(Object.keys(CASES))('%s through npm', (name) => {
  it.each([
    ['SIGINT', 'npm'],
    ['SIGTERM', 'npm'],
    ['SIGINT', 'node'],
    ['SIGTERM', 'node'],
  ] as const)(
    '%s to the %s process: summary, exit 0, no process or port left',
    async (signal, target) => {
      await stopOnce(name, n++, signal, target);
    },
    180_000,
  );
});
