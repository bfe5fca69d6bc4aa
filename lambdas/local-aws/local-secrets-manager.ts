/**
 * A local Secrets Manager endpoint for `local-aws` (so that `clubs add`, `clubs list` and the poll
 * function's secret reads run on a laptop): the AWS JSON 1.1 protocol (`X-Amz-Target:
 * secretsmanager.<Operation>`) through the shared helper (./aws-json-server.ts), in memory,
 * signatures not checked.
 *
 * Operations: CreateSecret (ResourceExistsException when the name is taken), GetSecretValue (by
 * name or ARN; AWSCURRENT, or a VersionId or VersionStage), PutSecretValue (a new version, staged
 * AWSCURRENT unless VersionStages says otherwise; the previous current becomes AWSPREVIOUS; the
 * same ClientRequestToken with the same value is the same version, with another value a
 * ResourceExistsException, as in AWS), DescribeSecret. Tests have their own, with faults and
 * counters (test/support/local-secrets-manager.ts); this one is what a person runs.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AwsJsonError, type AwsJsonOperation, requireString, startAwsJsonServer } from './aws-json-server';

export interface LocalSecretsManagerOptions {
  /** @default 0 (an ephemeral port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '000000000000' */
  readonly accountId?: string;
}

export interface LocalSecretsManager {
  readonly endpoint: string;
  /** Names of the secrets held. */
  names(): string[];
  close(): Promise<void>;
}

interface Version {
  readonly id: string;
  readonly value: string;
  readonly createdAtMs: number;
  stages: string[];
}

interface Secret {
  readonly name: string;
  readonly arn: string;
  readonly description?: string;
  readonly createdAtMs: number;
  lastChangedAtMs: number;
  readonly versions: Version[];
}

const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const CURRENT = 'AWSCURRENT';
const PREVIOUS = 'AWSPREVIOUS';
const seconds = (ms: number) => ms / 1000;

function secretString(input: Record<string, unknown>): string {
  const value = input.SecretString;
  if (typeof value !== 'string')
    throw new AwsJsonError(
      'InvalidParameterException',
      'SecretString is required (SecretBinary is not supported here).',
    );
  return value;
}

const token = (input: Record<string, unknown>) =>
  typeof input.ClientRequestToken === 'string' && input.ClientRequestToken
    ? input.ClientRequestToken
    : randomUUID();

/** Adds a version (or finds the one this token already made), moving the stages it takes. */
function addVersion(secret: Secret, id: string, value: string, stages: string[]): Version {
  const same = secret.versions.find((v) => v.id === id);
  if (same) {
    if (same.value !== value)
      throw new AwsJsonError('ResourceExistsException', `Version ${id} already exists with another value.`);
    return same;
  }
  const current = secret.versions.find((v) => v.stages.includes(CURRENT));
  for (const v of secret.versions) v.stages = v.stages.filter((s) => !stages.includes(s));
  if (current && stages.includes(CURRENT)) {
    for (const v of secret.versions) v.stages = v.stages.filter((s) => s !== PREVIOUS);
    current.stages.push(PREVIOUS);
  }
  const version = { id, value, createdAtMs: Date.now(), stages: [...stages] };
  secret.versions.push(version);
  secret.lastChangedAtMs = version.createdAtMs;
  return version;
}

function operations(secrets: Map<string, Secret>, arnBase: string): Record<string, AwsJsonOperation> {
  const find = (id: string): Secret => {
    const secret = secrets.get(id) ?? [...secrets.values()].find((s) => s.arn === id);
    if (!secret)
      throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };
  return {
    CreateSecret: (input) => {
      const name = requireString(input, 'Name');
      if (!NAME.test(name))
        throw new AwsJsonError('ValidationException', 'Invalid name. Must be a valid name.');
      if (secrets.has(name))
        throw new AwsJsonError(
          'ResourceExistsException',
          `The operation failed because the secret ${name} already exists.`,
        );
      const now = Date.now();
      const secret: Secret = {
        name,
        arn: `${arnBase}:secret:${name}-${randomBytes(3).toString('hex')}`,
        ...(typeof input.Description === 'string' ? { description: input.Description } : {}),
        createdAtMs: now,
        lastChangedAtMs: now,
        versions: [],
      };
      const version = addVersion(secret, token(input), secretString(input), [CURRENT]);
      secrets.set(name, secret);
      return { ARN: secret.arn, Name: name, VersionId: version.id };
    },
    GetSecretValue: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const stage = typeof input.VersionStage === 'string' ? input.VersionStage : CURRENT;
      const version =
        typeof input.VersionId === 'string'
          ? secret.versions.find((v) => v.id === input.VersionId)
          : secret.versions.find((v) => v.stages.includes(stage));
      if (!version)
        throw new AwsJsonError(
          'ResourceNotFoundException',
          "Secrets Manager can't find the specified secret value.",
        );
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: version.id,
        SecretString: version.value,
        VersionStages: version.stages,
        CreatedDate: seconds(version.createdAtMs),
      };
    },
    PutSecretValue: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const stages = Array.isArray(input.VersionStages) ? input.VersionStages.map(String) : [CURRENT];
      const version = addVersion(secret, token(input), secretString(input), stages);
      return { ARN: secret.arn, Name: secret.name, VersionId: version.id, VersionStages: version.stages };
    },
    DescribeSecret: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      return {
        ARN: secret.arn,
        Name: secret.name,
        ...(secret.description === undefined ? {} : { Description: secret.description }),
        CreatedDate: seconds(secret.createdAtMs),
        LastChangedDate: seconds(secret.lastChangedAtMs),
        VersionIdsToStages: Object.fromEntries(
          secret.versions.filter((v) => v.stages.length > 0).map((v) => [v.id, v.stages]),
        ),
      };
    },
  };
}

export async function startLocalSecretsManager(
  options: LocalSecretsManagerOptions = {},
): Promise<LocalSecretsManager> {
  const secrets = new Map<string, Secret>();
  const arnBase = `arn:aws:secretsmanager:${options.region ?? 'us-east-1'}:${options.accountId ?? '000000000000'}`;
  const server = await startAwsJsonServer({
    targetPrefix: 'secretsmanager',
    contentType: 'application/x-amz-json-1.1',
    operations: operations(secrets, arnBase),
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
  });
  return { endpoint: server.endpoint, names: () => [...secrets.keys()], close: server.close };
}
