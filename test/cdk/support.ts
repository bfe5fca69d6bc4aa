/**
 * Shared helpers of the CDK tests: the app built like bin/gym-bridge.ts (fixture handlers unless a
 * test wants the real ones) and small template lookups.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

export type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

/** The one resource of a type whose properties match `predicate`; fails loudly on none or several. */
export function onlyResource(
  template: Template,
  type: string,
  predicate: (properties: Record<string, unknown>) => boolean = () => true,
): { id: string; resource: Resource } {
  const found = Object.entries(template.findResources(type) as Record<string, Resource>).filter(([, r]) =>
    predicate(r.Properties ?? {}),
  );
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  const [id, resource] = found[0]!;
  return { id, resource };
}

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
