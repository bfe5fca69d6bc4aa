/**
 * A minimal Secrets Manager-compatible server for tests: the AWS JSON 1.1 protocol
 * (`X-Amz-Target: secretsmanager.<Operation>`, `application/x-amz-json-1.1`), so the real
 * `@aws-sdk/client-secrets-manager` talks to it over a socket (`endpoint`, or
 * AWS_ENDPOINT_URL_SECRETS_MANAGER). In memory, 127.0.0.1, ephemeral port; signatures not checked.
 *
 * Operations: CreateSecret (ResourceExistsException if the name is taken), GetSecretValue (by name
 * or ARN; AWSCURRENT, or `VersionId` / `VersionStage`; ResourceNotFoundException),
 * PutSecretValue, UpdateSecretVersionStage, DescribeSecret. Versions and their staging labels as
 * the API reference describes them: a version's id is its ClientRequestToken (the SDK sends one) or
 * a random UUID, and a token sent again is the same version (the same value: nothing changes;
 * another value: ResourceExistsException). Each label is on one version at a time: PutSecretValue
 * attaches `VersionStages` (default AWSCURRENT), moving each from the version that had it;
 * UpdateSecretVersionStage moves one, and fails (InvalidParameterException) when the label is on
 * another version than `RemoveFromVersionId` names: the compare-and-swap a read-merge-write needs.
 * Whenever AWSCURRENT moves, AWSPREVIOUS moves to the version it left.
 *
 * Counters per operation and per secret (`getSecretValueCalls(name)`) let a test check caching.
 * Faults: `serverErrorNext(n)`, `throttleNext(n)`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AwsJsonError,
  type AwsJsonOperation,
  requireString,
  startAwsJsonServer,
} from '../../lambdas/local-aws/aws-json-server';

export interface LocalSecretsManagerOptions {
  readonly port?: number;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '000000000000' */
  readonly accountId?: string;
}

interface StoredSecret {
  readonly name: string;
  readonly arn: string;
  description?: string;
  readonly createdAtMs: number;
  lastChangedAtMs: number;
  /** Versions by id, in the order they were created. */
  readonly versions: Map<string, StoredVersion>;
}

interface StoredVersion {
  readonly id: string;
  readonly value: string;
  readonly createdAtMs: number;
  /** Its staging labels (AWSCURRENT, AWSPREVIOUS, custom ones); none: deprecated. */
  readonly stages: Set<string>;
}

const CURRENT = 'AWSCURRENT';
const PREVIOUS = 'AWSPREVIOUS';

export interface LocalSecretsManager {
  readonly endpoint: string;
  readonly region: string;
  /** Requests per operation. */
  readonly calls: Map<string, number>;
  /** GetSecretValue requests that reached one secret (by name): injected faults are not counted. */
  getSecretValueCalls(name: string): number;
  /** The current value of a secret (in process), or undefined. */
  currentValue(name: string): string | undefined;
  /** Creates or replaces a secret in process (no request). */
  setSecret(name: string, value: string): void;
  serverErrorNext(count: number): void;
  throttleNext(count: number): void;
  close(): Promise<void>;
}

const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

export async function startLocalSecretsManager(
  options: LocalSecretsManagerOptions = {},
): Promise<LocalSecretsManager> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const secrets = new Map<string, StoredSecret>();
  const reads = new Map<string, number>();
  const pending = { serverErrors: 0, throttles: 0 };

  const notFound = () =>
    new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
  const find = (secretId: string): StoredSecret => {
    const byName = secrets.get(secretId);
    if (byName) return byName;
    for (const s of secrets.values()) if (s.arn === secretId) return s;
    throw notFound();
  };
  const holderOf = (secret: StoredSecret, stage: string): StoredVersion | undefined =>
    [...secret.versions.values()].find((v) => v.stages.has(stage));
  /** Attaches `stage` to `version`, taking it from the version that had it (AWSCURRENT: that one becomes AWSPREVIOUS). */
  const attach = (secret: StoredSecret, version: StoredVersion, stage: string): void => {
    const holder = holderOf(secret, stage);
    if (holder === version) return;
    holder?.stages.delete(stage);
    if (stage === CURRENT && holder) {
      holderOf(secret, PREVIOUS)?.stages.delete(PREVIOUS);
      holder.stages.add(PREVIOUS);
    }
    version.stages.add(stage);
  };
  const addVersion = (secret: StoredSecret, id: string, value: string, stages: readonly string[]) => {
    const version: StoredVersion = { id, value, createdAtMs: Date.now(), stages: new Set() };
    secret.versions.set(id, version);
    for (const stage of stages) attach(secret, version, stage);
    secret.lastChangedAtMs = version.createdAtMs;
    return version;
  };
  const create = (name: string, value: string, versionId: string, description?: string): StoredSecret => {
    if (!NAME.test(name))
      throw new AwsJsonError('ValidationException', 'Invalid name. Must be a valid name.');
    const now = Date.now();
    const secret: StoredSecret = {
      name,
      arn: `arn:aws:secretsmanager:${region}:${accountId}:secret:${name}-${randomBytes(3).toString('hex')}`,
      ...(description === undefined ? {} : { description }),
      createdAtMs: now,
      lastChangedAtMs: now,
      versions: new Map(),
    };
    addVersion(secret, versionId, value, [CURRENT]);
    secrets.set(name, secret);
    return secret;
  };
  const versionNotFound = (what: string) =>
    new AwsJsonError(
      'ResourceNotFoundException',
      `Secrets Manager can't find the specified secret value for ${what}`,
    );
  const stagesOf = (input: Record<string, unknown>): readonly string[] => {
    const stages = input.VersionStages;
    if (stages === undefined) return [CURRENT];
    if (
      !Array.isArray(stages) ||
      stages.length < 1 ||
      stages.length > 20 ||
      !stages.every((s) => typeof s === 'string' && s.length >= 1 && s.length <= 256)
    ) {
      throw new AwsJsonError(
        'ValidationException',
        'VersionStages must hold 1 to 20 labels of 1 to 256 characters.',
      );
    }
    return stages as string[];
  };
  const secretString = (input: Record<string, unknown>): string => {
    const value = input.SecretString;
    if (typeof value !== 'string') {
      throw new AwsJsonError(
        'InvalidParameterException',
        'SecretString is required (SecretBinary is not supported here).',
      );
    }
    return value;
  };
  const versionOf = (input: Record<string, unknown>) =>
    typeof input.ClientRequestToken === 'string' && input.ClientRequestToken
      ? input.ClientRequestToken
      : randomUUID();
  const seconds = (ms: number) => ms / 1000;

  const operations: Record<string, AwsJsonOperation> = {
    CreateSecret: (input) => {
      const name = requireString(input, 'Name');
      if (secrets.has(name)) {
        throw new AwsJsonError(
          'ResourceExistsException',
          `The operation failed because the secret ${name} already exists.`,
        );
      }
      const secret = create(
        name,
        secretString(input),
        versionOf(input),
        typeof input.Description === 'string' ? input.Description : undefined,
      );
      return { ARN: secret.arn, Name: secret.name, VersionId: holderOf(secret, CURRENT)!.id };
    },
    GetSecretValue: (input) => {
      const id = requireString(input, 'SecretId');
      const secret = (() => {
        try {
          return find(id);
        } finally {
          const name = secrets.get(id)?.name ?? [...secrets.values()].find((s) => s.arn === id)?.name ?? id;
          reads.set(name, (reads.get(name) ?? 0) + 1);
        }
      })();
      const byId = typeof input.VersionId === 'string' ? input.VersionId : undefined;
      const stage = typeof input.VersionStage === 'string' ? input.VersionStage : CURRENT;
      const version = byId === undefined ? holderOf(secret, stage) : secret.versions.get(byId);
      if (!version)
        throw versionNotFound(byId === undefined ? `staging label: ${stage}` : `VersionId: ${byId}`);
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: version.id,
        SecretString: version.value,
        VersionStages: [...version.stages],
        CreatedDate: seconds(version.createdAtMs),
      };
    },
    PutSecretValue: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const id = versionOf(input);
      const value = secretString(input);
      const stages = stagesOf(input);
      const existing = secret.versions.get(id);
      if (existing) {
        // The same token again: the same request (ignored) or an attempt to change a version.
        if (existing.value !== value) {
          throw new AwsJsonError(
            'ResourceExistsException',
            "You can't modify an existing version, you can only create a new version.",
          );
        }
        return { ARN: secret.arn, Name: secret.name, VersionId: id, VersionStages: [...existing.stages] };
      }
      const version = addVersion(secret, id, value, stages);
      return { ARN: secret.arn, Name: secret.name, VersionId: id, VersionStages: [...version.stages] };
    },
    UpdateSecretVersionStage: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const stage = requireString(input, 'VersionStage');
      const moveTo = typeof input.MoveToVersionId === 'string' ? input.MoveToVersionId : undefined;
      const removeFrom =
        typeof input.RemoveFromVersionId === 'string' ? input.RemoveFromVersionId : undefined;
      const holder = holderOf(secret, stage);
      if (moveTo !== undefined) {
        const target = secret.versions.get(moveTo);
        if (!target) throw versionNotFound(`VersionId: ${moveTo}`);
        if (holder && holder !== target) {
          if (removeFrom === undefined) {
            throw new AwsJsonError(
              'InvalidParameterException',
              `The parameter RemoveFromVersionId can't be empty. Staging label ${stage} is currently attached to version ${holder.id}, so you must explicitly reference that version in RemoveFromVersionId.`,
            );
          }
          if (removeFrom !== holder.id) {
            throw new AwsJsonError(
              'InvalidParameterException',
              `When you move staging label ${stage}, if you specify RemoveFromVersionId, it must be set to the version that currently has the staging label ${stage}.`,
            );
          }
        }
        attach(secret, target, stage);
      } else {
        if (removeFrom === undefined || holder?.id !== removeFrom) {
          throw new AwsJsonError(
            'InvalidParameterException',
            `Staging label ${stage} is not attached to version ${removeFrom ?? '(none given)'}.`,
          );
        }
        holder.stages.delete(stage);
      }
      secret.lastChangedAtMs = Date.now();
      return { ARN: secret.arn, Name: secret.name };
    },
    DescribeSecret: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const labelled = [...secret.versions.values()].filter((v) => v.stages.size > 0);
      return {
        ARN: secret.arn,
        Name: secret.name,
        ...(secret.description === undefined ? {} : { Description: secret.description }),
        CreatedDate: seconds(secret.createdAtMs),
        LastChangedDate: seconds(secret.lastChangedAtMs),
        VersionIdsToStages: Object.fromEntries(labelled.map((v) => [v.id, [...v.stages]])),
      };
    },
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'secretsmanager',
    contentType: 'application/x-amz-json-1.1',
    operations,
    beforeOperation: () => {
      if (pending.serverErrors > 0) {
        pending.serverErrors--;
        throw new AwsJsonError('InternalServiceError', 'Injected server error', 500);
      }
      if (pending.throttles > 0) {
        pending.throttles--;
        throw new AwsJsonError('ThrottlingException', 'Rate exceeded');
      }
    },
    ...(options.port === undefined ? {} : { port: options.port }),
  });

  return {
    endpoint: server.endpoint,
    region,
    calls: server.calls,
    getSecretValueCalls: (name) => reads.get(name) ?? 0,
    currentValue: (name) => {
      const secret = secrets.get(name);
      return secret === undefined ? undefined : holderOf(secret, CURRENT)?.value;
    },
    setSecret: (name, value) => {
      const existing = secrets.get(name);
      if (!existing) create(name, value, randomUUID());
      else addVersion(existing, randomUUID(), value, [CURRENT]);
    },
    serverErrorNext: (count) => {
      pending.serverErrors += count;
    },
    throttleNext: (count) => {
      pending.throttles += count;
    },
    close: server.close,
  };
}
