/**
 * Club credentials in Secrets Manager, under the deployment's `CLUB_SECRET_PREFIX`, in one of two
 * forms (docs/security.md, "Club credentials"):
 *
 * - a **shared** secret for an integrator login and many clubs (the form for a fleet: a secret
 *   costs $0.40 a month, a club's API key a few dozen bytes, so about 600 clubs fit in one 64 KB
 *   secret): `{ "username": ..., "password": ..., "apiKeys": { "<clubId>": "<key>", ... } }`;
 * - a **club** secret, one per club (the form of earlier releases, still read):
 *   `{ "username": ..., "password": ..., "apiKey": ... }`.
 *
 * The club record names its secret. `SecretsManagerClubSecrets` reads a secret once per TTL
 * (30 minutes by default) per container, whichever of its clubs asks: one GetSecretValue serves
 * every club in a shared secret, and concurrent polls share one call in flight. Failures are not
 * cached. `invalidate` drops an entry (the poller does so when the API rejects the credentials, so
 * a rotated secret is picked up at once, not after the TTL).
 *
 * Values never appear in errors or logs: errors name the secret, the club and the problem only.
 * Writing secrets (the CLI's `clubs add`) is in club-secret-writes.ts.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';
import { type CredentialField, credentialProblem } from '../common/credential-text';
import { MINUTE_MS } from '../common/time-units';

export const ClubCredentialsSchema = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  apiKey: z.string().min(1),
});
export type ClubCredentials = z.infer<typeof ClubCredentialsSchema>;

/** A shared secret: one integrator login and the API keys of its clubs. */
export const SharedClubSecretSchema = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  apiKeys: z.record(z.string().min(1), z.string().min(1)),
});
export type SharedClubSecret = z.infer<typeof SharedClubSecretSchema>;

/** What a secret holds: one club's credentials, or a login and many clubs' keys. */
export type ClubSecretDocument =
  | { readonly kind: 'club'; readonly credentials: ClubCredentials }
  | { readonly kind: 'shared'; readonly secret: SharedClubSecret };

export const DEFAULT_SECRET_CACHE_TTL_MS = 30 * MINUTE_MS;

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
  /** The club's credentials from the secret the club record names (either form). */
  credentials(secretName: string, clubId: string): Promise<ClubCredentials>;
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
    { readonly value: Promise<ClubSecretDocument>; readonly expiresAtMs: number }
  >();

  constructor(options: SecretsManagerClubSecretsOptions) {
    this.#client = options.client;
    this.#ttlMs = options.ttlMs ?? DEFAULT_SECRET_CACHE_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  async credentials(secretName: string, clubId: string): Promise<ClubCredentials> {
    return credentialsFor(secretName, await this.#document(secretName), clubId);
  }

  #document(secretName: string): Promise<ClubSecretDocument> {
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

  async #fetch(secretName: string): Promise<ClubSecretDocument> {
    let text: string | undefined;
    try {
      // AWSCURRENT is the default; named, because moto and LocalStack answer a request without it
      // with their last-written version, not the one a staged write (club-secret-writes.ts) made current.
      const out = await this.#client.send(
        new GetSecretValueCommand({ SecretId: secretName, VersionStage: 'AWSCURRENT' }),
      );
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
    return parseSecretDocument(secretName, text);
  }
}

/**
 * The club's credentials in a secret document. Permanent errors (retrying cannot help): a shared
 * secret without the club, and a value that cannot be sent (credentialProblem: a control character,
 * a trailing newline, ...), named by club and field, never quoted.
 */
export function credentialsFor(secretName: string, doc: ClubSecretDocument, clubId: string): ClubCredentials {
  if (doc.kind === 'club') return sendableCredentials(secretName, clubId, doc.credentials);
  const apiKey = doc.secret.apiKeys[clubId];
  if (apiKey === undefined) {
    throw new ClubSecretError(
      secretName,
      `shared secret '${secretName}' holds no API key for club '${clubId}' (add it with: clubs add --shared-secret)`,
      false,
    );
  }
  return sendableCredentials(secretName, clubId, {
    username: doc.secret.username,
    password: doc.secret.password,
    apiKey,
  });
}

const CREDENTIAL_FIELDS: readonly CredentialField[] = ['username', 'password', 'apiKey'];

/** The credentials, if each can travel in an HTTP header; else a permanent ClubSecretError. */
export function sendableCredentials(
  secretName: string,
  clubId: string,
  credentials: ClubCredentials,
): ClubCredentials {
  for (const field of CREDENTIAL_FIELDS) {
    const problem = credentialProblem(field, credentials[field]);
    if (problem) {
      throw new ClubSecretError(
        secretName,
        `club '${clubId}' cannot be polled with secret '${secretName}': ${problem} (store the credentials again with: clubs add)`,
        false,
      );
    }
  }
  return credentials;
}

/** Reads either form; the shared one is recognised by its `apiKeys` object. */
export function parseSecretDocument(secretName: string, text: string | undefined): ClubSecretDocument {
  const json = parseJson(secretName, text);
  if (json !== null && typeof json === 'object' && 'apiKeys' in json) {
    const shared = SharedClubSecretSchema.safeParse(json);
    if (!shared.success) {
      throw new ClubSecretError(
        secretName,
        `shared secret '${secretName}' must be JSON { username, password, apiKeys: { clubId: key } }: ${issuePaths(shared.error)} missing or empty`,
        false,
      );
    }
    return { kind: 'shared', secret: shared.data };
  }
  return { kind: 'club', credentials: credentialsOf(secretName, json) };
}

function issuePaths(error: z.ZodError): string {
  return [...new Set(error.issues.map((i) => i.path.join('.') || '(value)'))].join(', ');
}

/** Validates a club secret's JSON (the per-club form). */
export function parseCredentials(secretName: string, text: string | undefined): ClubCredentials {
  return credentialsOf(secretName, parseJson(secretName, text));
}

/** The SyntaxError is not chained: V8 quotes the text around the error, and that is the secret. */
function parseJson(secretName: string, text: string | undefined): unknown {
  if (text === undefined) {
    throw new ClubSecretError(secretName, `club secret '${secretName}' has no SecretString`, false);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ClubSecretError(secretName, `club secret '${secretName}' is not JSON`, false);
  }
}

function credentialsOf(secretName: string, json: unknown): ClubCredentials {
  const result = ClubCredentialsSchema.safeParse(json);
  if (!result.success) {
    throw new ClubSecretError(
      secretName,
      `club secret '${secretName}' must be JSON { username, password, apiKey } (or a shared secret with apiKeys): ${issuePaths(result.error)} missing or empty`,
      false,
    );
  }
  return { username: result.data.username, password: result.data.password, apiKey: result.data.apiKey };
}
