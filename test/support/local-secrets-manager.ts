/**
 * A minimal Secrets Manager-compatible server for tests: the AWS JSON 1.1 protocol
 * (`X-Amz-Target: secretsmanager.<Operation>`, `application/x-amz-json-1.1`), so the real
 * `@aws-sdk/client-secrets-manager` talks to it over a socket (`endpoint`, or
 * AWS_ENDPOINT_URL_SECRETS_MANAGER). In memory, 127.0.0.1, ephemeral port; signatures not checked.
 *
 * Operations: CreateSecret (ResourceExistsException if the name is taken), GetSecretValue (by name
 * or ARN, AWSCURRENT; ResourceNotFoundException), PutSecretValue (a new AWSCURRENT version),
 * DescribeSecret. Versions are ClientRequestToken (the SDK sends one) or a random UUID.
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
  /** Versions, newest last; the last one is AWSCURRENT. */
  readonly versions: { readonly id: string; readonly value: string; readonly createdAtMs: number }[];
}

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
      versions: [{ id: versionId, value, createdAtMs: now }],
    };
    secrets.set(name, secret);
    return secret;
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
      return { ARN: secret.arn, Name: secret.name, VersionId: secret.versions[0]!.id };
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
      const current = secret.versions.at(-1)!;
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: current.id,
        SecretString: current.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: seconds(current.createdAtMs),
      };
    },
    PutSecretValue: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const now = Date.now();
      const version = { id: versionOf(input), value: secretString(input), createdAtMs: now };
      secret.versions.push(version);
      secret.lastChangedAtMs = now;
      return { ARN: secret.arn, Name: secret.name, VersionId: version.id, VersionStages: ['AWSCURRENT'] };
    },
    DescribeSecret: (input) => {
      const secret = find(requireString(input, 'SecretId'));
      const current = secret.versions.at(-1)!;
      return {
        ARN: secret.arn,
        Name: secret.name,
        ...(secret.description === undefined ? {} : { Description: secret.description }),
        CreatedDate: seconds(secret.createdAtMs),
        LastChangedDate: seconds(secret.lastChangedAtMs),
        VersionIdsToStages: { [current.id]: ['AWSCURRENT'] },
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
    currentValue: (name) => secrets.get(name)?.versions.at(-1)?.value,
    setSecret: (name, value) => {
      const existing = secrets.get(name);
      if (!existing) {
        create(name, value, randomUUID());
        return;
      }
      existing.versions.push({ id: randomUUID(), value, createdAtMs: Date.now() });
      existing.lastChangedAtMs = Date.now();
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
