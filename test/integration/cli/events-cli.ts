/**
 * Shared by the `events` command's tests as a user runs it (events-sample.test.ts,
 * events-replay-file.test.ts, events-replay-archive.test.ts): the CLI as a child process, killed
 * after its test if it still runs. `useCli` registers that hook; call it at the top of the file.
 */
import { afterEach } from 'vitest';
import { type CliProcess, killCli, spawnCli } from '../../support/cli-process';

export function useCli(): (args: string[], env?: Record<string, string>) => CliProcess {
  const running: CliProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => killCli(c)));
  });
  return (args: string[], env: Record<string, string> = {}) => {
    const child = spawnCli(args, env);
    running.push(child);
    return child;
  };
}
