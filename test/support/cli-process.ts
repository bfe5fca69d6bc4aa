/**
 * The CLI as a user runs it: a child process of `cli/main.ts` (through tsx) in the
 * repository's root, with its output collected. Two shapes:
 *
 * - `spawnCli` for a command that runs until stopped: wait for a line, send a signal, await the exit.
 *
 *     const cli = spawnCli(['local-aws', '--port', '0']);
 *     await cli.waitFor(/export AWS_REGION=/);
 *     cli.child.kill('SIGINT');
 *     expect(await cli.exit).toBe(0);
 *
 * - `spawnNpm` for the same through npm (`npm start`, `npm run cli`), as a user types it, with
 *   `childPids`, `isRunning` and `isPortFree` to check that a stop leaves nothing behind.
 *
 * - `runCli` for a command that ends by itself: resolves with its exit code and whole output, never
 *   rejects (a run past its timeout is killed); `runCliOk` rejects unless the exit code is 0.
 *
 *     const { code, stderr } = await runCli(['poll', '--clubs', file], localAwsEnv(db.endpoint));
 *
 * `localAwsEnv` is the environment of a CLI that talks to local AWS endpoints only (dummy
 * credentials, us-east-1, DynamoDB at the given endpoint).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * How a child starts the CLI: the bundle vitest's global setup built (test/global-setup.ts), else the
 * sources through tsx.
 */
export const CLI_ENTRY: readonly string[] = process.env.GYM_BRIDGE_TEST_CLI
  ? [process.env.GYM_BRIDGE_TEST_CLI]
  : ['--import', 'tsx', 'cli/main.ts'];

export interface CliOptions {
  /** Node's own flags before the script, e.g. `--max-old-space-size=200`. */
  readonly nodeArgs?: readonly string[];
}

export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal that it did not handle). */
  readonly exit: Promise<number | null>;
  /** Resolves with the exit code and signal once stdout and stderr are closed too (all output read). */
  readonly closed: Promise<CliExit>;
  /** Resolves when stdout matches `pattern`; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

export interface CliExit {
  /** The exit code; null when the process ended by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface CliResult extends CliExit {
  readonly stdout: string;
  readonly stderr: string;
}

/** Dummy credentials and region, for a CLI that only meets local endpoints. */
export const DUMMY_AWS_ENV: Readonly<Record<string, string>> = {
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
  AWS_REGION: 'us-east-1',
};

/** DUMMY_AWS_ENV with the state table's DynamoDB at `dynamoDbEndpoint` (e.g. dynalite's). */
export function localAwsEnv(dynamoDbEndpoint: string): Record<string, string> {
  return { ...DUMMY_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynamoDbEndpoint };
}

export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  options: CliOptions = {},
): CliProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...CLI_ENTRY, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  return track(child);
}

/**
 * The CLI as `npm start` and `npm run cli` run it: npm, in the repository's root, with `npmArgs`
 * (e.g. `['run', '--silent', 'cli', '--', 'sandbox', '--port', '0']`). `child` is npm; the CLI's
 * own node process is npm's child (`childPids(cli.child.pid)`).
 */
export function spawnNpm(npmArgs: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', npmArgs, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  return track(child);
}

/** The pids of the processes whose parent is `pid` (`ps -A -o pid=,ppid=`: Linux and macOS). */
export function childPids(pid: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([child, parent]) => parent === pid && Number.isInteger(child))
    .map(([child]) => child!);
}

/** Whether a process with this pid exists (a signal 0 reaches it). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a TCP port on 127.0.0.1 can be listened on now (nothing holds it). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function track(child: ChildProcess): CliProcess {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const closed = new Promise<CliExit>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    closed,
    waitFor: (pattern, timeoutMs = 25_000) =>
      waitForOutput(child, { out: () => out, err: () => err }, pattern, timeoutMs),
  };
}

function waitForOutput(
  child: ChildProcess,
  output: { out(): string; err(): string },
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  const seen = () => `\nstdout: ${output.out()}\nstderr: ${output.err()}`;
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = output.out().match(pattern);
      if (!m) return false;
      done();
      resolve(m);
      return true;
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for ${pattern}${seen()}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      if (check()) return;
      done();
      reject(new Error(`exited ${code} before ${pattern}${seen()}`));
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
}

/**
 * Runs a command to its end: its exit and whole output. Killed (SIGKILL) after `timeoutMs`, which
 * then shows as `signal`. Never rejects.
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: CliOptions & { readonly timeoutMs?: number } = {},
): Promise<CliResult> {
  const cli = spawnCli(args, env, options);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  try {
    const { code, signal } = await cli.closed;
    return { code, signal, stdout: cli.stdout(), stderr: cli.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** runCli, rejecting (with the output in the message) unless the command exits 0. */
export async function runCliOk(
  args: string[],
  env: Record<string, string> = {},
  options: CliOptions & { readonly timeoutMs?: number } = {},
): Promise<CliResult> {
  const result = await runCli(args, env, options);
  if (result.code !== 0) {
    const how = result.signal ? `killed by ${result.signal}` : `exit ${result.code}`;
    throw new Error(`cli ${args.join(' ')}: ${how}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
  return result;
}

/** Kills the child if it still runs (a failed test must not leave servers behind). */
export function killCli(cli: CliProcess | undefined): Promise<unknown> {
  if (!cli || cli.child.exitCode !== null || cli.child.signalCode !== null) return Promise.resolve();
  cli.child.kill('SIGKILL');
  return cli.exit;
}
