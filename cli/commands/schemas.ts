/**
 * `schemas [--out DIR] [--catalog FILE] [--asyncapi FILE] [--release] [--package DIR]`: the JSON
 * Schemas (draft-04) of every event detail, and the documents generated from the catalog.
 *
 * - `--out DIR`: writes DIR/<kebab-detail-type>.json per event and prints the files written.
 * - without `--out`, `--release` or `--package`: prints one JSON object { "<detail-type>": <schema>, ... }
 *   to stdout.
 * - `--catalog FILE`: also writes the generated Markdown catalog page (docs/events.md).
 * - `--asyncapi FILE`: also writes the AsyncAPI 3 document of the bus (docs/asyncapi.json).
 * - `--release`: writes the release snapshot docs/schemas/released/v<package version>/, which the
 *   versioning test compares the current schemas with (docs/events-versioning.md). A snapshot is
 *   never overwritten.
 * - `--package DIR`: builds the `@gym-bridge/events` package for consumers outside the repository.
 * - `--cdk-package DIR`: builds `@gym-bridge/cdk` (typed subscriptions, lookups by stage) beside it.
 */
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageVersion, renderAsyncApiJson } from '../../event-tooling/asyncapi';
import { buildCdkPackage } from '../../event-tooling/build-cdk-package';
import { buildEventsPackage } from '../../event-tooling/build-package';
import {
  allEventJsonSchemas,
  type DetailType,
  detailTypeFileName,
  type JsonSchema,
} from '../../lambdas/events/catalog';
import { CliUsageError, parseFlags } from '../args';
import { renderEventCatalogMarkdown } from '../catalog-markdown';

/** Where release snapshots live, from the repository root. */
export const RELEASED_SCHEMAS_DIR = join('docs', 'schemas', 'released');

const HELP = `
usage: npm run --silent cli -- schemas [--out DIR] [--catalog FILE] [--asyncapi FILE] [--release]
                                       [--package DIR] [--cdk-package DIR]

Prints the JSON Schema (draft-04) of every event's detail as one JSON object keyed by detail-type
(unless --out, --release or --package write files instead).

  --out DIR         write DIR/<detail-type-in-kebab-case>.json per event instead, and list the files
  --catalog FILE    also write the generated Markdown event catalog (e.g. docs/events.md)
  --asyncapi FILE   also write the AsyncAPI 3 document of the bus (e.g. docs/asyncapi.json)
  --release         write the release snapshot ${RELEASED_SCHEMAS_DIR}/v<package version>/ (never
                    overwritten; the versioning test compares the current schemas with the latest)
  --package DIR     build the @gym-bridge/events package (JS, .d.ts, JSON Schemas, AsyncAPI) in DIR
                    (npm run build:events: dist/events)
  --cdk-package DIR build the @gym-bridge/cdk package (typed BridgeSubscription, the lookups of a
                    stage's bus and schemas) in DIR, at the same version (npm run build:events:
                    dist/cdk); it needs the events package: the one --package builds, else one
                    built for the purpose
`;

async function writeSchemas(dir: string, schemas: Record<string, JsonSchema>): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const [detailType, schema] of Object.entries(schemas)) {
    const file = join(dir, `${detailTypeFileName(detailType as DetailType)}.json`);
    await writeFile(file, JSON.stringify(schema, null, 2) + '\n', 'utf8');
    files.push(file);
  }
  return files;
}

/** `@gym-bridge/cdk` in `dir`, typed against the events package in `eventsDir` (or a scratch one). */
async function cdkPackage(dir: string, eventsDir: string | undefined, report: NodeJS.WritableStream) {
  const scratch = eventsDir === undefined ? await mkdtemp(join(tmpdir(), 'gym-bridge-events-')) : undefined;
  try {
    if (scratch) await buildEventsPackage(scratch);
    const built = await buildCdkPackage(dir, eventsDir ?? scratch!);
    report.write(`${built.dir}: ${built.files.join(', ')}\n`);
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export async function run(argv: string[], options: { root?: string } = {}): Promise<number> {
  const flags = parseFlags(
    argv,
    {
      out: { type: 'string' },
      catalog: { type: 'string' },
      asyncapi: { type: 'string' },
      release: { type: 'boolean' },
      package: { type: 'string' },
      'cdk-package': { type: 'string' },
    },
    HELP,
  );
  if (!flags) return 0;
  const schemas = allEventJsonSchemas();
  // The JSON object goes to stdout unless files were asked for instead (--out, --release,
  // --package); while stdout carries it, the files written are reported on stderr.
  const printJson = !flags.out && !flags.release && !flags.package && !flags['cdk-package'];
  const report = printJson ? process.stderr : process.stdout;

  if (flags.release) {
    const dir = join(options.root ?? '.', RELEASED_SCHEMAS_DIR, `v${packageVersion()}`);
    if (await exists(dir)) {
      throw new CliUsageError(
        `${dir} exists: a released snapshot is never overwritten (bump "version" in package.json for a new release)`,
      );
    }
    for (const file of await writeSchemas(dir, schemas)) report.write(`${file}\n`);
  }

  if (flags.out) {
    for (const file of await writeSchemas(flags.out, schemas)) process.stdout.write(`${file}\n`);
  } else if (printJson) {
    process.stdout.write(JSON.stringify(schemas, null, 2) + '\n');
  }

  if (flags.catalog) {
    await mkdir(dirname(flags.catalog), { recursive: true });
    await writeFile(flags.catalog, renderEventCatalogMarkdown(), 'utf8');
    report.write(`${flags.catalog}\n`);
  }
  if (flags.asyncapi) {
    await mkdir(dirname(flags.asyncapi), { recursive: true });
    await writeFile(flags.asyncapi, renderAsyncApiJson(), 'utf8');
    report.write(`${flags.asyncapi}\n`);
  }
  if (flags.package) {
    const built = await buildEventsPackage(flags.package);
    report.write(
      `${built.dir}: ${built.files.filter((f) => !f.startsWith('schemas/')).join(', ')}, schemas/*.json\n`,
    );
  }
  if (flags['cdk-package']) await cdkPackage(flags['cdk-package'], flags.package, report);
  return 0;
}
