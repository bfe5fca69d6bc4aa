/**
 * Strict flag parsing for CLI commands, on top of node:util parseArgs: unknown flags, missing
 * values and bad numbers are usage errors (exit 2) with a one-line message naming the flag and
 * pointing at `--help`. A negative number is a value (`--speed -1` is "--speed must be >= 1"), not
 * a flag: parseArgs alone calls it ambiguous.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_PII_POLICY, isPiiPolicy, PII_POLICIES, type PiiPolicy } from '../lambdas/events/pii';

export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/** What every usage error ends with: where the flags are listed. */
export const HELP_HINT = '(--help lists the flags)';

/** A value that starts with a dash and is a number: `-5`, `-0.5`, `-.5`, `-1e3`. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * `--flag -5` as `--flag=-5` for the flags that take a value, so that parseArgs reads the number
 * as the value; any other token is left as it is (a missing value stays a missing value).
 */
function joinNegativeValues(argv: readonly string[], spec: FlagSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const next = argv[i + 1];
    const name = token.startsWith('--') && !token.includes('=') ? token.slice(2) : undefined;
    if (
      name !== undefined &&
      spec[name]?.type === 'string' &&
      next !== undefined &&
      NEGATIVE_NUMBER.test(next)
    ) {
      out.push(`${token}=${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/** parseArgs' error in this CLI's words, on one line. */
function flagError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | undefined)?.code;
  const option = /'(-[^' <]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `Unknown option '${option}'`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const arg = /'([^']*)'/.exec(message)?.[1] ?? '';
    return `unexpected argument '${arg}': every value follows its flag (--name VALUE)`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    if (/does not take an argument/.test(message)) return `'${option}' takes no value`;
    if (/ambiguous/.test(message))
      return `'${option}' needs a value; a value that starts with a dash goes as ${option}=VALUE`;
    return `'${option}' needs a value`;
  }
  return message.split('\n')[0]!;
}

export function parseFlags<T extends FlagSpec>(argv: string[], spec: T, help: string) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(help.trimEnd() + '\n');
    return undefined;
  }
  try {
    return parseArgs({
      args: joinNegativeValues(argv, spec),
      options: spec,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new CliUsageError(`${flagError(err)} ${HELP_HINT}`, { cause: err });
  }
}

/** `--pii`: one of the PII policies, the bridge's default when not given. */
export function piiFlag(value: string | undefined): PiiPolicy {
  if (value === undefined) return DEFAULT_PII_POLICY;
  if (!isPiiPolicy(value))
    throw new CliUsageError(`--pii must be ${PII_POLICIES.join(' or ')}, got '${value}'`);
  return value;
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
