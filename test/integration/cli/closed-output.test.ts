/**
 * The CLI piped into a reader that goes away early (`| head`, a `| jq` that exits): every command
 * ends quietly with exit 0, no EPIPE stack trace. The reader's end of the pipe is closed before the
 * command writes anything, so each command's first write meets EPIPE (no timing involved).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Runs the CLI with its stdout's reader gone; resolves with the exit code and stderr. */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lambdas/cli/main.ts', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout?.destroy();
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('stdout closed early', () => {
  it.each([
    ['schemas', ['schemas']],
    ['events sample', ['events', 'sample', '--type', 'Payment Failed', '--count', '3']],
    ['a command that runs until stopped (start)', ['start', '--clubs', '1', '--duration', '600']],
    ['the usage', ['--help']],
  ])(
    '%s ends quietly with exit 0',
    async (_name, args) => {
      const { code, stderr } = await runWithClosedStdout(args);
      expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
      expect(code, stderr).toBe(0);
    },
    90_000,
  );
});
