/**
 * Endpoints' signing keys and static header values, in a few shared Secrets Manager secrets
 * instead of one per endpoint (docs/webhooks.md, "Secrets"): a secret costs $0.40 a month, so one
 * per endpoint is $400 a month at 1,000 endpoints, while an endpoint's keys take about 150 bytes
 * and a secret holds 64 KB. Endpoint `ep-x` lives in `<prefix>keys-<n>`, n from a hash of its id
 * (or the next shard with room); its record says which.
 *
 * Secret document: `{ "format": "gym-bridge-webhook-keys/1", "endpoints": { "<id>": { "keyVersion",
 * "key": "whsec_...", "previous"?: { "key", "until" }, "headers"?: { name: value } } } }`.
 *
 * Writes are a compare-and-swap on the AWSCURRENT version stage, so two writers (two `webhooks add`
 * at once) never lose one another's endpoint: read the current version, write the new document as
 * a version staged AWSPENDING only, then move AWSCURRENT to it from the version read
 * (UpdateSecretVersionStage with RemoveFromVersionId), which Secrets Manager refuses when AWSCURRENT
 * has moved meanwhile; then wait (capped exponential backoff with full jitter, so writers that
 * collided spread out), read again, merge again, try again.
 *
 * Reads are cached per secret for SECRET_CACHE_TTL_MS, and read again at once when an endpoint's
 * `keyVersion` is newer than the cached document's (a rotation shows on the next delivery). Keys
 * and values are remembered for log redaction (common/redact.ts) and never appear in errors.
 */

import { hash, randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';
import { MAX_SECRET_BYTES } from '../common/aws-clients';
import { type BackoffPolicy, backoffDelayMs, sleep } from '../common/backoff';
import { rememberSecrets } from '../common/redact';
import { HOUR_MS, MINUTE_MS } from '../common/time-units';
import { signingKeyOf } from './webhook-signature';

export const KEYS_FORMAT = 'gym-bridge-webhook-keys/1';
export const SECRET_CACHE_TTL_MS = 30 * MINUTE_MS;
/** How long the key being rotated out keeps signing too. */
export const ROTATION_OVERLAP_MS = 24 * HOUR_MS;
/** Writes a lost race is tried again, after a wait with full jitter (writers that collided spread out). */
const CAS_ATTEMPTS = 10;
const CAS_BACKOFF: BackoffPolicy = { baseDelayMs: 100, maxDelayMs: 2_000 };

const EntrySchema = z.object({
  keyVersion: z.number().int().min(1),
  key: z.string().min(1),
  previous: z.object({ key: z.string().min(1), until: z.number() }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type KeyEntry = z.infer<typeof EntrySchema>;
/** A key document: what a key secret holds (and the local stack's table item). */
export const KeysDocumentSchema = z.object({
  format: z.literal(KEYS_FORMAT),
  endpoints: z.record(z.string(), EntrySchema),
});
export type KeysDocument = z.infer<typeof KeysDocumentSchema>;

/** The document's endpoints after `change` to one endpoint's entry (undefined removes it). */
export function changedEndpoints(
  doc: KeysDocument,
  endpointId: string,
  change: (e: KeyEntry | undefined) => KeyEntry | undefined,
): KeysDocument['endpoints'] {
  const next = change(doc.endpoints[endpointId]);
  const endpoints = { ...doc.endpoints };
  if (next) endpoints[endpointId] = EntrySchema.parse(next);
  else delete endpoints[endpointId];
  return endpoints;
}

/** What an attempt signs with and adds: the keys (current first) and static headers. */
export interface EndpointKeys {
  readonly keys: Buffer[];
  readonly headers: Readonly<Record<string, string>>;
}

export class SigningKeyError extends Error {
  override readonly name: string = 'SigningKeyError';
}

/** The shard has no room for the endpoint's entry: the caller tries another shard. */
export class SecretShardFullError extends SigningKeyError {
  override readonly name = 'SecretShardFullError';
}

/** Where an endpoint's key entry is read from and written to. */
export interface SigningKeyStore {
  /** The entry of `endpointId` in `secretName`, at least of `keyVersion` (read again if older). */
  entry(secretName: string, endpointId: string, keyVersion: number): Promise<KeyEntry | undefined>;
  /** Changes one endpoint's entry (undefined removes it), safely against concurrent writers. */
  update(
    secretName: string,
    endpointId: string,
    change: (entry: KeyEntry | undefined) => KeyEntry | undefined,
  ): Promise<void>;
}

/** The keys an attempt at `nowMs` signs with: the current one, and the previous one until it expires. */
export function keysOf(entry: KeyEntry, nowMs: number): EndpointKeys {
  const keys = [signingKeyOf(entry.key)];
  if (entry.previous && entry.previous.until > nowMs) keys.push(signingKeyOf(entry.previous.key));
  return { keys, headers: entry.headers ?? {} };
}

/** The shard secret of an endpoint: `<prefix>keys-<n>`, n in 0..shards-1 from its id. */
export function shardSecretName(prefix: string, endpointId: string, shards: number, offset = 0): string {
  const n = (hash('sha256', endpointId, 'buffer').readUInt32BE(0) + offset) % shards;
  return `${prefix}keys-${n}`;
}

/** Remembers an entry's key, previous key and header values for redaction (common/redact.ts). */
export function rememberKeyEntry(entry: KeyEntry | undefined): void {
  if (!entry) return;
  rememberSecrets(entry.key, entry.previous?.key, ...Object.values(entry.headers ?? {}));
}

/** Keys held in memory: the local demo (a secret from the environment) and tests. */
export class MemorySigningKeys implements SigningKeyStore {
  readonly #docs = new Map<string, Map<string, KeyEntry>>();

  async entry(secretName: string, endpointId: string): Promise<KeyEntry | undefined> {
    const entry = this.#docs.get(secretName)?.get(endpointId);
    rememberKeyEntry(entry);
    return entry;
  }

  async update(
    secretName: string,
    endpointId: string,
    change: (e: KeyEntry | undefined) => KeyEntry | undefined,
  ): Promise<void> {
    const doc = this.#docs.get(secretName) ?? new Map<string, KeyEntry>();
    const next = change(doc.get(endpointId));
    if (next) doc.set(endpointId, EntrySchema.parse(next));
    else doc.delete(endpointId);
    this.#docs.set(secretName, doc);
  }
}

interface Cached {
  readonly doc: KeysDocument;
  readonly readAt: number;
}

export interface SecretsManagerSigningKeysOptions {
  readonly client: SecretsManagerClient;
  /** @default SECRET_CACHE_TTL_MS */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

const errorName = (err: unknown) => (err instanceof Error ? err.name : '');

export class SecretsManagerSigningKeys implements SigningKeyStore {
  readonly #client: SecretsManagerClient;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, Promise<Cached>>();

  constructor(options: SecretsManagerSigningKeysOptions) {
    this.#client = options.client;
    this.#ttlMs = options.ttlMs ?? SECRET_CACHE_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  async entry(secretName: string, endpointId: string, keyVersion: number): Promise<KeyEntry | undefined> {
    let cached = await this.#cached(secretName);
    let entry = cached.doc.endpoints[endpointId];
    if (!entry || entry.keyVersion < keyVersion) {
      cached = await this.#cached(secretName, true);
      entry = cached.doc.endpoints[endpointId];
    }
    rememberKeyEntry(entry);
    return entry && entry.keyVersion >= keyVersion ? entry : undefined;
  }

  #cached(secretName: string, fresh = false): Promise<Cached> {
    const now = this.#now();
    const hit = this.#cache.get(secretName);
    if (hit && !fresh) {
      return hit.then((c) => (now - c.readAt < this.#ttlMs ? c : this.#cached(secretName, true)));
    }
    const read = this.#read(secretName).then(({ doc }) => ({ doc, readAt: now }));
    this.#cache.set(secretName, read);
    read.catch(() => this.#cache.delete(secretName));
    return read;
  }

  /** The document and its AWSCURRENT version id (an empty document when the secret is missing). */
  async #read(secretName: string): Promise<{ doc: KeysDocument; versionId?: string }> {
    let text: string | undefined;
    let versionId: string | undefined;
    try {
      const out = await this.#client.send(new GetSecretValueCommand({ SecretId: secretName }));
      text = out.SecretString;
      versionId = out.VersionId;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException')
        return { doc: { format: KEYS_FORMAT, endpoints: {} } };
      throw new SigningKeyError(`secret '${secretName}' could not be read (${errorName(err) || 'error'})`, {
        cause: err,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text ?? '');
    } catch {
      throw new SigningKeyError(`secret '${secretName}' is not JSON: not a webhook key secret`);
    }
    const parsed = KeysDocumentSchema.safeParse(json);
    if (!parsed.success)
      throw new SigningKeyError(`secret '${secretName}' is not a webhook key secret (${KEYS_FORMAT})`);
    return { doc: parsed.data, ...(versionId ? { versionId } : {}) };
  }

  async update(
    secretName: string,
    endpointId: string,
    change: (e: KeyEntry | undefined) => KeyEntry | undefined,
  ): Promise<void> {
    for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
      const { doc, versionId } = await this.#read(secretName);
      const endpoints = changedEndpoints(doc, endpointId, change);
      const text = JSON.stringify({ format: KEYS_FORMAT, endpoints });
      if (Buffer.byteLength(text) > MAX_SECRET_BYTES) {
        throw new SecretShardFullError(`secret '${secretName}' has no room for another endpoint's keys`);
      }
      if (await this.#swap(secretName, versionId, text)) {
        this.#cache.delete(secretName);
        return;
      }
      if (attempt < CAS_ATTEMPTS) await sleep(backoffDelayMs(attempt, CAS_BACKOFF));
    }
    throw new SigningKeyError(
      `secret '${secretName}': ${CAS_ATTEMPTS} writes in a row lost a race; try again`,
    );
  }

  /** Creates the secret, or swaps AWSCURRENT from `versionId` to a new version; false when it moved. */
  async #swap(secretName: string, versionId: string | undefined, text: string): Promise<boolean> {
    if (versionId === undefined) {
      try {
        await this.#client.send(
          new CreateSecretCommand({
            Name: secretName,
            SecretString: text,
            Description: 'gym-bridge webhook signing keys and static headers (docs/webhooks.md)',
          }),
        );
        return true;
      } catch (err) {
        if (errorName(err) === 'ResourceExistsException') return false;
        throw new SigningKeyError(`secret '${secretName}' could not be created (${errorName(err)})`, {
          cause: err,
        });
      }
    }
    const token = randomUUID();
    try {
      await this.#client.send(
        new PutSecretValueCommand({
          SecretId: secretName,
          SecretString: text,
          ClientRequestToken: token,
          VersionStages: ['AWSPENDING'],
        }),
      );
      await this.#client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: secretName,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: token,
          RemoveFromVersionId: versionId,
        }),
      );
      return true;
    } catch (err) {
      // AWSCURRENT is no longer on the version read: another writer won; read and merge again.
      if (errorName(err) === 'InvalidParameterException' || errorName(err) === 'InvalidRequestException')
        return false;
      throw new SigningKeyError(`secret '${secretName}' could not be written (${errorName(err)})`, {
        cause: err,
      });
    }
  }
}
