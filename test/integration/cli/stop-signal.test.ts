/**
 * Ctrl-C for long-running commands (cli/stop-signal.ts), on a real process that gets real
 * signals: duplicates of the first signal during the shutdown are ignored (the summary is printed,
 * the exit is clean), a deliberate repeat after the grace period forces the exit and says so. The
 * child holds its shutdown open until the test lets it go, so every signal of these tests lands
 * during the shutdown, whatever the load: nothing here depends on timing but the grace period,
 * which is set to 10 minutes (duplicates) or 0 (deliberate).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { childPids, isRunning } from '../../support/cli-process';

const CHILD = fileURLToPath(new URL('./fixtures/stop-signal-child.ts', import.meta.url));

interface Child {
  readonly child: ChildProcess;
  readonly out: () => string;
  readonly err: () => string;
  readonly exit: Promise<number | null>;
  /** Resolves when stdout or stderr (so far) matches. */
  until(pattern: RegExp): Promise<void>;
}

function start(args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const w of waiters) w();
  };
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    poke();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    poke();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running = {
    child,
    out: () => out,
    err: () => err,
    exit,
    until: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out) && !pattern.test(err)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        void exit.then((code) => {
          if (waiters.delete(check)) reject(new Error(`exited ${code} before ${pattern}\n${out}\n${err}`));
        });
        check();
      }),
  };
  return running;
}

/** The child of the current test (killed after it, if a failed test left it running). */
let running: Child | undefined;
afterEach(() => {
  if (running && running.child.exitCode === null && running.child.signalCode === null)
    running.child.kill('SIGKILL');
  running = undefined;
});

describe('watchStop on a real process', () => {
  it('ignores repeated SIGINT and SIGTERM during the shutdown: the summary is printed, the exit is 0', async () => {
    // Prepare
    const c = start(['600000']);
    await c.until(/ready/);
    // Act: Ctrl-C, then two more (as tsx and npm re-send it) while the shutdown runs
    c.child.kill('SIGINT');
    await c.until(/shutting down/);
    c.child.kill('SIGINT');
    c.child.kill('SIGTERM');
    await c.until(/already stopping/);
    c.child.stdin?.end('go\n');
    // Assess
    expect(await c.exit, c.err()).toBe(0);
    expect(c.out()).toBe('ready\nshutting down\nsummary\n');
    expect(c.err()).toContain(
      'child: Ctrl-C: stopping after the shutdown the test holds open (Ctrl-C again after 600 s forces an exit)',
    );
    expect(c.err().match(/already stopping/g)).toHaveLength(1);
    expect(c.err()).not.toMatch(/exiting now/);
  }, 30_000);

  it('a deliberate repeat after the grace period forces the exit, saying what it skips (exit 130)', async () => {
    // Prepare
    const c = start(['0']);
    await c.until(/ready/);
    // Act
    c.child.kill('SIGINT');
    await c.until(/shutting down/);
    c.child.kill('SIGINT');
    // Assess
    expect(await c.exit).toBe(130);
    expect(c.err()).toContain('child: Ctrl-C again: exiting now, without the summary');
    expect(c.out()).not.toContain('summary');
  }, 30_000);

  it('SIGTERM repeated deliberately exits 143', async () => {
    const c = start(['0']);
    await c.until(/ready/);
    c.child.kill('SIGTERM');
    await c.until(/shutting down/);
    c.child.kill('SIGTERM');
    expect(await c.exit).toBe(143);
    expect(c.err()).toContain('child: SIGTERM again: exiting now, without the summary');
  }, 30_000);

  it('a command can take the first deliberate repeat for itself; the next one forces the exit', async () => {
    // Prepare
    const c = start(['0', '--on-repeat']);
    await c.until(/ready/);
    // Act
    c.child.kill('SIGINT');
    await c.until(/shutting down/);
    // stderr is another pipe than stdout: wait for its line rather than expect it already there
    await c.until(/\(Ctrl-C again after 0 s does the repeat\)/);
    c.child.kill('SIGINT');
    await c.until(/repeat asked/);
    c.child.kill('SIGINT');
    // Assess
    expect(await c.exit).toBe(130);
    expect(c.out()).toBe('ready\nshutting down\nrepeat asked\n');
    expect(c.err()).toContain('exiting now, without the summary');
  }, 30_000);

  it('the process that started it goes away (a wrapper shell killed): it stops as on a first signal', async () => {
    // Prepare: a shell that does not exec the command, as npm's scripts did before they exec'ed
    const shell = spawn(
      'sh',
      ['-c', `"${process.execPath}" --import tsx "${CHILD}" 600000 --no-hold; true`],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    shell.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    shell.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const until = async (pattern: RegExp) => {
      for (let i = 0; i < 600 && !pattern.test(out + err); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out + err).toMatch(pattern);
    };
    await until(/ready/);
    const [node] = childPids(shell.pid!);
    try {
      // Act: the shell dies without passing anything on; the command's parent is gone
      shell.kill('SIGKILL');
      await until(/summary/);
      for (let i = 0; i < 100 && isRunning(node!); i++) await new Promise((r) => setTimeout(r, 100));
      // Assess: the stop was said, with why; the summary printed; the process ended by itself
      expect(err).toMatch(
        /child: the process that started it \(pid \d+\) is gone: stopping after the shutdown/,
      );
      expect(out).toBe('ready\nshutting down\nsummary\n');
      expect(isRunning(node!)).toBe(false);
    } finally {
      if (node !== undefined && isRunning(node)) process.kill(node, 'SIGKILL');
    }
  }, 60_000);
});
