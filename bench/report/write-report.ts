/**
 * Writes the benchmark report: docs/benchmarks.md (for people), docs/benchmarks.json (the raw
 * figures of every run) and the SVG charts in docs/charts/.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { costChart, freshnessChart, rowsChart } from './charts';
import { rawJson } from './raw-json';
import { renderReport } from './render';
import type { BenchResults } from './results';

const BIOME = fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url));

/** Lays the JSON out as the repository's formatter does, so `npm run lint` accepts the generated file. */
async function formatJson(file: string): Promise<void> {
  if (!existsSync(BIOME)) return;
  try {
    await promisify(execFile)(BIOME, ['format', '--write', file]);
  } catch {
    // Outside the repository (e.g. --out /tmp/x) Biome declines the file: the JSON stays as written.
  }
}

/** `json`: the benchmarks.json to write as it is (a step measured alone into an earlier report). */
export async function writeReport(
  r: BenchResults,
  outDir: string,
  options: { readonly json?: Record<string, unknown> } = {},
): Promise<void> {
  await mkdir(join(outDir, 'charts'), { recursive: true });
  await writeFile(join(outDir, 'benchmarks.md'), renderReport(r));
  const json = options.json ? `${JSON.stringify(options.json, null, 2)}\n` : rawJson(r);
  await writeFile(join(outDir, 'benchmarks.json'), json);
  await formatJson(join(outDir, 'benchmarks.json'));
  await writeFile(join(outDir, 'charts', 'freshness.svg'), freshnessChart(r));
  await writeFile(join(outDir, 'charts', 'rows-per-change.svg'), rowsChart(r));
  await writeFile(join(outDir, 'charts', 'cost-per-club.svg'), costChart(r));
}
