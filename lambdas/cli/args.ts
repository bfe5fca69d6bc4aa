/**
 * Strict flag parsing for CLI commands, on top of node:util parseArgs: unknown flags, missing
 * values and bad numbers are usage errors (exit 2) with a message naming the flag.
 */
import { parseArgs } from 'node:util';

export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export function parseFlags<T extends FlagSpec>(argv: string[], spec: T, help: string) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(help.trimEnd() + '\n');
    return undefined;
  }
  try {
    return parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false }).values;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new CliUsageError(`${message.split('\n')[0]}\n\n${help.trimEnd()}`);
  }
}

export function intFlag(
  name: string,
  value: string | undefined,
  opts: { min?: number; max?: number; default: number },
): number;
export function intFlag(
  name: string,
  value: string | undefined,
  opts: { min?: number; max?: number },
): number | undefined;
export function intFlag(
  name: string,
  value: string | undefined,
  opts: { min?: number; max?: number; default?: number },
): number | undefined {
  if (value === undefined) return opts.default;
  if (!/^-?\d+$/.test(value)) throw new CliUsageError(`--${name} must be an integer, got '${value}'`);
  const n = Number(value);
  if (opts.min !== undefined && n < opts.min)
    throw new CliUsageError(`--${name} must be >= ${opts.min}, got ${n}`);
  if (opts.max !== undefined && n > opts.max)
    throw new CliUsageError(`--${name} must be <= ${opts.max}, got ${n}`);
  return n;
}
