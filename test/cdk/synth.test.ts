/**
 * `npm run synth` (cdk synth through cdk.json, the real handlers, cdk-nag) works offline with no AWS
 * credentials: no AWS variables, no config files, instance metadata off, and every HTTP(S) request
 * sent to a dead proxy, so anything that needed the network would fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/bridge-function';

const outdir = mkdtempSync(join(tmpdir(), 'gym-bridge-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function offlineEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(AWS_|CDK_|VITEST)/.test(key)),
  ) as NodeJS.ProcessEnv;
  const nowhere = join(outdir, 'missing');
  return {
    ...env,
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    AWS_CONFIG_FILE: nowhere,
    AWS_SHARED_CREDENTIALS_FILE: nowhere,
    AWS_EC2_METADATA_DISABLED: 'true',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    NO_PROXY: '',
    no_proxy: '',
  };
}

/**
 * The environment the template gives the function whose code is `assetHash`: its literal values as
 * they are, a placeholder for each reference (a table's name, a queue's URL), resolved by CloudFormation.
 */
function functionEnv(
  resources: Record<string, { Type: string; Properties: Record<string, unknown> }>,
  assetHash: string,
): NodeJS.ProcessEnv {
  const fn = Object.values(resources).find(
    (r) =>
      r.Type === 'AWS::Lambda::Function' &&
      JSON.stringify((r.Properties.Code as { S3Key?: unknown } | undefined)?.S3Key ?? '').includes(assetHash),
  );
  expect(fn, `a function whose code is asset ${assetHash}`).toBeDefined();
  const vars =
    (fn?.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const placeholder = (name: string) =>
    /URL$/i.test(name)
      ? 'https://sqs.us-east-1.amazonaws.com/123456789012/placeholder'
      : /ARN$/i.test(name)
        ? 'arn:aws:sns:us-east-1:123456789012:placeholder'
        : 'placeholder';
  return {
    AWS_REGION: 'us-east-1',
    ...Object.fromEntries(
      Object.entries(vars).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : placeholder(name),
      ]),
    ),
  };
}

describe('npm run synth', () => {
  it('produces the template and ESM bundles offline, without credentials', { timeout: 120_000 }, () => {
    const result = spawnSync('npm', ['run', '--silent', 'synth', '--', '--output', outdir], {
      cwd: PROJECT_ROOT,
      env: offlineEnv(),
      encoding: 'utf8',
      timeout: 110_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);

    const template = JSON.parse(readFileSync(join(outdir, 'GymBridge-dev.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const types = Object.values(template.Resources).map((r) => r.Type);
    for (const type of [
      'AWS::Scheduler::Schedule',
      'AWS::Lambda::EventSourceMapping',
      'AWS::DynamoDB::Table',
    ]) {
      expect(types).toContain(type);
    }

    // Each function's asset is an ES module bundle with a linked source map, the SDK left external.
    const assetDirs = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    const bundles = assetDirs
      .filter((dir) => readdirSync(join(outdir, dir)).includes('index.mjs'))
      .map((dir) => ({ dir, code: readFileSync(join(outdir, dir, 'index.mjs'), 'utf8') }));
    expect(bundles.length).toBeGreaterThanOrEqual(2);
    for (const { dir, code } of bundles) {
      expect(readdirSync(join(outdir, dir))).toContain('index.mjs.map');
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(code).toMatch(/export\s*\{[^}]*\bhandler\b/);
      expect(code).not.toContain('aws-cdk-lib');
    }
    expect(bundles.some(({ code }) => /from\s*"@aws-sdk\//.test(code))).toBe(true);

    // Each bundle loads as Lambda loads it (an ES module importing the runtime's SDK) and exports
    // `handler`, given only the environment the template gives its function: catches ESM/CommonJS interop mistakes that only show at load time.
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(outdir, 'node_modules'), 'dir');
    for (const { dir } of bundles) {
      const url = pathToFileURL(join(outdir, dir, 'index.mjs')).href;
      const load = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(url)}); console.log(typeof m.handler);`,
        ],
        {
          encoding: 'utf8',
          env: { ...offlineEnv(), ...functionEnv(template.Resources, dir.slice('asset.'.length)) },
          timeout: 30_000,
        },
      );
      expect(load.stdout.trim(), load.stderr).toBe('function');
    }
  });
});
