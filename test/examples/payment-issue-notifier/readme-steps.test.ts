/**
 * The example's README, followed literally: step 1 installs every package the example imports (and
 * what its tsconfig, its CDK app and step 5's `cdk` need, TypeScript pinned to the bridge's), and
 * step 4's commands, run as written from a project folder next to the repository, write the fixture
 * files it names.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/payment-issue-notifier');

/** The first ```sh block after the heading that starts with `heading`. */
function shBlock(readme: string, heading: string): string {
  const at = readme.indexOf(`\n${heading}`);
  expect(at, `heading ${heading}`).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  expect(block, `a sh block after ${heading}`).not.toBeNull();
  return block![1]!;
}

/** `name` of an npm install argument: 'typescript@~5.9' -> typescript, '@types/node' -> @types/node. */
const packageName = (spec: string) =>
  spec.startsWith('@') ? `@${spec.slice(1).split('@')[0]}` : spec.split('@')[0]!;

/** The bare packages a file imports (node: built-ins and relative paths left out). */
function importsOf(text: string): string[] {
  return [...text.matchAll(/from '([^'.][^']*)'/g)]
    .map((m) => m[1]!)
    .filter((p) => !p.startsWith('node:'))
    .map((p) => (p.startsWith('@') ? p.split('/').slice(0, 2).join('/') : p.split('/')[0]!));
}

async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

describe('the example README, step by step', () => {
  let readme: string;
  beforeAll(async () => {
    readme = await readFile(join(EXAMPLE, 'README.md'), 'utf8');
  });

  it('step 1 installs what the example imports, what its tsconfig and CDK app need, TypeScript pinned', async () => {
    const block = shBlock(readme, '### 1. Install');
    const lines = block.split('\n').filter((l) => l.startsWith('npm install '));
    const args = lines.flatMap((l) => l.replace(/^npm install (-D )?/, '').split(/\s+/));
    // The bridge's two packages, from the tarballs `npm pack` makes of what build:events wrote
    const tarball = /^\.\.\/gym-bridge\/gym-bridge-(events|cdk)-\*\.tgz$/;
    expect(block).toMatch(/^npm ci && npm run build:events\b/m);
    expect(block).toMatch(/^npm pack \.\/dist\/events \.\/dist\/cdk\b/m);
    const installed = new Set(
      args.map((a) => {
        const ours = tarball.exec(a)?.[1];
        return ours === undefined ? packageName(a) : `@gym-bridge/${ours}`;
      }),
    );
    // Every package the example's code imports.
    const files = [...(await tsFiles(join(EXAMPLE, 'src'))), ...(await tsFiles(join(EXAMPLE, 'infra')))];
    const imported = new Set((await Promise.all(files.map((f) => readFile(f, 'utf8')))).flatMap(importsOf));
    expect([...imported].filter((p) => !installed.has(p))).toEqual([]);
    // The tsconfig's "types", the CDK app's runner (cdk.json) and step 5's `npx cdk`.
    const tsconfig = JSON.parse(await readFile(join(EXAMPLE, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { types?: string[] };
    };
    for (const t of tsconfig.compilerOptions.types ?? []) expect(installed).toContain(`@types/${t}`);
    const cdk = JSON.parse(await readFile(join(EXAMPLE, 'cdk.json'), 'utf8')) as { app: string };
    expect(installed).toContain(/^npx (\S+)/.exec(cdk.app)![1]);
    expect(shBlock(readme, '### 5. Deploy')).toMatch(/npx cdk deploy/);
    expect(installed).toContain('aws-cdk');
    // TypeScript at the version the bridge compiles with, not whatever `typescript` is today.
    const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(args).toContain(`typescript@${root.devDependencies.typescript}`);
  });

  describe('step 4, run as written from a project next to the repository', () => {
    let dir: string;
    let project: string;
    const hasJq = (() => {
      try {
        execFileSync('jq', ['--version'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'gym-bridge-consumer-'));
      await symlink(ROOT, join(dir, 'gym-bridge'));
      project = join(dir, 'my-project');
      await mkdir(project);
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it.runIf(hasJq)(
      'writes the fixtures it names: the samples, and the events the subscriptions route',
      async () => {
        // Act
        await run('bash', ['-e', '-c', shBlock(readme, '### 4. Test with sample events')], {
          cwd: project,
          timeout: 240_000,
        });
        // Assess
        const read = async (name: string) =>
          (await readFile(join(project, 'test/fixtures', name), 'utf8'))
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map(
              (l) => JSON.parse(l) as { 'detail-type': string; detail: { status?: string; reason?: string } },
            );
        const statusChanges = await read('member-status-changed.jsonl');
        const failures = await read('payment-failed.jsonl');
        const paymentIssue = await read('payment-issue.jsonl');
        const dishonoured = await read('dishonoured.jsonl');
        expect(statusChanges).toHaveLength(40);
        expect(failures).toHaveLength(20);
        expect(paymentIssue.length).toBeGreaterThan(0);
        expect(paymentIssue).toEqual(statusChanges.filter((e) => e.detail.status === 'PaymentIssue'));
        expect(dishonoured.length).toBeGreaterThan(0);
        expect(dishonoured).toEqual(failures.filter((e) => e.detail.reason === 'dishonoured'));
      },
      300_000,
    );
  });
});
