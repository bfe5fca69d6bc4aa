/**
 * Builds `@gym-bridge/events` as a package a consumer outside this repository installs
 * (`npm run build:events`, i.e. `schemas --package dist/events`):
 *
 * - `index.js`: event-tooling/consumer.ts and its small graph bundled by esbuild (ESM, ES2022,
 *   platform neutral), zod left as an import: it is a peer dependency, shared with Powertools Parser.
 * - `index.d.ts` and `types/`: the declarations, from `tsc --emitDeclarationOnly` on the same files.
 * - `schemas/<detail-type>.json`: the JSON Schema (draft-04) of every detail; `asyncapi.json`.
 * - `package.json`: `@gym-bridge/events` at the bridge's version, `exports`, `peerDependencies` zod 4.
 *
 * A consumer installs the folder (`npm install ../gym-bridge/dist/events`), or the tarball
 * `npm pack dist/events` makes; its CDK app also installs `@gym-bridge/cdk` (./build-cdk-package.ts),
 * built beside it at the same version. test/integration/event-tooling/events-package.test.ts builds it, type-checks a
 * consumer against it and runs it.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { allEventJsonSchemas, type DetailType, detailTypeFileName } from '../lambdas/events/catalog';
import { renderAsyncApiJson } from './asyncapi';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'event-tooling', 'consumer.ts');

export interface BuiltPackage {
  readonly dir: string;
  readonly files: readonly string[];
}

export async function buildEventsPackage(outDir: string): Promise<BuiltPackage> {
  const dir = resolve(outDir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'schemas'), { recursive: true });
  const files: string[] = [];
  files.push(await bundleModule(dir));
  files.push(...(await emitDeclarations(dir)));
  files.push(...(await writeSchemas(dir)));
  files.push(await writePackageJson(dir));
  return { dir, files };
}

/** `index.js`: the consumer module and its small graph bundled by esbuild, zod left as an import. */
async function bundleModule(dir: string): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [ENTRY],
    outfile: join(dir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: ['zod'],
    legalComments: 'none',
    logLevel: 'silent',
  });
  return 'index.js';
}

/** `index.d.ts` and `types/`: the declarations of the same files. */
async function emitDeclarations(dir: string): Promise<string[]> {
  // A throw-away tsconfig next to the output, extending the repository's one. No `types`: the
  // module uses no Node API, so its declarations need no @types/node.
  const tsconfig = join(dir, 'tsconfig.build.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        outDir: join(dir, 'types'),
        rootDir: ROOT,
        types: [],
        paths: {},
      },
      include: [],
      files: [ENTRY],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig], { cwd: ROOT });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc --emitDeclarationOnly failed:\n${stdout}${stderr}`);
  } finally {
    await rm(tsconfig, { force: true });
  }
  await addJsExtensions(join(dir, 'types'));
  await writeFile(join(dir, 'index.d.ts'), "export * from './types/event-tooling/consumer.js';\n");
  return ['index.d.ts', 'types/'];
}

/** `schemas/<detail-type>.json` (each detail's JSON Schema) and `asyncapi.json`. */
async function writeSchemas(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const [detailType, schema] of Object.entries(allEventJsonSchemas())) {
    const file = `schemas/${detailTypeFileName(detailType as DetailType)}.json`;
    await writeFile(join(dir, file), `${JSON.stringify(schema, null, 2)}\n`);
    files.push(file);
  }
  await writeFile(join(dir, 'asyncapi.json'), renderAsyncApiJson());
  files.push('asyncapi.json');
  return files;
}

/** `package.json`: `@gym-bridge/events` at the bridge's version, zod 4 as a peer dependency. */
async function writePackageJson(dir: string): Promise<string> {
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
  const pkg = {
    name: '@gym-bridge/events',
    version: root.version,
    description: 'Event schemas, types and constants of the gym-bridge EventBridge bus (generated).',
    type: 'module',
    sideEffects: false,
    exports: {
      '.': { types: './index.d.ts', default: './index.js' },
      './schemas/*': './schemas/*',
      './asyncapi.json': './asyncapi.json',
    },
    types: './index.d.ts',
    peerDependencies: { zod: root.dependencies?.zod ?? '^4.0.0' },
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return 'package.json';
}

/**
 * Relative specifiers in the emitted declarations get a `.js` extension (`'./catalog'` ->
 * `'./catalog.js'`), as `moduleResolution: node16/nodenext` requires in an ESM package; bundler
 * resolution accepts both.
 */
export async function addJsExtensions(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = await readFile(file, 'utf8');
    const fixed = text.replace(
      /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)(?<!\.js)\2/g,
      (_m, lead: string, quote: string, path: string) => `${lead}${quote}${path}.js${quote}`,
    );
    if (fixed !== text) await writeFile(file, fixed);
  }
}
