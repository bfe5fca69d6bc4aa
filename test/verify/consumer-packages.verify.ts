/**
 * `npm run verify:consumer` (not part of `npm test`: about 45 s of CPU, three minutes on two busy
 * cores). A team in another repository subscribes with types: `npm run build:events` builds
 * `@gym-bridge/events` and `@gym-bridge/cdk` (`schemas --package DIR --cdk-package DIR`, as a child
 * process), `npm pack` packs each, and a fresh project in a temporary folder, outside the
 * repository, installs the two tarballs offline (aws-cdk-lib, constructs and zod, their peers,
 * linked from this repository's node_modules: no registry). Its CDK app looks up the prod bus by
 * stage and subscribes to dishonoured payments with `BridgeSubscription`; tsc (NodeNext) compiles
 * it, planted typos (a detail-type, a field, a stage) do not compile, and plain Node synthesizes
 * the stack: its rule has exactly the typed pattern, on the prod bus.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliOk } from '../support/cli-process';

const run = promisify(execFile);
const ROOT = process.cwd();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const APP = `
import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { DETAIL_TYPES, EVENT_VERSION } from '@gym-bridge/events';
import { BridgeSubscription, bridgeBusOfStage, bridgeSchemaArn, toEventPatternJson } from '@gym-bridge/cdk';

const app = new App(); // into $CDK_OUTDIR, as the cdk CLI runs it
const stack = new Stack(app, 'Consumer');
const queue = new sqs.Queue(stack, 'Dishonoured');
const bus = bridgeBusOfStage(stack, 'GymBridge', { stage: 'prod' });
const rule = new BridgeSubscription(stack, 'DishonouredPayments', {
  eventBus: bus,
  detailType: DETAIL_TYPES.PaymentFailed,
  detail: { reason: ['dishonoured'], eventVersion: [EVENT_VERSION], amount: [{ numeric: ['>', 0] }] },
  targets: [new targets.SqsQueue(queue)],
});
new CfnOutput(stack, 'Pattern', { value: JSON.stringify(toEventPatternJson(rule.pattern)) });
new CfnOutput(stack, 'Schema', { value: bridgeSchemaArn(stack, { stage: 'prod', detailType: 'Payment Failed' }) });
app.synth();
`;

const TYPOS = `
import { Stack } from 'aws-cdk-lib';
import { BridgeSubscription, bridgeBusOfStage } from '@gym-bridge/cdk';
export function typos(stack: Stack) {
  const bus = bridgeBusOfStage(stack, 'B', { stage: 'prd' });
  new BridgeSubscription(stack, 'A', { eventBus: bus, detailType: 'Payment Faild' });
  new BridgeSubscription(stack, 'B2', { eventBus: bus, detailType: 'Payment Failed', detail: { reasn: ['dishonoured'] } });
}
`;

let work: string;
let project: string;
let tarballs: string[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'gym-bridge-consumer-cdk-'));
  const events = join(work, 'events');
  const cdk = join(work, 'cdk');
  await runCliOk(['schemas', '--package', events, '--cdk-package', cdk], {}, { timeoutMs: 240_000 });
  for (const dir of [events, cdk])
    await run(npm, ['pack', dir, '--pack-destination', work, '--silent'], { cwd: work, timeout: 120_000 });
  tarballs = (await readdir(work)).filter((f) => f.endsWith('.tgz')).sort();
  project = join(work, 'consumer');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: Object.fromEntries(
        tarballs.map((t) => [
          t.startsWith('gym-bridge-cdk') ? '@gym-bridge/cdk' : '@gym-bridge/events',
          `file:../${t}`,
        ]),
      ),
    }),
  );
  // Offline: the two tarballs only; their peers come from this repository, as a team's own
  // aws-cdk-lib, constructs and zod would.
  await run(
    npm,
    ['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', '--ignore-scripts', '--silent'],
    { cwd: project, timeout: 180_000 },
  );
  for (const peer of ['aws-cdk-lib', 'constructs', 'zod'])
    await symlink(join(ROOT, 'node_modules', peer), join(project, 'node_modules', peer), 'dir');
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: [],
        outDir: 'dist',
      },
      include: ['src'],
    }),
  );
  await writeFile(join(project, 'src', 'app.ts'), APP);
  await writeFile(join(project, 'src', 'typos.ts'), TYPOS);
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('@gym-bridge/cdk in a project outside the repository', () => {
  it('packs as two versioned tarballs with the peers declared', async () => {
    const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(tarballs).toEqual([`gym-bridge-cdk-${version}.tgz`, `gym-bridge-events-${version}.tgz`]);
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules', '@gym-bridge', 'cdk', 'package.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({
      name: '@gym-bridge/cdk',
      version,
      peerDependencies: {
        '@gym-bridge/events': version,
        'aws-cdk-lib': expect.any(String),
        constructs: expect.any(String),
      },
    });
    expect(manifest.dependencies).toBeUndefined();
  });

  it('compiles a typed subscription (planted typos do not), and plain Node synthesizes it', async () => {
    // Act: one tsc run compiles both files (it emits despite the typos' errors), then the app runs
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await run(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], {
      cwd: project,
      timeout: 300_000,
    }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    // Assess: the three typos, and nothing else, are errors
    const errors = compiled.stdout.trim().split('\n');
    expect(
      errors.filter((line) => !line.startsWith('src/typos.ts(')),
      compiled.stdout,
    ).toEqual([]);
    expect(compiled.stdout).toContain('"prd"');
    expect(compiled.stdout).toContain('"Payment Faild"');
    expect(compiled.stdout).toContain('reasn');
    expect(errors).toHaveLength(3);

    const out = join(work, 'cdk.out');
    await run(process.execPath, [join(project, 'dist', 'app.js')], {
      cwd: project,
      env: { ...process.env, CDK_OUTDIR: out },
      timeout: 120_000,
    });
    const template = JSON.parse(await readFile(join(out, 'Consumer.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
      Outputs: Record<string, { Value: unknown }>;
    };
    const [rule] = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Events::Rule');
    expect(rule?.Properties.EventPattern).toEqual({
      source: ['gym-bridge'],
      'detail-type': ['Payment Failed'],
      detail: { reason: ['dishonoured'], eventVersion: [1], amount: [{ numeric: ['>', 0] }] },
    });
    // The prod bus of the stack's own account and region (an ARN with an account or region given)
    expect(rule?.Properties.EventBusName).toBe('gym-bridge-prod');
    expect(JSON.stringify(template.Outputs.Schema?.Value)).toContain(
      ':schema/GymBridge-prod-events/gym-bridge@PaymentFailed',
    );
  }, 420_000);
});
