/**
 * `webhooks add | list | show | update | disable | enable | remove | rotate-secret | status | replay
 * | redrive | listen`: signed webhook endpoints of a deployed stage or of the local stack, managed
 * as data (docs/webhooks.md). One file per concern in ./webhooks/; this one parses the arguments,
 * dispatches, and turns the library's errors into the CLI's: bad input one line and exit 2, AWS
 * that cannot be reached or refuses exit 1.
 *
 * No value given on the command line is echoed back (a URL's path may hold a token): a stray
 * positional argument is reported by its position, not its text.
 */
import { parseArgs } from 'node:util';
import { ReplayInputError } from '../../event-tooling/replay';
import { EndpointInputError } from '../../lambdas/delivery/endpoint';
import { SigningKeyError } from '../../lambdas/delivery/signing-keys';
import { WebhookStoreError } from '../../lambdas/delivery/webhook-store';
import { CliUsageError } from '../args';
import { PreflightError, whereFromEnv } from '../preflight';
import { listen } from './webhooks/listen';
import { add, list, remove, rotate, setEnabled, show, update } from './webhooks/manage';
import { redrive, replay } from './webhooks/recovery';
import { openStack, type WebhookStack } from './webhooks/stack';
import { status } from './webhooks/status';
import {
  FLAGS,
  type Flags,
  HEADERS_ENV,
  HELP,
  SUBCOMMAND_FLAGS,
  SUBCOMMANDS,
  type Subcommand,
} from './webhooks/usage';

const isSubcommand = (s: string): s is Subcommand => (SUBCOMMANDS as readonly string[]).includes(s);

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (!subcommand || subcommand === '--help' || subcommand === '-h') {
    if (subcommand) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    throw new CliUsageError(`a subcommand is required: ${SUBCOMMANDS.join(', ')}`);
  }
  if (!isSubcommand(subcommand))
    throw new CliUsageError(`unknown subcommand '${subcommand.slice(0, 40)}' (${SUBCOMMANDS.join(', ')})`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const flags = parseWebhookFlags(subcommand, rest);
  const misplaced = (Object.keys(flags) as (keyof Flags)[]).filter(
    (f) => !SUBCOMMAND_FLAGS[subcommand].includes(f),
  );
  if (misplaced.length > 0)
    throw new CliUsageError(
      `webhooks ${subcommand} does not take ${misplaced.map((f) => `--${f}`).join(', ')}`,
    );
  if (subcommand === 'listen') return listen(flags);
  try {
    const stack = await openStack(flags);
    return await dispatch(subcommand, flags, stack);
  } catch (err) {
    throw cliError(err);
  }
}

function dispatch(subcommand: Exclude<Subcommand, 'listen'>, flags: Flags, stack: WebhookStack) {
  switch (subcommand) {
    case 'add':
      return add(flags, stack);
    case 'list':
      return list(flags, stack);
    case 'show':
      return show(flags, stack);
    case 'update':
      return update(flags, stack);
    case 'disable':
      return setEnabled(flags, stack, false);
    case 'enable':
      return setEnabled(flags, stack, true);
    case 'remove':
      return remove(flags, stack);
    case 'rotate-secret':
      return rotate(flags, stack);
    case 'status':
      return status(flags, stack);
    case 'replay':
      return replay(flags, stack);
    default:
      return redrive(flags, stack);
  }
}

/** Strict flags; a positional argument is named by its position only (its text may be a secret). */
export function parseWebhookFlags(subcommand: string, argv: string[]): Flags {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof FLAGS; allowPositionals: true }>>;
  // A bare --metrics (last, or before another flag) is --metrics on.
  const bare = (i: number) => argv[i] === '--metrics' && (argv[i + 1] ?? '-').startsWith('-');
  const args = argv.map((word, i) => (bare(i) ? '--metrics=on' : word));
  try {
    parsed = parseArgs({ args, options: FLAGS, strict: true, allowPositionals: true });
  } catch (err) {
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    // parseArgs names the flag, never a value; its advice about '--' does not apply here.
    const secretFlag = /'--(header|headers|secret|api-key)\b/.test(message)
      ? `: a secret is never a flag (signing secret: --secret-stdin; static headers: --headers-stdin or $${HEADERS_ENV})`
      : ' (webhooks --help lists the flags)';
    throw new CliUsageError(`${message.split('. To specify')[0]}${secretFlag}`);
  }
  if (parsed.positionals.length > 0)
    throw new CliUsageError(
      `webhooks ${subcommand} takes flags only: word ${argv.indexOf(parsed.positionals[0]!) + 1} after '${subcommand}' is not a flag (values go right after their flag, e.g. --url URL)`,
    );
  return parsed.values as Flags;
}

/** The library's errors as the CLI's: input (exit 2), or AWS that failed or refused (exit 1). */
function cliError(err: unknown): unknown {
  if (err instanceof CliUsageError || err instanceof PreflightError) return err;
  if (err instanceof EndpointInputError || err instanceof ReplayInputError)
    return new CliUsageError(err.message);
  if (err instanceof SigningKeyError)
    return new PreflightError(
      `${err.message} (Secrets Manager at ${whereFromEnv('SECRETS_MANAGER')}; with --secret-prefix the stack output WebhookSecretPrefix)`,
      { cause: err },
    );
  if (err instanceof WebhookStoreError) return new PreflightError(err.message, { cause: err });
  if (err instanceof Error && '$metadata' in err)
    return new PreflightError(`AWS refused or could not be reached: ${err.name}: ${err.message}`, {
      cause: err,
    });
  return err;
}
