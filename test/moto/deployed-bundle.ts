/**
 * What the bundle cross-checks of this folder share: the synthesized prod template
 * (cdk.out/GymBridge-prod.template.json, from `npm run synth -- -c stage=prod`), a function's
 * environment exactly as the template gives it (its refs resolved to moto's resources), and the
 * function's bundle imported with that environment and moto as every AWS endpoint.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Resource = { Type: string; Properties: Record<string, unknown> };

const out = join(process.cwd(), 'cdk.out');

/** The prod template's resources, as [logical id, resource] pairs. */
export function templateResources(): [string, Resource][] {
  const template = JSON.parse(readFileSync(join(out, 'GymBridge-prod.template.json'), 'utf8')) as {
    Resources: Record<string, Resource>;
  };
  return Object.entries(template.Resources);
}

/** The first resource of this type whose logical id contains `idPart` (any id without it). */
export function resourceOf(type: string, idPart = ''): [string, Resource] {
  const found = templateResources().find(([id, r]) => r.Type === type && id.includes(idPart));
  if (!found)
    throw new Error(`no ${type} ${idPart} in the prod template: run npm run synth -- -c stage=prod`);
  return found;
}

/**
 * Imports the function's bundle with the template's environment, each `{ Ref: id }` replaced by
 * `refs[id]`, and moto (dummy credentials, us-east-1) as the endpoint of every AWS client.
 */
export async function importBundle(
  fn: Resource,
  refs: Record<string, string>,
  endpoint: string,
): Promise<{ handler: (event: unknown, context: unknown) => Promise<unknown>; env: Record<string, string> }> {
  const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(variables)) {
    const ref = (v as { Ref?: string }).Ref;
    env[k] = ref !== undefined && refs[ref] !== undefined ? refs[ref] : String(v);
  }
  Object.assign(process.env, env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    AWS_ENDPOINT_URL: endpoint,
  });
  const asset = (fn.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
  const bundle = await import(pathToFileURL(join(out, `asset.${asset}`, 'index.mjs')).href);
  return { handler: bundle.handler, env };
}

/** moto's client configuration (the same as moto-server.ts gives its own clients). */
export const motoConfig = (endpoint: string) => ({
  region: 'us-east-1',
  endpoint,
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
