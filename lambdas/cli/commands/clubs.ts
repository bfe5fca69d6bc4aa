/**
 * `clubs add|list|disable|resume`: onboard clubs into a deployed bridge, and resume a paused one. Club settings go to the state
 * table (registry), credentials to Secrets Manager (one secret per club, `<prefix><clubId>`, or with
 * --shared-secret NAME the clubs' API keys in one secret of their integrator login,
 * `<prefix><NAME>`: $0.40 a month for hundreds of clubs instead of for each), never to the table,
 * the terminal or the shell history: the password is read from an environment
 * variable or stdin, not from a flag. AWS endpoints, region and credentials come from the standard
 * SDK environment (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_SECRETS_MANAGER, ...).
 */
import { readFile } from 'node:fs/promises';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  type ClubRecord,
  ClubSecretError,
  checkClubSecretWrite,
  clubRecordFrom,
  DynamoDbClubRegistry,
  putClubSecret,
  putSharedClubKeys,
} from '../../clubs';
import { type ClubConfig, ClubConfigError, parseClubsFile } from '../../clubs/club-config';
import { readClubsFile } from '../../clubs/clubs-file';
import { type ResumeClubResult, resumeClub } from '../../engine/resume-club';
import { DEFAULT_SOURCES, SOURCE_ORDER, SOURCES } from '../../sources';
import { DynamoDbStateStore, SOURCE_NAMES } from '../../state';
import { CliUsageError, parseFlags } from '../args';
import { dynamoDbClient } from '../aws-env';
import { checkTableExists, checkTableName, PreflightError, whereFromEnv } from '../preflight';

export const summary =
  'onboard clubs of a deployed bridge: add, list, disable (table + Secrets Manager); resume a paused club';

export const DEFAULT_SECRET_PREFIX = 'gym-bridge/clubs/';
export const PASSWORD_ENV = 'GYM_BRIDGE_PASSWORD';
export const API_KEY_ENV = 'GYM_BRIDGE_API_KEY';

const EXPERIMENTAL = SOURCE_ORDER.filter((s) => SOURCES[s].experimental);

const HELP = `usage: npm run --silent cli -- clubs <add|list|disable|resume> [flags]

  clubs add --club-id ID --base-url URL --time-zone ZONE --plan basic|advanced --username USER
            [--api-key KEY] [--password-stdin] [--source NAME]... [--pii-policy minimal|full]
            [--unstated-zone local|utc [--unstated-zone-confirmed]] [--table NAME]
            [--secret-prefix PREFIX] [--shared-secret NAME]
      Adds (or updates) one club. The integrator password comes from $${PASSWORD_ENV} or, with
      --password-stdin, from standard input; never from a flag. The API key comes from --api-key
      or $${API_KEY_ENV}. --unstated-zone-confirmed: you have checked how the club's API writes
      the times whose zone it does not state (docs/operations.md); polls then re-read an hour
      behind their watermark instead of 15 hours or more.
  clubs add --from-clubs-file FILE [--table NAME] [--secret-prefix PREFIX] [--shared-secret NAME]
      Adds (or updates) every club of a clubs file (JSON, see README).
  --shared-secret NAME: the clubs' API keys go into ONE secret, <prefix>NAME, with their integrator
      login (created if missing, the other clubs in it kept): the form for a fleet, since a secret
      costs $0.40 a month. All clubs of one shared secret share one login; about 600 fit in one
      (Secrets Manager's 64 KB), more go into another NAME. Without it, one secret per club.
  clubs list [--all] [--json] [--table NAME]
      Enabled clubs (--all: disabled ones too), without credentials.
  clubs disable --club-id ID [--table NAME]
      Stops polling a club; its settings, secret and state stay.
  clubs resume --club-id ID [--retry-unavailable] [--table NAME]
      Polls a paused club again at once (after rejected credentials or a 429 it waits with back-off):
      clears the pause on every source of the club and restarts the failure count, so the next
      rejection pauses briefly and is announced again. Fix the credentials first (clubs add).
      --retry-unavailable: also re-tries now the sources whose endpoint was found missing (404/403),
      instead of at their next try (every 6 hours).

  --table NAME            DynamoDB state table            (default $STATE_TABLE_NAME or gym-bridge-state)
  --secret-prefix PREFIX  club secret name prefix: the stack output ClubSecretPrefix
                          (default $CLUB_SECRET_PREFIX, else ${DEFAULT_SECRET_PREFIX})
  --source NAME           one of ${SOURCE_NAMES.join(', ')}
                          (default: ${DEFAULT_SOURCES.join(', ')}; ${EXPERIMENTAL.join(', ')} is experimental
                          and polled only when listed: a 404/400/403 from it marks it unavailable)

AWS: AWS_REGION (or AWS_ENDPOINT_URL_*), AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SECRETS_MANAGER
and the usual credentials.`;

const FLAGS = {
  table: { type: 'string' },
  'secret-prefix': { type: 'string' },
  'shared-secret': { type: 'string' },
  'club-id': { type: 'string' },
  'base-url': { type: 'string' },
  'time-zone': { type: 'string' },
  plan: { type: 'string' },
  username: { type: 'string' },
  'api-key': { type: 'string' },
  'password-stdin': { type: 'boolean' },
  source: { type: 'string', multiple: true },
  'pii-policy': { type: 'string' },
  'unstated-zone': { type: 'string' },
  'unstated-zone-confirmed': { type: 'boolean' },
  'from-clubs-file': { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  'retry-unavailable': { type: 'boolean' },
} as const;

type Flags = NonNullable<ReturnType<typeof parseFlags<typeof FLAGS>>>;

const SUBCOMMAND_FLAGS: Record<string, readonly (keyof Flags)[]> = {
  add: [
    'table',
    'secret-prefix',
    'shared-secret',
    'club-id',
    'base-url',
    'time-zone',
    'plan',
    'username',
    'api-key',
    'password-stdin',
    'source',
    'pii-policy',
    'unstated-zone',
    'unstated-zone-confirmed',
    'from-clubs-file',
  ],
  list: ['table', 'all', 'json'],
  disable: ['table', 'club-id'],
  resume: ['table', 'club-id', 'retry-unavailable'],
};

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (!subcommand || subcommand === '--help' || subcommand === '-h') {
    if (subcommand) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    throw new CliUsageError(`a subcommand is required: add, list, disable or resume\n\n${HELP}`);
  }
  const allowed = SUBCOMMAND_FLAGS[subcommand];
  if (!allowed)
    throw new CliUsageError(`unknown subcommand '${subcommand}' (add, list, disable or resume)\n\n${HELP}`);
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

/** The registry of an existing state table (a missing one: exit 2, saying which and where). */
async function registryFor(tableName: string): Promise<DynamoDbClubRegistry> {
  const client = dynamoDbClient();
  await checkTableExists(client, tableName, { whenMissing: TABLE_MISSING });
  return new DynamoDbClubRegistry({ client, tableName });
}

const TABLE_MISSING =
  'give the deployed table with --table (the stack output StateTableName) or $STATE_TABLE_NAME, and check AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB';

/**
 * A secret write that failed, for the terminal: refused (the secret holds the other form, another
 * login, too many clubs; nothing written) is exit 2; an endpoint that does not answer, or is not
 * Secrets Manager, is exit 1 with where it was asked and what to check.
 */
function secretWriteFailure(err: ClubSecretError): Error {
  if (!err.retryable) return new CliUsageError(err.message);
  return new PreflightError(
    `${err.message} (Secrets Manager at ${whereFromEnv('SECRETS_MANAGER')}): check AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER and the AWS credentials (local-aws serves DynamoDB and EventBridge, not Secrets Manager)`,
    { cause: err },
  );
}

function secretPrefix(flags: Flags): string {
  // Same fallback chain as --table: flag, then the variable the stack sets, then the default.
  const prefix = flags['secret-prefix'] ?? process.env.CLUB_SECRET_PREFIX ?? DEFAULT_SECRET_PREFIX;
  if (!/^[A-Za-z0-9/_+=.@-]{1,256}$/.test(prefix)) {
    throw new CliUsageError(`--secret-prefix may use letters, digits and /_+=.@- only, got '${prefix}'`);
  }
  return prefix;
}

type ClubToAdd = { config: ClubConfig; explicitPiiPolicy: boolean };

async function add(flags: Flags, tableName: string): Promise<number> {
  const prefix = secretPrefix(flags);
  const shared = flags['shared-secret'] === undefined ? undefined : sharedName(flags['shared-secret']);
  let clubs: ClubToAdd[];
  if (flags['from-clubs-file']) {
    const single = (
      ['club-id', 'base-url', 'time-zone', 'plan', 'username', 'api-key', 'password-stdin', 'source'] as const
    ).filter((f) => flags[f] !== undefined);
    if (single.length > 0) {
      throw new CliUsageError(
        `--from-clubs-file cannot be combined with ${single.map((f) => `--${f}`).join(', ')}`,
      );
    }
    clubs = await clubsFromFile(flags['from-clubs-file']);
  } else {
    clubs = [{ config: await clubFromFlags(flags), explicitPiiPolicy: flags['pii-policy'] !== undefined }];
  }
  if (shared !== undefined) sharedLogin(clubs);

  const registry = await registryFor(tableName);
  const secrets = new SecretsManagerClient({ region: await dynamoDbClient().config.region() });
  try {
    if (shared !== undefined) return await addShared(registry, secrets, `${prefix}${shared}`, clubs);
    // Every club's secret is checked before any is written: a refusal writes nothing.
    for (const { config } of clubs) {
      await checkClubSecretWrite(secrets, `${prefix}${config.clubId}`, {
        form: 'club',
        clubId: config.clubId,
      });
    }
    for (const { config, explicitPiiPolicy } of clubs) {
      const secretName = `${prefix}${config.clubId}`;
      const existed = (await registry.get(config.clubId)) !== undefined;
      // Secret first: a club is never listed before its credentials exist.
      const secret = await putClubSecret(secrets, secretName, config.credentials);
      await registry.put(clubRecordFrom(config, secretName, { explicitPiiPolicy }));
      process.stdout.write(
        `${config.clubId}: ${existed ? 'updated' : 'added'} (${config.plan}, ${config.timeZone}; secret ${secretName} ${secret})\n`,
      );
    }
  } catch (err) {
    if (err instanceof ClubSecretError) throw secretWriteFailure(err);
    throw err;
  } finally {
    secrets.destroy();
  }
  return 0;
}

function sharedName(name: string): string {
  if (!/^[A-Za-z0-9/_+=.@-]{1,256}$/.test(name)) {
    throw new CliUsageError(`--shared-secret may use letters, digits and /_+=.@- only, got '${name}'`);
  }
  return name;
}

/** The one integrator login of clubs bound for one shared secret (refused: two logins). */
function sharedLogin(clubs: readonly ClubToAdd[]): { username: string; password: string } | undefined {
  const [first] = clubs;
  if (!first) return undefined;
  const { username, password } = first.config.credentials;
  const other = clubs.find(
    (c) => c.config.credentials.username !== username || c.config.credentials.password !== password,
  );
  if (other) {
    throw new CliUsageError(
      `clubs in one shared secret share one integrator login: '${other.config.clubId}' has another username or password than '${first.config.clubId}'`,
    );
  }
  return { username, password };
}

/** The clubs' keys into one shared secret (one write for all), then their records. */
async function addShared(
  registry: DynamoDbClubRegistry,
  secrets: SecretsManagerClient,
  secretName: string,
  clubs: ClubToAdd[],
): Promise<number> {
  const login = sharedLogin(clubs);
  if (!login) return 0;
  const keys = Object.fromEntries(clubs.map((c) => [c.config.clubId, c.config.credentials.apiKey]));
  // Secret first: a club is never listed before its credentials exist. The secret is checked
  // (its form, its login, its size) before it is written.
  const secret = await putSharedClubKeys(secrets, secretName, login, keys);
  for (const { config, explicitPiiPolicy } of clubs) {
    const existed = (await registry.get(config.clubId)) !== undefined;
    await registry.put(clubRecordFrom(config, secretName, { explicitPiiPolicy }));
    process.stdout.write(
      `${config.clubId}: ${existed ? 'updated' : 'added'} (${config.plan}, ${config.timeZone}; shared secret ${secretName})\n`,
    );
  }
  process.stdout.write(`shared secret ${secretName} ${secret}: ${clubs.length} club key(s) written\n`);
  return 0;
}

async function clubFromFlags(flags: Flags): Promise<ClubConfig> {
  const required = ['club-id', 'base-url', 'time-zone', 'plan', 'username'] as const;
  const missing = required.filter((f) => !flags[f]);
  if (missing.length > 0) {
    throw new CliUsageError(
      `clubs add needs ${missing.map((f) => `--${f}`).join(', ')} (or --from-clubs-file FILE)\n\n${HELP}`,
    );
  }
  const password = flags['password-stdin'] ? await readStdin() : process.env[PASSWORD_ENV];
  if (!password) {
    throw new CliUsageError(
      flags['password-stdin']
        ? 'standard input held no password'
        : `the integrator password is read from $${PASSWORD_ENV} or, with --password-stdin, from standard input (never from a flag)`,
    );
  }
  const apiKey = flags['api-key'] ?? process.env[API_KEY_ENV];
  if (!apiKey) throw new CliUsageError(`give the club's API key with --api-key or $${API_KEY_ENV}`);
  if (flags['unstated-zone-confirmed'] && !flags['unstated-zone']) {
    throw new CliUsageError(
      '--unstated-zone-confirmed needs --unstated-zone local|utc: say which reading you checked',
    );
  }
  const raw = {
    clubId: flags['club-id'],
    baseUrl: flags['base-url'],
    timeZone: flags['time-zone'],
    plan: flags.plan,
    credentials: { username: flags.username, password, apiKey },
    ...(flags.source?.length ? { sources: flags.source } : {}),
    ...(flags['pii-policy'] ? { piiPolicy: flags['pii-policy'] } : {}),
    ...(flags['unstated-zone'] ? { unstatedZone: flags['unstated-zone'] } : {}),
    ...(flags['unstated-zone-confirmed'] ? { unstatedZoneConfirmed: true } : {}),
  };
  try {
    return parseClubsFile({ clubs: [raw] }, 'the flags')[0]!;
  } catch (err) {
    if (err instanceof ClubConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

async function clubsFromFile(path: string): Promise<ClubToAdd[]> {
  let configs: ClubConfig[];
  try {
    configs = await readClubsFile(path);
  } catch (err) {
    if (err instanceof ClubConfigError) throw new CliUsageError(err.message);
    throw err;
  }
  // The file is valid JSON by now; which clubs set a PII policy themselves (the others get the
  // deployment's default)?
  const raw = JSON.parse(await readFile(path, 'utf8')) as { clubs: { piiPolicy?: unknown }[] };
  return configs.map((config, i) => ({ config, explicitPiiPolicy: raw.clubs[i]?.piiPolicy !== undefined }));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function list(flags: Flags, tableName: string): Promise<number> {
  const registry = await registryFor(tableName);
  const { clubs } = flags.all ? await registry.listAll() : await registry.listEnabled();
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(clubs, null, 2)}\n`);
    return 0;
  }
  if (clubs.length === 0) {
    process.stdout.write(`no ${flags.all ? '' : 'enabled '}clubs in ${tableName}\n`);
    return 0;
  }
  process.stdout.write(`${formatTable(clubs)}\n`);
  return 0;
}

function formatTable(clubs: readonly ClubRecord[]): string {
  const header = ['CLUB', 'ENABLED', 'PLAN', 'TIME ZONE', 'PII', 'SOURCES', 'BASE URL', 'SECRET'];
  const rows = clubs.map((c) => [
    c.clubId,
    c.enabled ? 'yes' : 'no',
    c.plan,
    c.timeZone,
    c.piiPolicy ?? 'default',
    c.sources?.join(',') ?? 'default',
    c.baseUrl,
    c.secretName,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function disable(flags: Flags, tableName: string): Promise<number> {
  const clubId = flags['club-id'];
  if (!clubId) throw new CliUsageError('clubs disable needs --club-id ID');
  const done = await (await registryFor(tableName)).disable(clubId);
  if (!done) {
    process.stderr.write(`gym-bridge clubs: no club '${clubId}' in ${tableName}\n`);
    return 1;
  }
  process.stdout.write(`${clubId}: disabled (settings, secret and state kept; clubs add enables it again)\n`);
  return 0;
}

async function resume(flags: Flags, tableName: string): Promise<number> {
  const clubId = flags['club-id'];
  if (!clubId) throw new CliUsageError('clubs resume needs --club-id ID');
  const client = dynamoDbClient();
  await checkTableExists(client, tableName, { whenMissing: TABLE_MISSING });
  const store = new DynamoDbStateStore({ client, tableName });
  const result = await resumeClub(store, clubId, Date.now(), {
    retryUnavailable: flags['retry-unavailable'] === true,
  });
  if (result.cursors === 0) {
    process.stderr.write(
      `gym-bridge clubs: no state for club '${clubId}' in ${tableName} (never polled there)\n`,
    );
    return 1;
  }
  process.stdout.write(formatResume(result));
  return 0;
}

/** What `clubs resume` (and `poll --resume`) cleared, one line per source, or that nothing was. */
export function formatResume(result: ResumeClubResult): string {
  if (result.resumed.length === 0) return `${result.clubId}: not paused, nothing to resume\n`;
  const lines = result.resumed.map((r) => {
    const parts: string[] = [];
    if (r.pausedUntil) {
      parts.push(`${r.pauseWasActive ? 'pause' : 'expired pause'} until ${r.pausedUntil} cleared`);
    }
    if (r.consecutiveFailures) parts.push(`${r.consecutiveFailures} failures in a row reset`);
    if (r.lastError) parts.push(`last error: ${r.lastError.slice(0, 120)}`);
    if (r.unavailable)
      parts.push(`unavailable mark (${r.unavailable.kind} since ${r.unavailable.since}) cleared`);
    return `  ${r.source}: ${parts.join('; ')}`;
  });
  return `${result.clubId}: resumed, polled at the next poll\n${lines.join('\n')}\n`;
}
