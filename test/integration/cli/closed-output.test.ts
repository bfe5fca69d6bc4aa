/**
 * The CLI piped into a reader that goes away early (`| head`, a `| jq` that exits): every command
 * ends quietly with exit 0, no EPIPE stack trace. The reader's end of the pipe is closed before the
 * command writes anything, so each command's first write meets EPIPE (no timing involved).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, killCli, spawnCli } from '../../support/cli-process';

const children: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map(killCli));
});

/** Runs the CLI with its stdout's reader gone; resolves with the exit code and stderr. */
async function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const cli = spawnCli(args);
  children.push(cli);
  cli.child.stdout?.destroy();
  const { code } = await cli.closed;
  return { code, stderr: cli.stderr() };
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
