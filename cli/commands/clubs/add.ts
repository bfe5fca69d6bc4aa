/**
 * `clubs add`: credentials to Secrets Manager (one secret per club, or with --shared-secret the
 * clubs' API keys in one secret of their integrator login), then the clubs to the registry: a
 * club is never listed before its credentials exist, and a refused secret writes nothing.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  ClubSecretContentionError,
  ClubSecretError,
  checkClubSecretWrite,
  clubRecordFrom,
  type DynamoDbClubRegistry,
  putClubSecret,
  putSharedClubKeys,
} from '../../../lambdas/clubs';
import { CliUsageError } from '../../args';
import { dynamoDbClient } from '../../aws-env';
import { count } from '../../format';
import { PreflightError, whereFromEnv } from '../../preflight';
import { type ClubToAdd, clubFromFlags, clubsFromFile } from './club-input';
import { registryFor } from './state-table';
import { DEFAULT_SECRET_PREFIX, type Flags } from './usage';

/**
 * A secret write that failed, for the terminal: refused (the secret holds the other form, another
 * login, too many clubs; nothing written) is exit 2; an endpoint that does not answer, or is not
 * Secrets Manager, is exit 1 with where it was asked and what to check.
 */
function secretWriteFailure(err: ClubSecretError): Error {
  if (!err.retryable) return new CliUsageError(err.message);
  if (err instanceof ClubSecretContentionError) return err; // other writers, not the endpoint: exit 1
  return new PreflightError(
    `${err.message} (Secrets Manager at ${whereFromEnv('SECRETS_MANAGER')}): check AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER and the AWS credentials (local-aws serves Secrets Manager too: use the environment it prints)`,
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

export async function add(flags: Flags, tableName: string): Promise<number> {
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
  process.stdout.write(`shared secret ${secretName} ${secret}: ${count(clubs.length, 'club key')} written\n`);
  return 0;
}
