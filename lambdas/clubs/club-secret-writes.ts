/**
 * Writing club credentials to Secrets Manager (the CLI's `clubs add`): a club secret, or club API
 * keys merged into a shared secret. The forms and the reading side are in club-secrets.ts.
 */
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  type ClubCredentials,
  ClubCredentialsSchema,
  ClubSecretError,
  MAX_SECRET_BYTES,
  parseSecretDocument,
  type SharedClubSecret,
  SharedClubSecretSchema,
} from './club-secrets';

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
      throw writeError(secretName, 'create club', err);
    }
  }
  await client
    .send(new PutSecretValueCommand({ SecretId: secretName, SecretString }))
    .catch((err: unknown) => {
      throw writeError(secretName, 'update club', err);
    });
  return 'updated';
}

/**
 * Puts clubs' API keys into a shared secret (created if missing), one read and one write for them
 * all. Used by `clubs add --shared-secret`. The secret's login must be the clubs' login: a shared
 * secret belongs to one integrator login (a new password for it replaces the old one). Refused,
 * with nothing written, when the secret is a club secret or would outgrow Secrets Manager's 64 KB.
 */
export async function putSharedClubKeys(
  client: SecretsManagerClient,
  secretName: string,
  login: { readonly username: string; readonly password: string },
  apiKeys: Readonly<Record<string, string>>,
): Promise<'created' | 'updated'> {
  const current = await readSecretText(client, secretName);
  let existing: SharedClubSecret | undefined;
  if (current !== undefined) {
    const doc = parseSecretDocument(secretName, current);
    if (doc.kind === 'club') {
      throw new ClubSecretError(
        secretName,
        `secret '${secretName}' holds one club's credentials, not a shared secret`,
        false,
      );
    }
    existing = doc.secret;
    if (existing.username !== login.username) {
      throw new ClubSecretError(
        secretName,
        `shared secret '${secretName}' belongs to integrator login '${existing.username}', not '${login.username}'`,
        false,
      );
    }
  }
  const next = SharedClubSecretSchema.parse({ ...login, apiKeys: { ...existing?.apiKeys, ...apiKeys } });
  const SecretString = JSON.stringify(next);
  const bytes = Buffer.byteLength(SecretString);
  if (bytes > MAX_SECRET_BYTES) {
    throw new ClubSecretError(
      secretName,
      `shared secret '${secretName}' would hold ${Object.keys(next.apiKeys).length} clubs in ${bytes} bytes, over Secrets Manager's ${MAX_SECRET_BYTES}: put the other clubs in another shared secret`,
      false,
    );
  }
  if (current === undefined) {
    await client
      .send(new CreateSecretCommand({ Name: secretName, SecretString, Description: SHARED_DESCRIPTION }))
      .catch((err: unknown) => {
        throw writeError(secretName, 'create', err);
      });
    return 'created';
  }
  await client
    .send(new PutSecretValueCommand({ SecretId: secretName, SecretString }))
    .catch((err: unknown) => {
      throw writeError(secretName, 'update', err);
    });
  return 'updated';
}

const SHARED_DESCRIPTION = 'gym-bridge integrator login and club API keys { username, password, apiKeys }';

async function readSecretText(client: SecretsManagerClient, secretName: string): Promise<string | undefined> {
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretName }));
    return out.SecretString ?? '';
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceNotFoundException') return undefined;
    throw writeError(secretName, 'read', err);
  }
}

/** A retryable error naming the secret and the AWS error's name, never a value. */
function writeError(secretName: string, verb: string, err: unknown): ClubSecretError {
  return new ClubSecretError(
    secretName,
    `could not ${verb} secret '${secretName}' (${err instanceof Error ? err.name : 'unknown error'})`,
    true,
    { cause: err },
  );
}
