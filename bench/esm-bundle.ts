/**
 * Entries bundled as the deployed functions are: a single ES module for Node 20+, with a `require`
 * for the CommonJS packages inlined in it. `bundleEsm` keeps every dependency inside (the bench's
 * child processes and the test suite's CLI bundle); `bundleAsFunction` is what BridgeFunction
 * (lib/constructs/bridge-function.ts) asks of esbuild for a Lambda: minified with names kept, a
 * linked source map, the AWS SDK left out (the Node.js 22 runtime provides it; here it comes from
 * the repository's node_modules, so the bundle is written under it).
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// CommonJS packages inlined in an ES module still call require.
const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

const ESM: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
  banner: { js: REQUIRE_SHIM },
};

export async function bundleEsm(
  entry: string,
  outfile: string,
  options: { readonly external?: readonly string[] } = {},
): Promise<string> {
  await build({
    ...ESM,
    entryPoints: [entry],
    target: 'node20',
    outfile,
    external: [...(options.external ?? [])],
  });
  return outfile;
}

/** Where function bundles are written: under node_modules, so that the AWS SDK they import resolves. */
export const FUNCTION_BUNDLES_DIR = join(ROOT, 'node_modules', '.cache', 'gym-bridge-bench');

/**
 * `entry` (relative to the repository root) bundled as BridgeFunction bundles a Lambda's handler,
 * into `outDir` (under FUNCTION_BUNDLES_DIR): `index.mjs` and its `index.mjs.map`.
 */
export async function bundleAsFunction(entry: string, outDir: string): Promise<string> {
  const outfile = join(outDir, 'index.mjs');
  await mkdir(dirname(outfile), { recursive: true });
  await build({
    ...ESM,
    entryPoints: [join(ROOT, entry)],
    target: 'node22',
    outfile,
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    minify: true,
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
  });
  return outfile;
}
