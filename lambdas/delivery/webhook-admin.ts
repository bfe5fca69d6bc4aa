/**
 * The library the `webhooks` CLI commands call (add, list, show, update, disable, enable, remove,
 * rotate-secret, status, redrive, replay): every change is data in the webhook table and the
 * shared key secrets, never a deploy. A secret is returned once, by `addEndpoint` and
 * `rotateSecret`, and never again; views carry the URL's host and a redacted URL only.
 */
import { MINUTE_MS } from '../common/time-units';
import { type AddressPolicy, checkWebhookUrl, hostOf } from './address-policy';
import {
  checkFilter,
  checkStaticHeaders,
  DEFAULT_RATE_PER_SECOND,
  type Endpoint,
  EndpointInputError,
  MAX_RATE_PER_SECOND,
  newEndpointId,
} from './endpoint';
import {
  ROTATION_OVERLAP_MS,
  SecretShardFullError,
  type SigningKeyStore,
  shardSecretName,
} from './signing-keys';
import { generateWebhookSecret, isWebhookSecret } from './webhook-signature';
import { EMPTY_HEALTH, EndpointConflictError, type EndpointHealth, type WebhookStore } from './webhook-store';

export interface AdminContext {
  readonly store: WebhookStore;
  readonly keys: SigningKeyStore;
  /** Secrets Manager name prefix of the key secrets (ends in /). */
  readonly secretPrefix: string;
  /** How many shared key secrets endpoints are spread over. @default DEFAULT_SECRET_SHARDS */
  readonly secretShards?: number;
  /** 'public' outside the local stage. */
  readonly policy: AddressPolicy;
  /** @default Date.now */
  readonly now?: () => number;
}

export const DEFAULT_SECRET_SHARDS = 4;

export interface EndpointInput {
  readonly url: string;
  /** Detail-types, or ['*'] for all. */
  readonly detailTypes: readonly string[];
  /** An EventBridge pattern on `detail`, JSON text. */
  readonly detailPattern?: string;
  readonly clubs?: readonly string[];
  readonly ratePerSecond?: number;
  readonly description?: string;
  /** Static headers (e.g. a SaaS's own API key): kept in the secret, never in the table. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A `whsec_` secret to use (e.g. $GYM_BRIDGE_WEBHOOK_SECRET locally); generated when absent. */
  readonly secret?: string;
  /** Per-endpoint CloudWatch metrics (docs/webhooks.md, "Operating it"). @default false */
  readonly metrics?: boolean;
}

/** What may be shown of an endpoint: no secret, the URL redacted to its scheme and host. */
export interface EndpointView {
  readonly endpointId: string;
  readonly host: string;
  readonly url: string;
  readonly description?: string;
  readonly detailTypes: readonly string[];
  readonly detailPattern?: string;
  readonly clubs?: readonly string[];
  readonly ratePerSecond: number;
  readonly enabled: boolean;
  readonly disabledReason?: string;
  readonly disabledAt?: string;
  readonly headerNames: readonly string[];
  readonly metrics: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** `https://host/…`: the path and query may hold a token. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    const more = u.pathname !== '/' || u.search ? '/…' : '/';
    return `${u.protocol}//${u.host}${more}`;
  } catch {
    return 'invalid-url';
  }
}

export function viewOf(e: Endpoint): EndpointView {
  return {
    endpointId: e.endpointId,
    host: hostOf(e.url),
    url: redactedUrl(e.url),
    ...(e.description ? { description: e.description } : {}),
    detailTypes: e.detailTypes,
    ...(e.detailPattern ? { detailPattern: e.detailPattern } : {}),
    ...(e.clubs ? { clubs: e.clubs } : {}),
    ratePerSecond: e.ratePerSecond,
    enabled: e.enabled,
    ...(e.disabledReason ? { disabledReason: e.disabledReason } : {}),
    ...(e.disabledAt ? { disabledAt: e.disabledAt } : {}),
    headerNames: e.headerNames,
    metrics: e.metrics === true,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

function checkInput(input: Partial<EndpointInput>, policy: AddressPolicy): void {
  if (input.url !== undefined) {
    try {
      checkWebhookUrl(input.url, policy);
    } catch (err) {
      throw new EndpointInputError((err as Error).message, { cause: err });
    }
  }
  if (input.detailTypes !== undefined || input.detailPattern !== undefined) {
    checkFilter(input.detailTypes ?? ['*'], input.detailPattern);
  }
  const rate = input.ratePerSecond;
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0 && rate <= MAX_RATE_PER_SECOND)) {
    throw new EndpointInputError(
      `the rate limit is a number of deliveries a second in (0, ${MAX_RATE_PER_SECOND}]`,
    );
  }
  if (input.headers) checkStaticHeaders(input.headers);
  if (input.secret !== undefined && !isWebhookSecret(input.secret)) {
    throw new EndpointInputError('a webhook secret is whsec_ and the base64 of 24 to 64 bytes');
  }
  if (input.clubs?.some((c) => c.trim() === '')) throw new EndpointInputError('a club id is not empty');
}

/** Adds an endpoint; returns it and its secret (shown once). */
export async function addEndpoint(
  ctx: AdminContext,
  input: EndpointInput,
): Promise<{ endpoint: EndpointView; secret: string }> {
  checkInput(input, ctx.policy);
  const now = new Date((ctx.now ?? Date.now)()).toISOString();
  const endpointId = newEndpointId();
  const secret = input.secret ?? generateWebhookSecret();
  const shards = ctx.secretShards ?? DEFAULT_SECRET_SHARDS;
  let secretName = '';
  for (let offset = 0; offset < shards && !secretName; offset++) {
    const candidate = shardSecretName(ctx.secretPrefix, endpointId, shards, offset);
    try {
      await ctx.keys.update(candidate, endpointId, () => ({
        keyVersion: 1,
        key: secret,
        ...(input.headers && Object.keys(input.headers).length > 0 ? { headers: { ...input.headers } } : {}),
      }));
      secretName = candidate;
    } catch (err) {
      if (!(err instanceof SecretShardFullError)) throw err;
    }
  }
  if (!secretName)
    throw new EndpointInputError(`every key secret is full: raise the shard count (${shards})`);
  const endpoint: Endpoint = {
    endpointId,
    url: input.url,
    ...(input.description ? { description: input.description } : {}),
    detailTypes: [...input.detailTypes],
    ...(input.detailPattern ? { detailPattern: input.detailPattern } : {}),
    ...(input.clubs ? { clubs: [...input.clubs] } : {}),
    ratePerSecond: input.ratePerSecond ?? DEFAULT_RATE_PER_SECOND,
    enabled: true,
    enabledAt: now,
    secretName,
    keyVersion: 1,
    headerNames: Object.keys(input.headers ?? {}),
    ...(input.metrics ? { metrics: true } : {}),
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  await ctx.store.putEndpoint(endpoint);
  return { endpoint: viewOf(endpoint), secret };
}

export async function existing(ctx: AdminContext, endpointId: string): Promise<Endpoint> {
  const endpoint = await ctx.store.getEndpoint(endpointId);
  if (!endpoint) throw new EndpointInputError(`no webhook endpoint ${endpointId}`);
  return endpoint;
}

export type EndpointChanges = Partial<Omit<EndpointInput, 'secret'>>;

/** Changes an endpoint's URL, filter, clubs, rate, description, static headers or metrics. */
export async function updateEndpoint(
  ctx: AdminContext,
  endpointId: string,
  changes: EndpointChanges,
): Promise<EndpointView> {
  checkInput(changes, ctx.policy);
  const current = await existing(ctx, endpointId);
  if (changes.detailPattern !== undefined || changes.detailTypes !== undefined) {
    checkFilter(changes.detailTypes ?? current.detailTypes, changes.detailPattern ?? current.detailPattern);
  }
  if (changes.headers) {
    await ctx.keys.update(current.secretName, endpointId, (entry) =>
      entry ? { ...entry, headers: { ...changes.headers } } : undefined,
    );
  }
  const { headers, ...rest } = changes;
  const next: Endpoint = {
    ...current,
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    ...(headers ? { headerNames: Object.keys(headers) } : {}),
    updatedAt: new Date((ctx.now ?? Date.now)()).toISOString(),
    version: current.version + 1,
  } as Endpoint;
  await ctx.store.putEndpoint(next, current.version);
  return viewOf(next);
}

/** Disables (operator) or enables an endpoint; enabling clears its failures and opens a new episode. */
export async function setEndpointEnabled(
  ctx: AdminContext,
  endpointId: string,
  enabled: boolean,
): Promise<EndpointView> {
  const current = await existing(ctx, endpointId);
  const now = new Date((ctx.now ?? Date.now)()).toISOString();
  const { disabledReason: _r, disabledAt: _a, ...rest } = current;
  const next: Endpoint = enabled
    ? { ...rest, enabled: true, enabledAt: now, updatedAt: now, version: current.version + 1 }
    : {
        ...current,
        enabled: false,
        disabledReason: 'operator',
        disabledAt: now,
        updatedAt: now,
        version: current.version + 1,
      };
  await ctx.store.putEndpoint(next, current.version);
  if (enabled) {
    const health = (await ctx.store.getHealth([endpointId])).get(endpointId) ?? EMPTY_HEALTH;
    const { failingSince: _f, retryAt: _t, probeUntil: _p, ...kept } = health;
    await ctx.store.writeHealth(endpointId, { ...kept, failures: 0 }, health.rev);
  }
  return viewOf(next);
}

/** Removes an endpoint, its health, its dead letters and its keys. */
export async function removeEndpoint(ctx: AdminContext, endpointId: string): Promise<void> {
  const current = await existing(ctx, endpointId);
  await ctx.store.deleteEndpoint(endpointId);
  await ctx.keys.update(current.secretName, endpointId, () => undefined);
}

/**
 * A rotation whose secret write is younger than this and whose endpoint write is missing may still
 * be under way (the CLI's calls take seconds); an older one was interrupted and is taken over.
 */
export const ROTATION_UNDER_WAY_MS = 5 * MINUTE_MS;

/**
 * A new secret (shown once); the old one keeps signing too for ROTATION_OVERLAP_MS, then is dropped.
 * Two rotations of one endpoint at once: the first to write the key secret wins, the other fails
 * with EndpointConflictError and changes nothing (else the key that signs could be one whose
 * caller was told it failed). The endpoint's keyVersion is then written (again, on a concurrent
 * update of the endpoint), so that delivery Lambdas read the new key at once.
 */
export async function rotateSecret(
  ctx: AdminContext,
  endpointId: string,
  secret?: string,
): Promise<{ secret: string; previousUntil: string }> {
  if (secret !== undefined && !isWebhookSecret(secret))
    throw new EndpointInputError('a webhook secret is whsec_ and the base64 of 24 to 64 bytes');
  const current = await existing(ctx, endpointId);
  const nowMs = (ctx.now ?? Date.now)();
  const next = secret ?? generateWebhookSecret();
  const until = nowMs + ROTATION_OVERLAP_MS;
  let keyVersion = current.keyVersion + 1;
  await ctx.keys.update(current.secretName, endpointId, (entry) => {
    if (!entry) throw new EndpointInputError(`endpoint ${endpointId} has no key in ${current.secretName}`);
    const rotatedAt = entry.previous ? entry.previous.until - ROTATION_OVERLAP_MS : undefined;
    if (
      entry.keyVersion > current.keyVersion &&
      rotatedAt !== undefined &&
      nowMs - rotatedAt < ROTATION_UNDER_WAY_MS
    ) {
      throw new EndpointConflictError(
        `endpoint ${endpointId}: another rotate-secret is under way (or was interrupted less than ${ROTATION_UNDER_WAY_MS / MINUTE_MS} minutes ago); its secret stands, nothing was changed: run rotate-secret again to replace it`,
      );
    }
    keyVersion = Math.max(entry.keyVersion, current.keyVersion) + 1;
    return { ...entry, keyVersion, key: next, previous: { key: entry.key, until } };
  });
  await recordKeyVersion(ctx, current, keyVersion, new Date(nowMs).toISOString());
  return { secret: next, previousUntil: new Date(until).toISOString() };
}

/** Writes the endpoint's new keyVersion, reading it again if another change wrote it meanwhile. */
async function recordKeyVersion(ctx: AdminContext, read: Endpoint, keyVersion: number, now: string) {
  let stored = read;
  for (let round = 1; ; round++) {
    try {
      await ctx.store.putEndpoint(
        {
          ...stored,
          keyVersion: Math.max(stored.keyVersion, keyVersion),
          updatedAt: now,
          version: stored.version + 1,
        },
        stored.version,
      );
      return;
    } catch (err) {
      if (!(err instanceof EndpointConflictError) || round >= 5) throw err;
      stored = await existing(ctx, read.endpointId);
    }
  }
}

export async function listEndpoints(ctx: Pick<AdminContext, 'store'>): Promise<EndpointView[]> {
  return (await ctx.store.listEndpoints()).map(viewOf);
}

export async function showEndpoint(
  ctx: Pick<AdminContext, 'store'>,
  endpointId: string,
): Promise<EndpointView> {
  return viewOf(await existing(ctx as AdminContext, endpointId));
}

/** Per endpoint: enabled, the circuit, the last success and the last failure, the dead letters. */
export interface EndpointStatus {
  readonly endpoint: EndpointView;
  readonly failures: number;
  readonly failingSince?: string;
  readonly retryAt?: string;
  readonly lastSuccess?: {
    readonly at: string;
    readonly status: number;
    readonly webhookId: string;
    readonly latencyMs?: number;
  };
  readonly lastFailure?: {
    readonly at: string;
    readonly status?: number;
    readonly error: string;
    readonly excerpt?: string;
    readonly webhookId: string;
    readonly attempt: number;
  };
  readonly deadLetters: number;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export async function endpointStatus(
  ctx: Pick<AdminContext, 'store'>,
  endpointIds?: readonly string[],
): Promise<EndpointStatus[]> {
  const endpoints = (await ctx.store.listEndpoints()).filter(
    (e) => !endpointIds || endpointIds.includes(e.endpointId),
  );
  const health = await ctx.store.getHealth(endpoints.map((e) => e.endpointId));
  return Promise.all(
    endpoints.map(async (e) =>
      statusOf(e, health.get(e.endpointId) ?? EMPTY_HEALTH, await ctx.store.countDeadLetters(e.endpointId)),
    ),
  );
}

function statusOf(e: Endpoint, h: EndpointHealth, deadLetters: number): EndpointStatus {
  const { lastSuccess: s, lastFailure: f } = h;
  return {
    endpoint: viewOf(e),
    failures: h.failures,
    ...(h.failingSince ? { failingSince: iso(h.failingSince) } : {}),
    ...(h.retryAt ? { retryAt: iso(h.retryAt) } : {}),
    ...(s
      ? {
          lastSuccess: {
            at: iso(s.at)!,
            status: s.status,
            webhookId: s.webhookId,
            ...(s.latencyMs === undefined ? {} : { latencyMs: s.latencyMs }),
          },
        }
      : {}),
    ...(f
      ? {
          lastFailure: {
            at: iso(f.at)!,
            ...(f.status === undefined ? {} : { status: f.status }),
            error: f.error,
            ...(f.excerpt ? { excerpt: f.excerpt } : {}),
            webhookId: f.webhookId,
            attempt: f.attempt,
          },
        }
      : {}),
    deadLetters,
  };
}
