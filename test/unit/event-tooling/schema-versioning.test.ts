/**
 * Versioning (docs/events-versioning.md): the current detail schemas against the latest release
 * snapshot in docs/schemas/released/v<version>/. A breaking change without a higher eventVersion
 * fails here; so does a detail-type that is no longer published.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { RELEASED_SCHEMAS_DIR, run } from '../../../cli/commands/schemas';
import { packageVersion, renderAsyncApiJson } from '../../../event-tooling/asyncapi';
import type { JsonSchemaNode } from '../../../event-tooling/schema-compare';
import { checkAgainstRelease, sortReleases } from '../../../event-tooling/schema-compat';
import { allEventJsonSchemas, detailTypeFileName, EVENT_VERSION } from '../../../lambdas/events/catalog';

const RELEASED = join(process.cwd(), RELEASED_SCHEMAS_DIR);

async function latestRelease(): Promise<{ version: string; schemas: Record<string, JsonSchemaNode> }> {
  const versions = sortReleases(await readdir(RELEASED));
  const version = versions.at(-1);
  if (!version) throw new Error(`no release snapshot in ${RELEASED}`);
  const schemas: Record<string, JsonSchemaNode> = {};
  for (const file of await readdir(join(RELEASED, version))) {
    const schema = JSON.parse(await readFile(join(RELEASED, version, file), 'utf8')) as JsonSchemaNode;
    schemas[String(schema.title)] = schema;
  }
  return { version, schemas };
}

const semver = (v: string) => v.replace(/^v/, '').split('.').map(Number) as [number, number, number];

describe('event schemas against the last release', () => {
  it('have no breaking change without an eventVersion bump, and no detail-type removed', async () => {
    const { version, schemas } = await latestRelease();
    const verdicts = checkAgainstRelease(schemas, allEventJsonSchemas());
    const violations = verdicts.flatMap((v) =>
      v.violations.map((c) => `${v.detailType}: ${c.path}: ${c.rule}: ${c.message}`),
    );
    expect(
      violations,
      `breaking changes since ${version} (docs/events-versioning.md: make the change additive, or bump eventVersion and publish both versions)`,
    ).toEqual([]);
  });

  it('the latest snapshot is not newer than the package, and names its files by detail-type', async () => {
    const { version, schemas } = await latestRelease();
    const [major, minor, patch] = semver(version);
    const [pMajor, pMinor, pPatch] = semver(packageVersion());
    expect(major * 1e6 + minor * 1e3 + patch).toBeLessThanOrEqual(pMajor * 1e6 + pMinor * 1e3 + pPatch);
    const files = await readdir(join(RELEASED, version));
    expect(files.sort()).toEqual(
      Object.keys(schemas)
        .map((t) => `${detailTypeFileName(t as never)}.json`)
        .sort(),
    );
    for (const schema of Object.values(schemas)) {
      expect(
        (schema.properties as { eventVersion: { enum: number[] } }).eventVersion.enum[0],
      ).toBeLessThanOrEqual(EVENT_VERSION);
    }
  });

  it('would fail on a planted breaking change (the check can fail)', async () => {
    const { schemas } = await latestRelease();
    const current = allEventJsonSchemas() as Record<string, JsonSchemaNode>;
    const planted = structuredClone(current['Payment Failed']) as { properties: Record<string, unknown> };
    delete planted.properties.response;
    (planted.properties.reason as { enum: string[] }).enum.push('expired');
    const verdicts = checkAgainstRelease(schemas, { ...current, 'Payment Failed': planted });
    expect(
      verdicts.flatMap((v) => v.violations.map((c) => `${v.detailType} ${c.rule} ${c.path}`)).sort(),
    ).toEqual(['Payment Failed enum-value-added reason', 'Payment Failed property-removed response']);
  });
});

describe('schemas --release and --asyncapi', () => {
  let dir: string;
  let out: string[];
  beforeEach(async () => {
    out = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-release-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it('--release writes the snapshot of the package version once, then refuses to overwrite it', async () => {
    expect(await run(['--release'], { root: dir })).toBe(0);
    const snapshot = join(dir, RELEASED_SCHEMAS_DIR, `v${packageVersion()}`);
    const current = allEventJsonSchemas();
    for (const [detailType, schema] of Object.entries(current)) {
      const file = join(snapshot, `${detailTypeFileName(detailType as never)}.json`);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(schema);
    }
    expect(out.join('').trim().split('\n')).toHaveLength(Object.keys(current).length);
    await expect(run(['--release'], { root: dir })).rejects.toBeInstanceOf(CliUsageError);
  });

  it('--asyncapi writes the generated document, stdout stays parseable JSON', async () => {
    const file = join(dir, 'docs', 'asyncapi.json');
    expect(await run(['--asyncapi', file])).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(renderAsyncApiJson());
    expect(() => JSON.parse(out.join(''))).not.toThrow();
  });
});
