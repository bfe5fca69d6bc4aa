/**
 * The example is a consumer project outside the engine: its handler compiles with its own
 * tsconfig (only the example included, `@gym-bridge/events` mapped by `paths`) against the events
 * module alone. The program tsc builds is listed and checked: none of the engine, state store,
 * sandbox, API client, bridge handlers or AWS SDK is in it.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EXAMPLE = 'examples/payment-issue-notifier';
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Files of the bridge a consumer's program must never contain (prefixes, relative to the repo). */
const FORBIDDEN = [
  'lambdas/engine/',
  'lambdas/state/',
  'sandbox/',
  'lambdas/gym-api/client',
  'lambdas/handlers/',
  'node_modules/@aws-sdk/',
];

/** Type-checks a tsconfig (no emit) and returns the program's files relative to the repo. */
async function compile(tsconfig: string): Promise<{ ok: boolean; output: string; files: string[] }> {
  const result = await run(process.execPath, [TSC, '-p', tsconfig, '--noEmit', '--listFiles'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ ok: true, stdout }),
    (err: { stdout?: string }) => ({ ok: false, stdout: err.stdout ?? String(err) }),
  );
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  const files = lines
    .filter((line) => line.startsWith('/') || /^[A-Za-z]:[\\/]/.test(line))
    .map((file) => relative(ROOT, file).split('\\').join('/'));
  const output = lines.filter((line) => !files.includes(relative(ROOT, line).split('\\').join('/')));
  return { ok: result.ok, output: output.join('\n'), files };
}

describe('the consumer example compiles against the events module alone', () => {
  it('handler program: its own tsconfig, no engine, sandbox, state, API client, bridge handlers or AWS SDK', async () => {
    const { ok, output, files } = await compile(`${EXAMPLE}/tsconfig.json`);
    expect(output).toBe('');
    expect(ok).toBe(true);
    // The program is the example's source and the events module (resolved through `paths`).
    expect(files).toContain(`${EXAMPLE}/src/handler.ts`);
    expect(files).toContain('event-tooling/consumer.ts');
    expect(files.some((f) => f.startsWith('node_modules/@aws-lambda-powertools/parser/'))).toBe(true);
    expect(files.filter((f) => FORBIDDEN.some((prefix) => f.startsWith(prefix)))).toEqual([]);
    // Nothing of the bridge outside the events module and the two zod-only files it embeds.
    const embedded = ['lambdas/common/source-names.ts', 'lambdas/gym-api/schemas.ts'];
    const outside = files.filter(
      (f) =>
        !f.startsWith('node_modules/') &&
        !f.startsWith(`${EXAMPLE}/`) &&
        !f.startsWith('lambdas/events/') &&
        !f.startsWith('event-tooling/') &&
        !embedded.includes(f),
    );
    expect(outside).toEqual([]);
  }, 60_000);

  it('infrastructure program: its own tsconfig, the CDK, the subscription construct and the events module; no engine, sandbox or AWS SDK', async () => {
    const { ok, output, files } = await compile(`${EXAMPLE}/infra/tsconfig.json`);
    expect(output).toBe('');
    expect(ok).toBe(true);
    expect(files).toContain(`${EXAMPLE}/infra/app.ts`);
    expect(files).toContain(`${EXAMPLE}/infra/payment-issue-notifier-stack.ts`);
    expect(files.some((f) => f.startsWith('node_modules/aws-cdk-lib/'))).toBe(true);
    expect(files).toContain('lib/constructs/bridge-subscription.ts');
    // The construct takes the bridge's bus by its shape (BridgeBusLike), so nothing of the bridge's
    // stack or runtime comes with it: only what the package @gym-bridge/cdk holds.
    expect(files.filter((f) => FORBIDDEN.some((prefix) => f.startsWith(prefix)))).toEqual([]);
    const cdkPackage = [
      'lib/consumer-cdk.ts',
      'lib/constructs/bridge-subscription.ts',
      'lib/constructs/bridge-lookup.ts',
    ];
    expect(files.filter((f) => f.startsWith('lib/') && !cdkPackage.includes(f))).toEqual([]);
  }, 120_000);
});
