/**
 * vitest's global setup: builds the CLI once per run into one ES module (esbuild, as the Lambda
 * bundles are built), so that the suite's ~200 CLI child processes start from plain JavaScript
 * instead of each transpiling the whole CLI through tsx (about 0.6 s of CPU a start instead of 2).
 * test/support/cli-process.ts runs it when GYM_BRIDGE_TEST_CLI names it; a test file run outside
 * vitest's setup runs the sources through tsx as before. The bundle is the same sources, built
 * fresh at every run; `npm start` and the README's commands still run the sources through tsx.
 *
 * dynalite stays a package (it requires its actions by computed names); the rest is inlined, so a
 * start reads one file. It lives in the repository (.cache/, ignored) because the CLI finds
 * package.json two folders above its module, as it does from cli/.
 *
 * It also names the run's folder of shared CDK templates (test/cdk/support.ts `synthTemplate`:
 * the CDK files that assert on the same app synthesize it once a run), removed at the end.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleEsm } from '../bench/esm-bundle';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const outdir = `${ROOT}.cache/test-cli`;
  mkdirSync(outdir, { recursive: true });
  const outfile = `${outdir}/main-${process.pid}.mjs`;
  await bundleEsm(`${ROOT}cli/main.ts`, outfile, { external: ['dynalite'] });
  process.env.GYM_BRIDGE_TEST_CLI = outfile;
  const templates = `${ROOT}.cache/test-templates-${process.pid}`;
  process.env.GYM_BRIDGE_TEST_TEMPLATES = templates;
  return async () => {
    const { rm } = await import('node:fs/promises');
    await rm(outfile, { force: true });
    await rm(templates, { recursive: true, force: true });
  };
}
