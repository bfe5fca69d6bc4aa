/**
 * Shared helpers of the CDK tests: the app built like bin/gym-bridge.ts (fixture handlers unless a
 * test wants the real ones) and small template lookups.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { createGymBridgeApp } from '../../lib/gym-bridge-app';
import type { GymBridgeStack } from '../../lib/gym-bridge-stack';

/** A handler that bundles in milliseconds, so construct tests do not depend on the runtime code. */
export const FIXTURE_ENTRIES = {
  dispatch: 'test/cdk/fixtures/handler.ts',
  poll: 'test/cdk/fixtures/handler.ts',
  webhookFanOut: 'test/cdk/fixtures/handler.ts',
  webhookDeliver: 'test/cdk/fixtures/handler.ts',
} as const;

export interface ValidationReport {
  pluginReports: {
    pluginName: string;
    conclusion: string;
    violations: unknown[];
    suppressedViolations: { ruleName: string; acknowledgedId: string; reason: string }[];
  }[];
}

/**
 * Builds the app as bin/gym-bridge.ts does (cdk-nag included) and synthesizes it once into a
 * temporary directory: throws the cdk-nag report if a finding is not acknowledged.
 */
export function synthStack(context: Record<string, unknown>): {
  stack: GymBridgeStack;
  template: Template;
  validationReport: ValidationReport;
} {
  const outdir = mkdtempSync(join(tmpdir(), 'gym-bridge-cdk-test-'));
  try {
    const { app, stack } = createGymBridgeApp({ context, outdir, handlerEntries: FIXTURE_ENTRIES });
    const assembly = app.synth();
    const template = Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template);
    const validationReport = JSON.parse(
      readFileSync(join(outdir, 'validation-report.json'), 'utf8'),
    ) as ValidationReport;
    return { stack, template, validationReport };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * The stack of `synthStack(context)` as constructs, not synthesized (no template, no cdk-nag run):
 * for a test that reads what a construct keeps (its alarms) beside `synthTemplate(context)`'s
 * template of the same app, instead of paying for a synthesis of its own.
 */
export function buildStack(context: Record<string, unknown>): GymBridgeStack {
  const outdir = mkdtempSync(join(tmpdir(), 'gym-bridge-cdk-test-'));
  try {
    return createGymBridgeApp({ context, outdir, handlerEntries: FIXTURE_ENTRIES }).stack;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Where a test run keeps the templates its CDK files share (test/global-setup.ts names it). */
const TEMPLATE_CACHE = process.env.GYM_BRIDGE_TEST_TEMPLATES;
/** How long a file waits for another worker that is synthesizing the same app, ms. */
const WAIT_FOR_OTHER_MS = 180_000;

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The template and cdk-nag report of `synthStack(context)`, synthesized once a test run: several
 * CDK files assert on the same app (prod with an alarm address, dev, ...), each synthesis is 5-10 s
 * of CPU, and the files run in worker processes of their own. The first file to ask writes the
 * result into the run's cache (removed when the run ends); a file that asks while another
 * synthesizes the same app waits for it. Outside vitest's global setup it synthesizes every time.
 */
export function synthTemplate(context: Record<string, unknown>): {
  template: Template;
  validationReport: ValidationReport;
} {
  if (!TEMPLATE_CACHE) return synthStack(context);
  const key = createHash('sha256')
    .update(JSON.stringify(Object.entries(context).sort()))
    .digest('hex');
  const file = join(TEMPLATE_CACHE, `${key.slice(0, 16)}.json`);
  const lock = `${file}.lock`;
  mkdirSync(TEMPLATE_CACHE, { recursive: true });
  const deadline = Date.now() + WAIT_FOR_OTHER_MS;
  while (!existsSync(file)) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      if (Date.now() > deadline) return synthStack(context); // the other worker died: do it here
      pause(200);
      continue;
    }
    try {
      const { template, validationReport } = synthStack(context);
      writeFileSync(
        `${file}.${process.pid}`,
        JSON.stringify({ template: template.toJSON(), validationReport }),
      );
      renameSync(`${file}.${process.pid}`, file);
      return { template, validationReport };
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
  const cached = JSON.parse(readFileSync(file, 'utf8')) as {
    template: object;
    validationReport: ValidationReport;
  };
  return { template: Template.fromJSON(cached.template), validationReport: cached.validationReport };
}

export type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

/** The one resource of a type whose properties match `predicate`; fails loudly on none or several. */
export function onlyResource(
  template: Template,
  type: string,
  predicate: (properties: Record<string, unknown>, id: string) => boolean = () => true,
): { id: string; resource: Resource } {
  const found = Object.entries(template.findResources(type) as Record<string, Resource>).filter(([id, r]) =>
    predicate(r.Properties ?? {}, id),
  );
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  const [id, resource] = found[0]!;
  return { id, resource };
}

/**
 * Not part of the webhook delivery (lib/constructs/webhooks.ts, construct id `Webhooks`), which has a
 * table, queues and a rule of its own: for the bridge's state table, poll queue and example rules.
 */
export const outsideWebhooks = (_properties: Record<string, unknown>, id: string): boolean =>
  !id.startsWith('Webhooks');

/** The Lambda function whose description starts with `gym-bridge <role>:`. */
export function bridgeFunction(template: Template, role: 'dispatch' | 'poll') {
  return onlyResource(template, 'AWS::Lambda::Function', (p) =>
    String(p.Description).startsWith(`gym-bridge ${role}:`),
  );
}

export interface PolicyStatementJson {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Sid?: string;
}

/** Statements of the policies attached to a role (by the role's logical id). */
export function statementsOfRole(template: Template, roleId: string): PolicyStatementJson[] {
  const policies = Object.values(
    template.findResources('AWS::IAM::Policy') as Record<string, Resource>,
  ).filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]));
  return policies.flatMap(
    (policy) => (policy.Properties.PolicyDocument as { Statement: PolicyStatementJson[] }).Statement,
  );
}

export const actionsOf = (statements: PolicyStatementJson[]): string[] =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

/** The role logical id of a function resource (`Role: { Fn::GetAtt: [id, 'Arn'] }`). */
export function roleIdOf(fn: Resource): string {
  const role = fn.Properties.Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
}
