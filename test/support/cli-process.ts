/**
 * The CLI as a user runs it: a child process of `lambdas/cli/main.ts` (through tsx), with its output
 * collected, a way to wait for a line, and its exit.
 *
 *   const cli = spawnCli(['local-aws', '--port', '0']);
 *   await cli.waitFor(/export AWS_REGION=/);
 *   cli.child.kill('SIGINT');
 *   expect(await cli.exit).toBe(0);
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal that it did not handle). */
  readonly exit: Promise<number | null>;
  /** Resolves when stdout matches `pattern`; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lambdas/cli/main.ts', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    waitFor(pattern, timeoutMs = 25_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (!m) return false;
          done();
          resolve(m);
          return true;
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}\nstdout: ${out}\nstderr: ${err}`));
        }, timeoutMs);
        const onExit = (code: number | null) => {
          if (check()) return;
          done();
          reject(new Error(`exited ${code} before ${pattern}\nstdout: ${out}\nstderr: ${err}`));
        };
        const done = () => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout?.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
  };
}

/** Kills the child if it still runs (a failed test must not leave servers behind). */
export function killCli(cli: CliProcess | undefined): Promise<unknown> {
  if (!cli || cli.child.exitCode !== null || cli.child.signalCode !== null) return Promise.resolve();
  cli.child.kill('SIGKILL');
  return cli.exit;
}
