/**
 * `clubs add|list|disable|resume`: onboard clubs into a deployed bridge, and resume a paused one. Club settings go to the state
 * table (registry), credentials to Secrets Manager (one secret per club, `<prefix><clubId>`, or with
 * --shared-secret NAME the clubs' API keys in one secret of their integrator login,
 * `<prefix><NAME>`: $0.40 a month for hundreds of clubs instead of for each), never to the table,
 * the terminal or the shell history: the password is read from an environment
 * variable or stdin, not from a flag. AWS endpoints, region and credentials come from the standard
 * SDK environment (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_SECRETS_MANAGER, ...).
 *
 * One file per subcommand in commands/clubs/; this one parses the arguments and dispatches.
 */
import { CliUsageError, HELP_HINT, parseFlags } from '../args';
import { checkTableName } from '../preflight';
import { add } from './clubs/add';
import { disable } from './clubs/disable';
import { list } from './clubs/list';
import { resume } from './clubs/resume';
import { FLAGS, type Flags, HELP, SUBCOMMAND_FLAGS } from './clubs/usage';

export { formatResume } from './clubs/resume';
export { API_KEY_ENV, DEFAULT_SECRET_PREFIX, PASSWORD_ENV } from './clubs/usage';

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (!subcommand || subcommand === '--help' || subcommand === '-h') {
    if (subcommand) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    throw new CliUsageError(`a subcommand is required: add, list, disable or resume ${HELP_HINT}`);
  }
  const allowed = SUBCOMMAND_FLAGS[subcommand];
  if (!allowed)
    throw new CliUsageError(`unknown subcommand '${subcommand}' (add, list, disable or resume) ${HELP_HINT}`);
  const flags = parseFlags(rest, FLAGS, HELP);
  if (!flags) return 0;
  const misplaced = (Object.keys(flags) as (keyof Flags)[]).filter((f) => !allowed.includes(f));
  if (misplaced.length > 0) {
    throw new CliUsageError(`clubs ${subcommand} does not take ${misplaced.map((f) => `--${f}`).join(', ')}`);
  }
  const tableName = flags.table ?? process.env.STATE_TABLE_NAME ?? 'gym-bridge-state';
  checkTableName(tableName);
  switch (subcommand) {
    case 'add':
      return add(flags, tableName);
    case 'list':
      return list(flags, tableName);
    case 'resume':
      return resume(flags, tableName);
    default:
      return disable(flags, tableName);
  }
}
