/**
 * One entry bundled as the deployed functions are: a single ES module for Node 20+, its
 * dependencies inside (`external` left out), with a `require` for the CommonJS packages inlined in
 * it. Used by the bench's child processes and by the test suite's CLI bundle.
 */
import { build } from 'esbuild';

export async function bundleEsm(
  entry: string,
  outfile: string,
  options: { readonly external?: readonly string[] } = {},
): Promise<string> {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: [...(options.external ?? [])],
    logLevel: 'warning',
    // CommonJS packages inlined in an ES module still call require.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return outfile;
}
