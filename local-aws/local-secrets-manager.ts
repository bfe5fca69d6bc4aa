/**
 * A local Secrets Manager: what `local-aws` serves (so that `clubs add`, `clubs list` and the poll
 * function's secret reads run on a laptop) and what the tests talk to
 * (test/support/local-secrets-manager.ts re-exports it). The AWS JSON 1.1 protocol (`X-Amz-Target:
 * secretsmanager.<Operation>`, `application/x-amz-json-1.1`) through the shared helper
 * (./aws-json-server.ts), so the real `@aws-sdk/client-secrets-manager` talks to it over a socket
 * (`endpoint`, or AWS_ENDPOINT_URL_SECRETS_MANAGER). In memory; signatures not checked.
 *
 * Operations: CreateSecret (ResourceExistsException if the name is taken), GetSecretValue (by name
 * or ARN; AWSCURRENT, or `VersionId` / `VersionStage`; ResourceNotFoundException),
 * PutSecretValue, UpdateSecretVersionStage, DescribeSecret. Versions and their staging labels as
 * the API reference describes them: a version's id is its ClientRequestToken (the SDK sends one) or
 * a random UUID, and a token sent again is the same version (the same value: nothing changes;
 * another value: ResourceExistsException). Each label is on one version at a time: PutSecretValue
 * attaches `VersionStages` (default AWSCURRENT), moving each from the version that had it;
 * UpdateSecretVersionStage moves one, and fails (InvalidParameterException) when the label is on
 * another version than `RemoveFromVersionId` names: the compare-and-swap `clubs add
 * --shared-secret`'s read-merge-write needs (GYMBRIDGE_PENDING, then AWSCURRENT). Whenever
 * AWSCURRENT moves, AWSPREVIOUS moves to the version it left.
 *
 * Counters per operation and per secret (`getSecretValueCalls(name)`) let a test check caching.
 * Faults: `serverErrorNext(n)`, `throttleNext(n)`.
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
  readonly region: string;
  /** Requests per operation. */
  readonly calls: Map<string, number>;
  /** Names of the secrets held. */
  names(): string[];
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

interface StoredSecret {
  readonly name: string;
  readonly arn: string;
  readonly description?: string;
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
const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const seconds = (ms: number) => ms / 1000;

/** The secrets of one server, with the version and label rules above. */
class SecretStore {
  readonly secrets = new Map<string, StoredSecret>();
  constructor(private readonly arnBase: string) {}

  find(secretId: string): StoredSecret {
    const secret = this.secrets.get(secretId) ?? [...this.secrets.values()].find((s) => s.arn === secretId);
    if (!secret)
      throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  }

  holderOf(secret: StoredSecret, stage: string): StoredVersion | undefined {
    return [...secret.versions.values()].find((v) => v.stages.has(stage));
  }

  /** Attaches `stage` to `version`, taking it from the version that had it (AWSCURRENT: that one becomes AWSPREVIOUS). */
  attach(secret: StoredSecret, version: StoredVersion, stage: string): void {
    const holder = this.holderOf(secret, stage);
    if (holder === version) return;
    holder?.stages.delete(stage);
    if (stage === CURRENT && holder) {
      this.holderOf(secret, PREVIOUS)?.stages.delete(PREVIOUS);
      holder.stages.add(PREVIOUS);
    }
    version.stages.add(stage);
  }

  addVersion(secret: StoredSecret, id: string, value: string, stages: readonly string[]): StoredVersion {
    const version: StoredVersion = { id, value, createdAtMs: Date.now(), stages: new Set() };
    secret.versions.set(id, version);
    for (const stage of stages) this.attach(secret, version, stage);
    secret.lastChangedAtMs = version.createdAtMs;
    return version;
  }

  create(name: string, value: string, versionId: string, description?: string): StoredSecret {
    if (!NAME.test(name))
      throw new AwsJsonError('ValidationException', 'Invalid name. Must be a valid name.');
    if (this.secrets.has(name))
      throw new AwsJsonError(
        'ResourceExistsException',
        `The operation failed because the secret ${name} already exists.`,
      );
    const now = Date.now();
    const secret: StoredSecret = {
      name,
      arn: `${this.arnBase}:secret:${name}-${randomBytes(3).toString('hex')}`,
      ...(description === undefined ? {} : { description }),
      createdAtMs: now,
      lastChangedAtMs: now,
      versions: new Map(),
    };
    this.addVersion(secret, versionId, value, [CURRENT]);
    this.secrets.set(name, secret);
    return secret;
  }

  /** UpdateSecretVersionStage: moves `stage` to `moveTo` (or removes it), if `removeFrom` holds it. */
  moveStage(secret: StoredSecret, stage: string, moveTo?: string, removeFrom?: string): void {
    const holder = this.holderOf(secret, stage);
    if (moveTo === undefined) {
      if (removeFrom === undefined || holder?.id !== removeFrom)
        throw new AwsJsonError(
          'InvalidParameterException',
          `Staging label ${stage} is not attached to version ${removeFrom ?? '(none given)'}.`,
        );
      holder.stages.delete(stage);
    } else {
      const target = secret.versions.get(moveTo);
      if (!target) throw versionNotFound(`VersionId: ${moveTo}`);
      if (holder && holder !== target && removeFrom === undefined)
        throw new AwsJsonError(
          'InvalidParameterException',
          `The parameter RemoveFromVersionId can't be empty. Staging label ${stage} is currently attached to version ${holder.id}, so you must explicitly reference that version in RemoveFromVersionId.`,
        );
      if (holder && holder !== target && removeFrom !== holder.id)
        throw new AwsJsonError(
          'InvalidParameterException',
          `When you move staging label ${stage}, if you specify RemoveFromVersionId, it must be set to the version that currently has the staging label ${stage}.`,
        );
      this.attach(secret, target, stage);
    }
    secret.lastChangedAtMs = Date.now();
  }
}

const versionNotFound = (what: string) =>
  new AwsJsonError(
    'ResourceNotFoundException',
    `Secrets Manager can't find the specified secret value for ${what}`,
  );

function stagesOf(input: Record<string, unknown>): readonly string[] {
  const stages = input.VersionStages;
  if (stages === undefined) return [CURRENT];
  if (
    !Array.isArray(stages) ||
    stages.length < 1 ||
    stages.length > 20 ||
    !stages.every((s) => typeof s === 'string' && s.length >= 1 && s.length <= 256)
  )
    throw new AwsJsonError(
      'ValidationException',
      'VersionStages must hold 1 to 20 labels of 1 to 256 characters.',
    );
  return stages as string[];
}

function secretString(input: Record<string, unknown>): string {
  const value = input.SecretString;
  if (typeof value !== 'string')
    throw new AwsJsonError(
      'InvalidParameterException',
      'SecretString is required (SecretBinary is not supported here).',
    );
  return value;
}

const versionOf = (input: Record<string, unknown>) =>
  typeof input.ClientRequestToken === 'string' && input.ClientRequestToken
    ? input.ClientRequestToken
    : randomUUID();

const optionalString = (input: Record<string, unknown>, key: string) =>
  typeof input[key] === 'string' ? (input[key] as string) : undefined;

function operations(store: SecretStore, reads: Map<string, number>): Record<string, AwsJsonOperation> {
  return {
    CreateSecret: (input) => {
      const name = requireString(input, 'Name');
      const secret = store.create(
        name,
        secretString(input),
        versionOf(input),
        optionalString(input, 'Description'),
      );
      return { ARN: secret.arn, Name: secret.name, VersionId: store.holderOf(secret, CURRENT)?.id };
    },
    GetSecretValue: (input) => {
      const id = requireString(input, 'SecretId');
      const known =
        store.secrets.get(id)?.name ?? [...store.secrets.values()].find((s) => s.arn === id)?.name;
      reads.set(known ?? id, (reads.get(known ?? id) ?? 0) + 1);
      const secret = store.find(id);
      const byId = optionalString(input, 'VersionId');
      const stage = optionalString(input, 'VersionStage') ?? CURRENT;
      const version = byId === undefined ? store.holderOf(secret, stage) : secret.versions.get(byId);
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
      const secret = store.find(requireString(input, 'SecretId'));
      const id = versionOf(input);
      const value = secretString(input);
      const stages = stagesOf(input);
      const existing = secret.versions.get(id);
      // The same token again: the same request (ignored) or an attempt to change a version.
      if (existing && existing.value !== value)
        throw new AwsJsonError(
          'ResourceExistsException',
          "You can't modify an existing version, you can only create a new version.",
        );
      const version = existing ?? store.addVersion(secret, id, value, stages);
      return { ARN: secret.arn, Name: secret.name, VersionId: id, VersionStages: [...version.stages] };
    },
    UpdateSecretVersionStage: (input) => {
      const secret = store.find(requireString(input, 'SecretId'));
      const stage = requireString(input, 'VersionStage');
      store.moveStage(
        secret,
        stage,
        optionalString(input, 'MoveToVersionId'),
        optionalString(input, 'RemoveFromVersionId'),
      );
      return { ARN: secret.arn, Name: secret.name };
    },
    DescribeSecret: (input) => {
      const secret = store.find(requireString(input, 'SecretId'));
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
}

export async function startLocalSecretsManager(
  options: LocalSecretsManagerOptions = {},
): Promise<LocalSecretsManager> {
  const region = options.region ?? 'us-east-1';
  const store = new SecretStore(`arn:aws:secretsmanager:${region}:${options.accountId ?? '000000000000'}`);
  const reads = new Map<string, number>();
  const pending = { serverErrors: 0, throttles: 0 };
  const server = await startAwsJsonServer({
    targetPrefix: 'secretsmanager',
    contentType: 'application/x-amz-json-1.1',
    operations: operations(store, reads),
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
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
  });
  return {
    endpoint: server.endpoint,
    region,
    calls: server.calls,
    names: () => [...store.secrets.keys()],
    getSecretValueCalls: (name) => reads.get(name) ?? 0,
    currentValue: (name) => {
      const secret = store.secrets.get(name);
      return secret === undefined ? undefined : store.holderOf(secret, CURRENT)?.value;
    },
    setSecret: (name, value) => {
      const existing = store.secrets.get(name);
      if (!existing) store.create(name, value, randomUUID());
      else store.addVersion(existing, randomUUID(), value, [CURRENT]);
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
