#!/usr/bin/env node
/**
 * gym-bridge CLI: `npm run --silent cli -- <command> [flags]`.
 * Each command lives in ./commands/<name>.ts and exports `run(argv: string[]): Promise<number>`
 * (the process exit code); COMMANDS below lists them with a line each.
 */
import { redactKnownSecrets } from '../lambdas/common/redact';
import { CliUsageError } from './args';
import { requestStop, settled } from './stop-signal';

// The CLI runs on the developer's Node (20 here); Lambda runs 22. The SDK's Node-20 notice and
// INFO-level JSON logs would bury the CLI's own output: quiet by default, both can be turned back on.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'WARN';

// A reader that goes away early (`| head`, a `| jq` that exits) is not a failure: an EPIPE on stdout
// ends every command quietly with exit 0. A command that runs until stopped stops as on Ctrl-C
// (finishing its poll, closing its servers); any other ends at once. Other stdout errors stay errors.
let outputClosed = false;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  if (outputClosed) return;
  outputClosed = true;
  if (!requestStop()) process.exit(0);
});

// A terminal or a parent that went away takes stderr with it: what is said there is lost, and
// the command carries on to its summary and exit rather than crash on the write.
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

// The last pass over everything the CLI prints: no credential this process has used (a clubs file's,
// the API client's, a token) reaches the terminal, whatever text carried it (common/redact.ts).
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') return write(redactKnownSecrets(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk).toString('utf8');
      const clean = redactKnownSecrets(text);
      return write(clean === text ? chunk : Buffer.from(clean, 'utf8'), ...rest);
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

export interface CliCommand {
  run(argv: string[]): Promise<number>;
}

/** A command: what it does, in one line for the list, and its module (loaded when it runs). */
interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<CliCommand>;
}

/**
 * Every command, in the order `--help` lists them. A new one is one entry here and a module in
 * ./commands/ exporting `run`.
 */
const COMMANDS: Record<string, CommandEntry> = {
  start: {
    summary: 'the local demo: sandbox, embedded DynamoDB and the bridge; events printed live',
    load: () => import('./commands/start'),
  },
  sandbox: {
    summary: 'serve the gym API sandbox (seeded clubs, faults, poison mode, ground-truth journal)',
    load: () => import('./commands/sandbox'),
  },
  'local-aws': {
    summary: 'local DynamoDB, EventBridge (buses, archives, replays) and Secrets Manager, in memory',
    load: () => import('./commands/local-aws'),
  },
  poll: {
    summary: 'poll clubs with the real engine: DynamoDB state, events to a bus or a file',
    load: () => import('./commands/poll'),
  },
  status: {
    summary: 'per club and source: watermark, age, last error, pauses, unavailable sources, quota',
    load: () => import('./commands/status'),
  },
  explain: {
    summary: "why an event fired or didn't: a member, prospect, payment or club; webhook deliveries",
    load: () => import('./commands/explain'),
  },
  schemas: {
    summary: 'the JSON Schemas of every event; the catalog page, AsyncAPI, releases, the packages',
    load: () => import('./commands/schemas'),
  },
  clubs: {
    summary: 'onboard clubs of a deployed bridge: add, list, disable, resume',
    load: () => import('./commands/clubs'),
  },
  events: {
    summary: "sample events for tests, replay history to a bus, match a rule's pattern",
    load: () => import('./commands/events'),
  },
  webhooks: {
    summary: 'signed webhooks to HTTPS endpoints: add, list, rotate, status, replay, redrive; listen',
    load: () => import('./commands/webhooks'),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'usage: npm run --silent cli -- <command> [flags]',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run a command with --help for its flags (docs/cli.md has them all).',
    'Any command: --log-level debug|info|warn|error|silent (JSON log lines, on stderr; default warn).',
  ].join('\n');
}

async function main(args: string[]): Promise<number> {
  // `--log-level` works with every command; the runtime's JSON log lines go to stderr, so a
  // command's own output on stdout stays readable (log-output.ts).
  const logs = await import('./log-output');
  let argv: string[];
  try {
    const parsed = logs.extractLogLevel(args);
    argv = parsed.argv;
    const fromEnv = process.env.LOG_LEVEL?.toLowerCase();
    const envLevel = (logs.LOG_LEVELS as readonly string[]).includes(fromEnv ?? '')
      ? (fromEnv as (typeof logs.LOG_LEVELS)[number])
      : undefined;
    logs.configureCliLogs(parsed.level ?? envLevel ?? logs.DEFAULT_CLI_LOG_LEVEL);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    process.stderr.write(`gym-bridge: ${err.message}\n`);
    return 2;
  }
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`gym-bridge: unknown command '${name}'\n\n${usage()}\n`);
    return 2;
  }
  const command = await entry.load();
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`gym-bridge ${name}: ${err.message}\n`);
      return 2;
    }
    // A start-up check that could not reach an endpoint (preflight.ts; by name, so that commands
    // without AWS do not load the SDK): the message, exit 1.
    if (err instanceof Error && err.name === 'PreflightError') {
      process.stderr.write(`gym-bridge ${name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  async (code) => {
    // Copies of a Ctrl-C still on their way (tsx, npm) must not kill the process as it ends.
    await settled();
    process.exitCode = outputClosed ? 0 : code;
  },
  (err: unknown) => {
    process.stderr.write(`gym-bridge: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
