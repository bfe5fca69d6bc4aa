/**
 * `schemas [--out DIR] [--catalog FILE]`: the JSON Schemas (draft-04) of every event detail.
 *
 * - `--out DIR`: writes DIR/<kebab-detail-type>.json per event and prints the files written.
 * - without `--out`: prints one JSON object { "<detail-type>": <schema>, ... } to stdout.
 * - `--catalog FILE`: also writes the generated Markdown catalog page (docs/events.md).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { allEventJsonSchemas, type DetailType, detailTypeFileName } from '../../events/catalog';
import { renderEventCatalogMarkdown } from '../../events/catalog-markdown';
import { parseFlags } from '../args';

export const summary = 'print or write the JSON Schemas of every event (and the Markdown event catalog)';

const HELP = `
usage: npm run --silent cli -- schemas [--out DIR] [--catalog FILE]

Prints the JSON Schema (draft-04) of every event's detail as one JSON object keyed by detail-type.

  --out DIR        write DIR/<detail-type-in-kebab-case>.json per event instead, and list the files
  --catalog FILE   also write the generated Markdown event catalog (e.g. docs/events.md)
`;

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, { out: { type: 'string' }, catalog: { type: 'string' } }, HELP);
  if (!flags) return 0;
  const schemas = allEventJsonSchemas();

  if (flags.out) {
    await mkdir(flags.out, { recursive: true });
    for (const [detailType, schema] of Object.entries(schemas)) {
      const file = join(flags.out, `${detailTypeFileName(detailType as DetailType)}.json`);
      await writeFile(file, JSON.stringify(schema, null, 2) + '\n', 'utf8');
      process.stdout.write(`${file}\n`);
    }
  } else {
    process.stdout.write(JSON.stringify(schemas, null, 2) + '\n');
  }

  if (flags.catalog) {
    await mkdir(dirname(flags.catalog), { recursive: true });
    await writeFile(flags.catalog, renderEventCatalogMarkdown(), 'utf8');
    // stdout may be carrying the JSON object: report on stderr so it stays parseable.
    (flags.out ? process.stdout : process.stderr).write(`${flags.catalog}\n`);
  }
  return 0;
}
