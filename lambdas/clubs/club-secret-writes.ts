/**
 * Writing club credentials to Secrets Manager (the CLI's `clubs add`): a club secret, or club API
 * keys merged into a shared secret. The forms and the reading side are in club-secrets.ts.
 *
 * A secret of one form is never overwritten with the other: a club secret written over a shared one
 * would make every club of the shared secret poll with that one club's login and key, and a shared
 * secret written over a club secret would take the club's key away. `checkClubSecretWrite` says so
 * before anything is written (the CLI asks it for every club first); putSharedClubKeys asks it too.
 *
 * A shared secret is read, merged and written, and two runs of `clubs add --shared-secret` at once
 * would each write their merge over the version both read, the last one dropping the other's
 * keys. So the merge is a compare-and-swap on the secret's version stages: the new version is
 * stored without AWSCURRENT (under PENDING_STAGE), then AWSCURRENT is moved to it from the version
 * the merge read (UpdateSecretVersionStage with RemoveFromVersionId), which Secrets Manager refuses
 * when another write moved it first. The loser reads again and merges into the winner's version.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { MAX_SECRET_BYTES } from '../common/aws-clients';
import { backoffDelayMs, sleep } from '../common/backoff';
import {
  type ClubCredentials,
  ClubCredentialsSchema,
  ClubSecretError,
  parseSecretDocument,
  type SharedClubSecret,
  SharedClubSecretSchema,
} from './club-secrets';

/**
 * A write refused because the secret holds the other form (or is not a club secret at all), or the
 * shared secret belongs to another login or would outgrow 64 KB. Permanent; nothing was written.
 */
export class ClubSecretConflictError extends ClubSecretError {
  constructor(secretName: string, message: string) {
    super(secretName, message, false);
  }
}

/**
 * A shared-secret merge that lost the race to other writers MAX_MERGE_ATTEMPTS times in a row.
 * Retryable; nothing of this write was stored, nothing of theirs was lost.
 */
export class ClubSecretContentionError extends ClubSecretError {
  constructor(secretName: string, message: string) {
    super(secretName, message, true);
  }
}

/** What is about to be written: one club's credentials, or keys under a shared integrator login. */
export type ClubSecretWrite =
  | { readonly form: 'club'; readonly clubId: string }
  | { readonly form: 'shared'; readonly username: string };

/**
 * Refuses (ClubSecretConflictError) a write that would replace a secret of the other form, a
 * shared secret of another login, or a secret that is not a club secret (shared writes merge into
 * what is there). Returns what the secret holds now (undefined: it does not exist).
 */
export async function checkClubSecretWrite(
  client: SecretsManagerClient,
  secretName: string,
  write: ClubSecretWrite,
): Promise<string | undefined> {
  return (await checkedCurrent(client, secretName, write))?.text;
}

/** The secret's AWSCURRENT version, checked (as checkClubSecretWrite); undefined: no such secret. */
async function checkedCurrent(
  client: SecretsManagerClient,
  secretName: string,
  write: ClubSecretWrite,
): Promise<SecretVersion | undefined> {
  const current = await readCurrentVersion(client, secretName);
  if (current !== undefined) conflictOf(secretName, current.text, write);
  return current;
}

function conflictOf(secretName: string, current: string, write: ClubSecretWrite): void {
  if (write.form === 'club') {
    const shared = sharedSecretIn(current);
    if (!shared) return; // a club secret (or a broken one) is replaced: that is what `clubs add` is for
    throw new ClubSecretConflictError(
      secretName,
      `secret '${secretName}' is a shared secret (integrator login '${shared.username}', ${describeClubs(shared.clubIds)}): writing club '${write.clubId}''s credentials there would replace it, and every club in it would be polled with ${write.clubId}'s API key. Nothing was written. Add the club to the shared secret with --shared-secret, or give it a secret of its own under another --secret-prefix`,
    );
  }
  let doc: ReturnType<typeof parseSecretDocument>;
  try {
    doc = parseSecretDocument(secretName, current);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ClubSecretConflictError(
      secretName,
      `secret '${secretName}' exists and is not a shared club secret (${reason}). Nothing was written. Choose another --shared-secret NAME`,
    );
  }
  if (doc.kind === 'club') {
    throw new ClubSecretConflictError(
      secretName,
      `secret '${secretName}' holds one club's credentials { username, password, apiKey }, not a shared secret: writing a shared login and keys there would replace them, and the club that uses it would lose its API key. Nothing was written. Choose another --shared-secret NAME`,
    );
  }
  if (doc.secret.username !== write.username) {
    throw new ClubSecretConflictError(
      secretName,
      `shared secret '${secretName}' belongs to integrator login '${doc.secret.username}', not '${write.username}': all clubs of one shared secret share one login. Nothing was written. Use that login, or another --shared-secret NAME for this one`,
    );
  }
}

/** The shared secret's login and clubs, if `text` is one (recognised by its `apiKeys` object). */
function sharedSecretIn(text: string): { username: string; clubIds: string[] } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object' || !('apiKeys' in json)) return undefined;
  const { username, apiKeys } = json as { username?: unknown; apiKeys?: unknown };
  return {
    username: typeof username === 'string' ? username : '(none)',
    clubIds: apiKeys !== null && typeof apiKeys === 'object' ? Object.keys(apiKeys) : [],
  };
}

function describeClubs(clubIds: readonly string[]): string {
  if (clubIds.length === 0) return 'no club keys yet';
  const shown = clubIds.slice(0, 5).join(', ');
  return `${clubIds.length} club key${clubIds.length === 1 ? '' : 's'}: ${shown}${clubIds.length > 5 ? ', ...' : ''}`;
}

/**
 * Creates the club's secret, or stores a new version if it exists. Used by `clubs add`, which first
 * asks checkClubSecretWrite for every club it adds (so a shared secret is never replaced, and a
 * refusal writes nothing); this write does not read the secret again.
 */
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
 * with nothing written (ClubSecretConflictError), when the secret is a club secret, another login's
 * or would outgrow Secrets Manager's 64 KB. Another writer changing the secret meanwhile costs a
 * new read and merge (the header), up to MAX_MERGE_ATTEMPTS; then a retryable ClubSecretError.
 */
export async function putSharedClubKeys(
  client: SecretsManagerClient,
  secretName: string,
  login: { readonly username: string; readonly password: string },
  apiKeys: Readonly<Record<string, string>>,
): Promise<'created' | 'updated'> {
  let lastRead: string | undefined;
  for (let attempt = 1; attempt <= MAX_MERGE_ATTEMPTS; attempt++) {
    if (attempt > 1) await sleep(backoffDelayMs(attempt - 1, MERGE_BACKOFF));
    const current = await checkedCurrent(client, secretName, { form: 'shared', username: login.username });
    if (current !== undefined && current.versionId === lastRead) {
      // AWSCURRENT did not move, yet the swap was refused: not a race, so not worth another try.
      throw new ClubSecretError(
        secretName,
        `could not update secret '${secretName}': Secrets Manager refused to move AWSCURRENT from the version read (${current.versionId})`,
        true,
      );
    }
    const SecretString = mergedKeys(secretName, current, login, apiKeys);
    if (current === undefined) {
      if (await createShared(client, secretName, SecretString)) return 'created';
    } else if (await swapCurrent(client, secretName, current.versionId, SecretString)) {
      return 'updated';
    }
    lastRead = current?.versionId;
  }
  throw new ClubSecretContentionError(
    secretName,
    `could not update secret '${secretName}': other writers changed it ${MAX_MERGE_ATTEMPTS} times while this one merged; nothing of this run was written and nothing of theirs was lost. Run it again`,
  );
}

/** Writes that lose a race read, merge and try again, this many times in all. */
const MAX_MERGE_ATTEMPTS = 10;
const MERGE_BACKOFF = { baseDelayMs: 50, maxDelayMs: 1000 };
/** The label a merged version waits under until AWSCURRENT is moved to it (not AWSPENDING: rotation's). */
export const PENDING_STAGE = 'GYMBRIDGE_PENDING';

/** The secret's text with `apiKeys` merged into what `current` holds; refused over 64 KB. */
function mergedKeys(
  secretName: string,
  current: SecretVersion | undefined,
  login: { readonly username: string; readonly password: string },
  apiKeys: Readonly<Record<string, string>>,
): string {
  const doc = current === undefined ? undefined : parseSecretDocument(secretName, current.text);
  const existing: SharedClubSecret | undefined = doc?.kind === 'shared' ? doc.secret : undefined;
  const next = SharedClubSecretSchema.parse({ ...login, apiKeys: { ...existing?.apiKeys, ...apiKeys } });
  const text = JSON.stringify(next);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SECRET_BYTES) {
    throw new ClubSecretConflictError(
      secretName,
      `shared secret '${secretName}' would hold ${Object.keys(next.apiKeys).length} clubs in ${bytes} bytes, over Secrets Manager's ${MAX_SECRET_BYTES}. Nothing was written. Put the other clubs in another shared secret`,
    );
  }
  return text;
}

/** Creates the shared secret; false when another writer created it first (merge into theirs). */
async function createShared(client: SecretsManagerClient, secretName: string, SecretString: string) {
  try {
    await client.send(
      new CreateSecretCommand({ Name: secretName, SecretString, Description: SHARED_DESCRIPTION }),
    );
    return true;
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceExistsException') return false;
    throw writeError(secretName, 'create', err);
  }
}

/**
 * Stores `SecretString` as a new version under PENDING_STAGE, then moves AWSCURRENT to it from
 * `readVersionId`; false when AWSCURRENT is no longer there (another write won: read again).
 */
async function swapCurrent(
  client: SecretsManagerClient,
  secretName: string,
  readVersionId: string,
  SecretString: string,
): Promise<boolean> {
  const versionId = randomUUID();
  await client
    .send(
      new PutSecretValueCommand({
        SecretId: secretName,
        SecretString,
        ClientRequestToken: versionId,
        VersionStages: [PENDING_STAGE],
      }),
    )
    .catch((err: unknown) => {
      throw writeError(secretName, 'update', err);
    });
  try {
    await client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretName,
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: versionId,
        RemoveFromVersionId: readVersionId,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof Error && err.name === 'InvalidParameterException') return false;
    throw writeError(secretName, 'update', err);
  }
}

const SHARED_DESCRIPTION = 'gym-bridge integrator login and club API keys { username, password, apiKeys }';

interface SecretVersion {
  readonly text: string;
  readonly versionId: string;
}

async function readCurrentVersion(
  client: SecretsManagerClient,
  secretName: string,
): Promise<SecretVersion | undefined> {
  try {
    // AWSCURRENT named: moto and LocalStack answer without it with their last-written version.
    const out = await client.send(
      new GetSecretValueCommand({ SecretId: secretName, VersionStage: 'AWSCURRENT' }),
    );
    return { text: out.SecretString ?? '', versionId: out.VersionId ?? '' };
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceNotFoundException') return undefined;
    throw writeError(secretName, 'read', err);
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** What an endpoint that is not Secrets Manager answers: another service's "no such operation", a body that is not its JSON. */
const NOT_SECRETS_MANAGER = new Set(['UnknownOperationException', 'SyntaxError', 'SerializationException']);

/**
 * A retryable error naming the secret and why the request failed: the endpoint did not answer, it
 * is not Secrets Manager, or the service's own error (name and message: AWS does not echo a
 * SecretString). Never a value.
 */
function writeError(secretName: string, verb: string, err: unknown): ClubSecretError {
  return new ClubSecretError(
    secretName,
    `could not ${verb} secret '${secretName}': ${whyFailed(err)}`,
    true,
    {
      cause: err,
    },
  );
}

function whyFailed(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as Error & {
    code?: unknown;
    errors?: { code?: unknown }[];
    $metadata?: { httpStatusCode?: number };
  };
  const code = typeof e.code === 'string' ? e.code : e.errors?.find((x) => typeof x.code === 'string')?.code;
  if ((typeof code === 'string' && UNREACHABLE.has(code)) || e.name === 'TimeoutError')
    return `Secrets Manager does not answer (${typeof code === 'string' ? code : e.name})`;
  if (NOT_SECRETS_MANAGER.has(e.name) || e.$metadata?.httpStatusCode === 404)
    return `the endpoint does not answer as Secrets Manager (${e.name})`;
  const message = e.message && e.message !== e.name ? `: ${e.message.slice(0, 200)}` : '';
  return `${e.name}${message}`;
}
