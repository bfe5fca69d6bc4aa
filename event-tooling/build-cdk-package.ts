/**
 * Builds `@gym-bridge/cdk`, the CDK part of a subscription from another repository
 * (lib/consumer-cdk.ts: the typed `BridgeSubscription` and the lookups of a stage's bus and
 * schemas), as a package beside `@gym-bridge/events` (`npm run build:events`, i.e. `schemas
 * --package dist/events --cdk-package dist/cdk`):
 *
 * - `index.js`: lib/consumer-cdk.ts and its two modules bundled by esbuild (ESM, ES2022, Node),
 *   `aws-cdk-lib`, `constructs` and `@gym-bridge/events` left as imports: peer dependencies.
 * - `index.d.ts` and `types/`: the declarations, from `tsc --emitDeclarationOnly`, with
 *   `@gym-bridge/events` resolved to the built events package, so they name that package.
 * - `package.json`: `@gym-bridge/cdk` at the bridge's version (docs/events-versioning.md: both
 *   packages are released together), peer dependencies `@gym-bridge/events` of that exact version,
 *   `aws-cdk-lib` and `constructs` in the ranges the bridge is built with.
 *
 * This module only names lib/ files (as paths): no Lambda bundles it, and it imports no CDK code.
 * test/verify/consumer-packages.verify.ts packs both packages, installs them in a project
 * outside the repository and synthesizes a stack with a typed subscription.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { addJsExtensions, type BuiltPackage } from './build-package';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'lib', 'consumer-cdk.ts');
const PEERS = ['aws-cdk-lib', 'constructs', '@gym-bridge/events'];

/** Builds the package in `outDir`; `eventsDir` holds the built `@gym-bridge/events` (its types). */
export async function buildCdkPackage(outDir: string, eventsDir: string): Promise<BuiltPackage> {
  const dir = resolve(outDir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  files.push(await bundleModule(dir));
  files.push(...(await emitDeclarations(dir, resolve(eventsDir))));
  files.push(await writePackageJson(dir));
  return { dir, files };
}

async function bundleModule(dir: string): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [ENTRY],
    outfile: join(dir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    // Not the repository's tsconfig: its `paths` would bundle @gym-bridge/events from source.
    tsconfigRaw: {},
    external: [...PEERS, 'aws-cdk-lib/*'],
    legalComments: 'none',
    logLevel: 'silent',
  });
  return 'index.js';
}

/** `index.d.ts` and `types/`: the declarations of lib/consumer-cdk.ts and its modules. */
async function emitDeclarations(dir: string, eventsDir: string): Promise<string[]> {
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
        rootDir: join(ROOT, 'lib'),
        // The modules use no Node API; aws-cdk-lib's own declarations are not checked (skipLibCheck).
        types: [],
        // The built package's declarations, not the catalog's source: nothing of lambdas/ is emitted.
        paths: { '@gym-bridge/events': [join(eventsDir, 'index.d.ts')] },
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
    throw new Error(`tsc --emitDeclarationOnly (@gym-bridge/cdk) failed:\n${stdout}${stderr}`);
  } finally {
    await rm(tsconfig, { force: true });
  }
  await addJsExtensions(join(dir, 'types'));
  await writeFile(join(dir, 'index.d.ts'), "export * from './types/consumer-cdk.js';\n");
  return ['index.d.ts', 'types/'];
}

async function writePackageJson(dir: string): Promise<string> {
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
    devDependencies?: Record<string, string>;
  };
  const pkg = {
    name: '@gym-bridge/cdk',
    version: root.version,
    description:
      'Typed EventBridge subscriptions to the gym-bridge bus, and the lookups of its bus and schemas by stage (CDK).',
    type: 'module',
    sideEffects: false,
    exports: { '.': { types: './index.d.ts', default: './index.js' } },
    types: './index.d.ts',
    peerDependencies: {
      '@gym-bridge/events': root.version,
      'aws-cdk-lib': root.devDependencies?.['aws-cdk-lib'] ?? '^2.0.0',
      constructs: root.devDependencies?.constructs ?? '^10.0.0',
    },
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return 'package.json';
}
