/**
 * Where the CLI's structured logs go. A command's own output (reports, events, tables) is for a
 * person and goes to stdout; the engine's JSON log lines go to stderr whatever their level, so
 * `poll --once > report.txt` or a pipe into `jq` never mixes the two. Their level is
 * `--log-level` (any command), else `LOG_LEVEL`, else `warn`.
 *
 * How: the runtime logger's own `output` (lambdas/common/logger.ts BridgeLogger), a Console whose
 * both streams are stderr, one plain line per log line at every level; the children the engine
 * makes afterwards (one per poll message) keep it. Powertools itself has no option for the stream
 * (its console is private, from `process.stdout`/`process.stderr`); the CLI touches none of its
 * internals.
 */
import { Console } from 'node:console';
import { logger } from '../lambdas/common/logger';
import { CliUsageError } from './args';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type CliLogLevel = (typeof LOG_LEVELS)[number];

/** The CLI's default: warnings and errors, which say what went wrong beyond the report. */
export const DEFAULT_CLI_LOG_LEVEL: CliLogLevel = 'warn';

export function parseLogLevel(value: string): CliLogLevel {
  const level = value.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as CliLogLevel;
  throw new CliUsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got '${value}'`);
}

/**
 * Takes a global `--log-level LEVEL` (or `--log-level=LEVEL`) out of `argv`, wherever it stands,
 * and returns the rest with the level asked for.
 */
export function extractLogLevel(argv: readonly string[]): { argv: string[]; level?: CliLogLevel } {
  const rest: string[] = [];
  let level: CliLogLevel | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--log-level') {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--'))
        throw new CliUsageError(`--log-level needs a value: ${LOG_LEVELS.join(', ')}`);
      level = parseLogLevel(value);
      i++;
    } else if (arg.startsWith('--log-level=')) {
      level = parseLogLevel(arg.slice('--log-level='.length));
    } else {
      rest.push(arg);
    }
  }
  return level === undefined ? { argv: rest } : { argv: rest, level };
}

/** Every log line of the runtime logger (and its children created later) to stderr, at `level`. */
export function configureCliLogs(level: CliLogLevel): void {
  logger.setOutput(new Console({ stdout: process.stderr, stderr: process.stderr }));
  logger.setLogLevel(
    level === 'silent' ? 'SILENT' : (level.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'),
  );
}
