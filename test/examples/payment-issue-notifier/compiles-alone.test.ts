/**
 * The example is a consumer project outside the engine: its handler compiles with its own
 * tsconfig (only the example included, `@gym-bridge/events` mapped by `paths`) against the events
 * module alone. The program tsc builds is listed and checked: none of the engine, state store,
 * sandbox, API client, bridge handlers or AWS SDK is in it.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EXAMPLE = 'examples/payment-issue-notifier';

/** Files of the bridge a consumer's program must never contain (prefixes, relative to the repo). */
const FORBIDDEN = [
  'lambdas/engine/',
  'lambdas/state/',
  'sandbox/',
  'lambdas/gym-api/client',
  'lambdas/handlers/',
  'node_modules/@aws-sdk/',
];

/**
 * Source files parsed (and bound) once for both programs, as an editor's language service shares
 * them between projects: the two tsconfigs differ in `paths` only, so a file parses the same in
 * each. Each program is still built from its own tsconfig and checked whole by its own checker;
 * what is shared is the parse of the standard library, @types/node and zod they both read.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();
afterAll(() => parsed.clear());

const FORMAT_HOST: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => '\n',
};

/**
 * Type-checks a tsconfig as `tsc -p <tsconfig> --noEmit` does (the same compiler, in this process)
 * and returns its diagnostics and the program's files relative to the repo.
 */
function compile(tsconfig: string): { ok: boolean; output: string; files: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}${tsconfig}`,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.formatDiagnostics([d], FORMAT_HOST));
      },
    },
  );
  if (!config) throw new Error(`${tsconfig} could not be read`);
  const host = ts.createCompilerHost(config.options);
  const readSourceFile = host.getSourceFile;
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const { languageVersion: version, impliedNodeFormat } =
      typeof languageVersion === 'object'
        ? languageVersion
        : { languageVersion, impliedNodeFormat: undefined };
    const key = `${version}|${impliedNodeFormat}|${fileName}`;
    if (!parsed.has(key)) parsed.set(key, readSourceFile(fileName, languageVersion, onError, shouldCreate));
    return parsed.get(key);
  };
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    host,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const files = program.getSourceFiles().map((file) => relative(ROOT, file.fileName).split('\\').join('/'));
  return {
    ok: diagnostics.length === 0,
    output: ts.formatDiagnostics(diagnostics, FORMAT_HOST).trim(),
    files,
  };
}

describe('the consumer example compiles against the events module alone', () => {
  it('handler program: its own tsconfig, no engine, sandbox, state, API client, bridge handlers or AWS SDK', () => {
    const { ok, output, files } = compile(`${EXAMPLE}/tsconfig.json`);
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

  it('infrastructure program: its own tsconfig, the CDK, the subscription construct and the events module; no engine, sandbox or AWS SDK', () => {
    const { ok, output, files } = compile(`${EXAMPLE}/infra/tsconfig.json`);
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
