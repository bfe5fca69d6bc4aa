/**
 * The shared key secrets (lambdas/delivery/signing-keys.ts) under concurrent writers: `webhooks
 * add`, `rotate-secret` and `remove` run at once against ONE key secret (every endpoint in one
 * shard), through the real SDK to the local Secrets Manager (test/support/local-secrets-manager.ts:
 * version stages as the API has them, so the compare-and-swap on AWSCURRENT is the real one), the
 * webhook table in dynalite. No writer may lose another's endpoint, and every key an endpoint signs
 * with must be one that a call which succeeded showed to its caller (else its receiver can verify
 * nothing once the rotation's 24 hours are over). Each signature is checked by the official
 * `standardwebhooks` package.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  keysOf,
  ROTATION_OVERLAP_MS,
  SecretsManagerSigningKeys,
} from '../../../lambdas/delivery/signing-keys';
import {
  type AdminContext,
  addEndpoint,
  ROTATION_UNDER_WAY_MS,
  removeEndpoint,
  rotateSecret,
} from '../../../lambdas/delivery/webhook-admin';
import { generateWebhookSecret, signedHeaders } from '../../../lambdas/delivery/webhook-signature';
import { WebhookStore } from '../../../lambdas/delivery/webhook-store';
import { createStateTable } from '../../../lambdas/state/table';
import { type Dynalite, startDynalite } from '../../support/dynalite';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';

let sm: LocalSecretsManager;
let db: Dynalite;
let client: SecretsManagerClient;
let tables = 0;

beforeAll(async () => {
  [sm, db] = await Promise.all([startLocalSecretsManager(), startDynalite()]);
  client = new SecretsManagerClient({
    endpoint: sm.endpoint,
    region: sm.region,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});
afterAll(async () => {
  client.destroy();
  await Promise.all([sm.close(), db.close()]);
});

/** A fresh table; every endpoint's keys in the one secret (shards: 1), so every write contends. */
async function context(): Promise<AdminContext> {
  tables++;
  const tableName = `webhook-keys-${process.pid}-${tables}`;
  await createStateTable(db.client, tableName);
  return {
    store: new WebhookStore({ client: db.client, tableName }),
    keys: new SecretsManagerSigningKeys({ client }),
    secretPrefix: `gym-bridge/test-${tables}/webhooks/`,
    secretShards: 1,
    policy: 'local',
  };
}

const input = (n: number) => ({ url: `http://127.0.0.1:9/hook-${n}`, detailTypes: ['*'] });

/** What a delivery Lambda would sign with now: a reader with an empty cache, as a new container. */
async function signingKeys(ctx: AdminContext, endpointId: string) {
  const endpoint = await ctx.store.getEndpoint(endpointId);
  const entry = await new SecretsManagerSigningKeys({ client }).entry(
    endpoint!.secretName,
    endpointId,
    endpoint!.keyVersion,
  );
  return { endpoint: endpoint!, entry };
}

/** True when a delivery signed now for the endpoint verifies with `secret` (standardwebhooks). */
async function verifiesWith(ctx: AdminContext, endpointId: string, secret: string): Promise<boolean> {
  const { entry } = await signingKeys(ctx, endpointId);
  if (!entry) return false;
  const body = '{"type":"Member Joined","timestamp":"2026-03-02T08:00:00Z","data":{}}';
  const headers = signedHeaders(keysOf(entry, Date.now()).keys, 'evt_1', Math.floor(Date.now() / 1000), body);
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

/** The endpoints of the context's one key secret, as Secrets Manager holds it now. */
const documentEndpoints = (ctx: AdminContext) =>
  Object.keys(
    (
      JSON.parse(sm.currentValue(`${ctx.secretPrefix}keys-0`) ?? '{}') as {
        endpoints?: Record<string, unknown>;
      }
    ).endpoints ?? {},
  ).sort();

describe('webhook key secrets under concurrent writers (compare-and-swap on AWSCURRENT)', () => {
  it('eight `webhooks add` at once into one secret: all eight keys stay, each the secret its add showed', async () => {
    // Prepare
    const ctx = await context();
    // Act
    const added = await Promise.all(Array.from({ length: 8 }, (_, i) => addEndpoint(ctx, input(i))));
    // Assess
    expect(documentEndpoints(ctx)).toEqual(added.map((a) => a.endpoint.endpointId).sort());
    for (const { endpoint, secret } of added) {
      expect(await verifiesWith(ctx, endpoint.endpointId, secret)).toBe(true);
    }
  });

  it('rotate-secret of four endpoints, four adds and a remove at once: nothing lost, nothing left over', async () => {
    // Prepare
    const ctx = await context();
    const before = await Promise.all([0, 1, 2, 3, 4].map((i) => addEndpoint(ctx, input(i))));
    const [gone, ...rotating] = before;
    // Act
    const [rotated, added] = await Promise.all([
      Promise.all(rotating.map((a) => rotateSecret(ctx, a.endpoint.endpointId))),
      Promise.all([5, 6, 7, 8].map((i) => addEndpoint(ctx, input(i)))),
      removeEndpoint(ctx, gone!.endpoint.endpointId),
    ]);
    // Assess
    const ids = [...rotating, ...added].map((a) => a.endpoint.endpointId).sort();
    expect(documentEndpoints(ctx)).toEqual(ids);
    for (const [i, { endpoint, secret: old }] of rotating.entries()) {
      const { entry, endpoint: stored } = await signingKeys(ctx, endpoint.endpointId);
      expect(entry?.keyVersion).toBe(2);
      expect(stored.keyVersion).toBe(2);
      expect(await verifiesWith(ctx, endpoint.endpointId, rotated[i]!.secret)).toBe(true);
      // The old key signs too for the rotation's 24 hours.
      expect(await verifiesWith(ctx, endpoint.endpointId, old)).toBe(true);
    }
    for (const { endpoint, secret } of added) {
      expect(await verifiesWith(ctx, endpoint.endpointId, secret)).toBe(true);
    }
    expect(await ctx.store.getEndpoint(gone!.endpoint.endpointId)).toBeUndefined();
  });

  it('three rotate-secret of ONE endpoint at once: the key it signs with is one a rotation that succeeded showed', async () => {
    // Prepare
    const ctx = await context();
    const { endpoint, secret: original } = await addEndpoint(ctx, input(0));
    const id = endpoint.endpointId;
    // Act
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => rotateSecret(ctx, id)));
    // Assess
    const shown = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.secret] : []));
    expect(shown.length).toBeGreaterThanOrEqual(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect((o.reason as Error).name).toBe('EndpointConflictError');
    }
    const { entry, endpoint: stored } = await signingKeys(ctx, id);
    // Readers refresh a cached key when the endpoint's keyVersion is newer: the two must agree.
    expect(entry?.keyVersion).toBe(stored.keyVersion);
    // The current key is one a caller was shown; every secret a caller was shown verifies now.
    const current = await Promise.all(shown.map((s) => verifiesWithCurrentOnly(ctx, id, s)));
    expect(current.filter(Boolean)).toHaveLength(1);
    for (const s of shown) expect(await verifiesWith(ctx, id, s)).toBe(true);
    // The original key signs as the previous one only if exactly one rotation went through.
    expect(await verifiesWith(ctx, id, original)).toBe(shown.length === 1);
  });

  it('a rotation interrupted between its two writes blocks rotate-secret for 5 minutes, then is taken over', async () => {
    // Prepare: the key secret written by a rotation (keyVersion 2) whose endpoint write never came.
    const ctx = await context();
    const { endpoint, secret: original } = await addEndpoint(ctx, input(0));
    const id = endpoint.endpointId;
    const stranded = generateWebhookSecret();
    const interruptedAt = Date.now();
    await ctx.keys.update(`${ctx.secretPrefix}keys-0`, id, (entry) => ({
      ...entry!,
      keyVersion: 2,
      key: stranded,
      previous: { key: entry!.key, until: interruptedAt + ROTATION_OVERLAP_MS },
    }));
    // Act + Assess: within the 5 minutes it may still be under way.
    const early = { ...ctx, now: () => interruptedAt + ROTATION_UNDER_WAY_MS - 1000 };
    await expect(rotateSecret(early, id)).rejects.toThrow(/another rotate-secret is under way/);
    expect((await signingKeys(ctx, id)).entry?.key).toBe(stranded);
    // After them, the next rotation takes it over: its key signs, the endpoint and the secret agree.
    const late = { ...ctx, now: () => interruptedAt + ROTATION_UNDER_WAY_MS + 1000 };
    const { secret } = await rotateSecret(late, id);
    const { entry, endpoint: stored } = await signingKeys(ctx, id);
    expect(entry?.key).toBe(secret);
    expect(entry?.keyVersion).toBe(3);
    expect(stored.keyVersion).toBe(3);
    expect(await verifiesWith(ctx, id, original)).toBe(false);
  });
});

/** True when `secret` is the endpoint's current key (not only the one being rotated out). */
async function verifiesWithCurrentOnly(ctx: AdminContext, endpointId: string, secret: string) {
  const { entry } = await signingKeys(ctx, endpointId);
  return entry?.key === secret;
}
