/**
 * Club credentials in Secrets Manager: one secret per club, `<CLUB_SECRET_PREFIX><clubId>`, whose
 * SecretString is JSON `{ "username": ..., "password": ..., "apiKey": ... }`.
 *
 * `SecretsManagerClubSecrets` reads them with an in-memory cache (5 minutes by default): a Lambda
 * container polling a club every minute calls GetSecretValue once per TTL, not once per poll, and
 * concurrent polls share one call in flight. Failures are not cached. `invalidate` drops an entry
 * (the poller does so when the API rejects the credentials, so a rotated secret is picked up).
 *
 * Values never appear in errors or logs: errors name the secret and the problem only.
 */
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';

export const ClubCredentialsSchema = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  apiKey: z.string().min(1),
});
export type ClubCredentials = z.infer<typeof ClubCredentialsSchema>;

export const DEFAULT_SECRET_CACHE_TTL_MS = 5 * 60_000;

/** A club secret could not be read or used. `retryable`: whether trying again later can help. */
export class ClubSecretError extends Error {
  override readonly name = 'ClubSecretError';
  constructor(
    readonly secretName: string,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ClubSecretsReader {
  credentials(secretName: string): Promise<ClubCredentials>;
  invalidate(secretName: string): void;
}

export interface SecretsManagerClubSecretsOptions {
  readonly client: SecretsManagerClient;
  /** How long a secret is reused. @default DEFAULT_SECRET_CACHE_TTL_MS */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Errors after which the secret itself is wrong or missing: retrying will not help. */
const PERMANENT_ERRORS = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'DecryptionFailure',
  'InvalidParameterException',
  'InvalidRequestException',
]);

export class SecretsManagerClubSecrets implements ClubSecretsReader {
  readonly #client: SecretsManagerClient;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<
    string,
    { readonly value: Promise<ClubCredentials>; readonly expiresAtMs: number }
  >();

  constructor(options: SecretsManagerClubSecretsOptions) {
    this.#client = options.client;
    this.#ttlMs = options.ttlMs ?? DEFAULT_SECRET_CACHE_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  credentials(secretName: string): Promise<ClubCredentials> {
    const now = this.#now();
    const cached = this.#cache.get(secretName);
    if (cached && cached.expiresAtMs > now) return cached.value;
    const value = this.#fetch(secretName);
    const entry = { value, expiresAtMs: now + this.#ttlMs };
    this.#cache.set(secretName, entry);
    value.catch(() => {
      if (this.#cache.get(secretName) === entry) this.#cache.delete(secretName);
    });
    return value;
  }

  invalidate(secretName: string): void {
    this.#cache.delete(secretName);
  }

  async #fetch(secretName: string): Promise<ClubCredentials> {
    let text: string | undefined;
    try {
      const out = await this.#client.send(new GetSecretValueCommand({ SecretId: secretName }));
      text = out.SecretString;
    } catch (cause) {
      const code = cause instanceof Error ? cause.name : 'unknown error';
      const permanent = PERMANENT_ERRORS.has(code);
      throw new ClubSecretError(
        secretName,
        code === 'ResourceNotFoundException'
          ? `club secret '${secretName}' does not exist (create it with: clubs add)`
          : `could not read club secret '${secretName}' (${code})`,
        !permanent,
        { cause },
      );
    }
    return parseCredentials(secretName, text);
  }
}

/** Validates a secret's JSON. The SyntaxError is not chained: V8 quotes the text around the error. */
export function parseCredentials(secretName: string, text: string | undefined): ClubCredentials {
  if (text === undefined) {
    throw new ClubSecretError(secretName, `club secret '${secretName}' has no SecretString`, false);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ClubSecretError(secretName, `club secret '${secretName}' is not JSON`, false);
  }
  const result = ClubCredentialsSchema.safeParse(json);
  if (!result.success) {
    const fields = [...new Set(result.error.issues.map((i) => i.path.join('.') || '(value)'))].join(', ');
    throw new ClubSecretError(
      secretName,
      `club secret '${secretName}' must be JSON { username, password, apiKey }: ${fields} missing or empty`,
      false,
    );
  }
  return { username: result.data.username, password: result.data.password, apiKey: result.data.apiKey };
}

/** Creates the club's secret, or stores a new version if it exists. Used by `clubs add`. */
export async function putClubSecret(
  client: SecretsManagerClient,
  secretName: string,
  credentials: ClubCredentials,
  description = 'gym-bridge club credentials { username, password, apiKey }',
): Promise<'created' | 'updated'> {
  const SecretString = JSON.stringify(ClubCredentialsSchema.parse(credentials));
  try {
    await client.send(new CreateSecretCommand({ Name: secretName, SecretString, Description: description }));
    return 'created';
  } catch (err) {
    if (!(err instanceof Error && err.name === 'ResourceExistsException')) {
      throw new ClubSecretError(
        secretName,
        `could not create club secret '${secretName}' (${err instanceof Error ? err.name : 'unknown error'})`,
        true,
        { cause: err },
      );
    }
  }
  try {
    await client.send(new PutSecretValueCommand({ SecretId: secretName, SecretString }));
    return 'updated';
  } catch (err) {
    throw new ClubSecretError(
      secretName,
      `could not update club secret '${secretName}' (${err instanceof Error ? err.name : 'unknown error'})`,
      true,
      { cause: err },
    );
  }
}
