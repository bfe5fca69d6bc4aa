/**
 * The example's CDK stack, synthesized offline: the rules on the imported bus with their event
 * patterns, the Lambda target (Node.js 22, arm64, bundled locally by esbuild) and the dead-letter
 * paths. The bundle itself is checked too: the events module and Powertools Parser are in it, the
 * engine and the AWS SDK are not.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentIssueNotifierStack } from '../../../examples/payment-issue-notifier/infra/payment-issue-notifier-stack';

const run = promisify(execFile);
const BUS_ARN = 'arn:aws:events:eu-west-1:123456789012:event-bus/gym-bridge';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

function synth(eventSource?: string) {
  const outdir = mkdtempSync(join(tmpdir(), 'payment-issue-notifier-'));
  outdirs.push(outdir);
  const app = new App({ outdir });
  const stack = new PaymentIssueNotifierStack(app, 'PaymentIssueNotifier', {
    eventBusArn: BUS_ARN,
    ...(eventSource ? { eventSource } : {}),
    env: { account: '210987654321', region: 'eu-west-1' },
  });
  return { app, stack, template: Template.fromStack(stack) };
}

describe('payment-issue-notifier stack', () => {
  let synthesized: ReturnType<typeof synth>;
  beforeAll(() => {
    synthesized = synth();
  }, 60_000);

  it('subscribes to the imported bus: PaymentIssue status changes and dishonoured payments', () => {
    const { template } = synthesized;
    template.resourceCountIs('AWS::Events::Rule', 2);
    template.resourceCountIs('AWS::Events::EventBus', 0); // imported, not created
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'gym-bridge',
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': ['Member Status Changed'],
        detail: { eventVersion: [1], status: ['PaymentIssue'] },
      },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'gym-bridge',
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': ['Payment Failed'],
        detail: { eventVersion: [1], reason: ['dishonoured'] },
      },
    });
  });

  it('targets the notifier function, with retries and a dead-letter queue', () => {
    const { template, stack } = synthesized;
    const functionId = stack.getLogicalId(stack.function.node.defaultChild as never);
    const queueId = stack.getLogicalId(stack.deadLetterQueue.node.defaultChild as never);
    const rules = template.findResources('AWS::Events::Rule');
    for (const rule of Object.values(rules)) {
      expect(rule.Properties.Targets).toEqual([
        {
          Arn: { 'Fn::GetAtt': [functionId, 'Arn'] },
          Id: expect.any(String),
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
          RetryPolicy: { MaximumEventAgeInSeconds: 86400, MaximumRetryAttempts: 185 },
        },
      ]);
    }
    // EventBridge may invoke the function (one permission per rule).
    template.resourceCountIs('AWS::Lambda::Permission', 2);
    template.allResourcesProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
    });
    // The function's own failures (a refused event, after two retries) go to the same queue.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
  });

  it('the function: Node.js 22 on arm64, ESM handler with source maps', () => {
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
    });
  });

  it('the bundle is the handler, the events module, Powertools (Parser, Logger) and zod: no engine, no AWS SDK', () => {
    const { app, template } = synthesized;
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
    const asset = join(
      app.synth().directory,
      `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, '')}`,
    );
    // The source map lists every input file esbuild put in the bundle.
    const sources = (JSON.parse(readFileSync(join(asset, 'index.mjs.map'), 'utf8')) as { sources: string[] })
      .sources;
    const ours = sources
      .filter((s) => !s.includes('node_modules/'))
      .map((s) => s.replace(/^.*?(examples|lambdas|event-tooling)\//, '$1/'));
    expect(ours.sort()).toEqual(
      [
        'examples/payment-issue-notifier/src/handler.ts',
        'examples/payment-issue-notifier/src/notifier.ts',
        'examples/payment-issue-notifier/src/payment-alerts.ts',
        'lambdas/common/source-names.ts',
        'event-tooling/consumer-named-schemas.ts',
        'event-tooling/consumer-schemas.ts',
        'lambdas/events/catalog.ts',
        'lambdas/events/detail-envelope.ts',
        'lambdas/events/event-data.ts',
        'lambdas/events/event-descriptions.ts',
        'lambdas/events/event-details.ts',
        'lambdas/events/event-id-pattern.ts',
        'lambdas/events/event-names.ts',
        'lambdas/events/eventbridge-envelope.ts',
        'lambdas/events/lifecycle-details.ts',
        'lambdas/gym-api/schemas.ts',
      ].sort(),
    );
    const packages = new Set(
      sources
        .filter((s) => s.includes('node_modules/'))
        .map((s) => s.split('node_modules/').pop()!.split('/'))
        .map(([scope, name]) => (scope?.startsWith('@') ? `${scope}/${name}` : scope)),
    );
    expect(packages).toContain('@aws-lambda-powertools/parser');
    expect(packages).toContain('@aws-lambda-powertools/logger');
    expect(packages).toContain('zod');
    // Powertools and what it depends on (its own small @aws/lambda-invoke-store), nothing else.
    const allowed = (name: string | undefined) =>
      name === 'zod' || name === '@aws/lambda-invoke-store' || !!name?.startsWith('@aws-lambda-powertools/');
    expect([...packages].filter((name) => !allowed(name))).toEqual([]);
    // What the ES module imports at run time: Node.js built-ins only (Powertools' CloudWatch Logs
    // schema takes node:zlib); no AWS SDK, not even the runtime's.
    const code = readFileSync(join(asset, 'index.mjs'), 'utf8');
    const imported = [...code.matchAll(/\bimport\s*[\w{}\s,*$]*?\bfrom\s*["']([^"']+)["']/g)].map(
      (m) => m[1],
    );
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((specifier) => !specifier?.startsWith('node:'))).toEqual([]);
    expect(code).not.toContain('@aws-sdk');
  });

  it('takes the deployment’s event source', () => {
    const { template } = synth('gym-bridge-staging');
    template.allResourcesProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ source: ['gym-bridge-staging'] }),
    });
  });

  it('cdk.json runs the app as the CDK CLI does: the bus ARN is required, then the stack synthesizes', async () => {
    const example = fileURLToPath(new URL('../../../examples/payment-issue-notifier/', import.meta.url));
    const { app: command } = JSON.parse(readFileSync(join(example, 'cdk.json'), 'utf8')) as { app: string };
    const runApp = (env: Record<string, string>) =>
      run('sh', ['-c', command], { cwd: example, env: { ...process.env, ...env } }).then(
        () => ({ ok: true, stderr: '' }),
        (err: { stderr?: string }) => ({ ok: false, stderr: String(err.stderr) }),
      );
    const outdir = mkdtempSync(join(tmpdir(), 'payment-issue-notifier-app-'));
    outdirs.push(outdir);

    const missing = await runApp({ CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: '{}' });
    expect(missing.ok).toBe(false);
    expect(missing.stderr).toContain(
      'cdk deploy -c eventBusArn=arn:aws:events:<region>:<account>:event-bus/<name>',
    );

    const synthesized = await runApp({
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ eventBusArn: BUS_ARN, eventSource: 'gym-bridge-staging' }),
    });
    expect(synthesized).toEqual({ ok: true, stderr: '' });
    const template = JSON.parse(readFileSync(join(outdir, 'PaymentIssueNotifier.template.json'), 'utf8'));
    const patterns = Object.values(
      template.Resources as Record<string, { Type: string; Properties: { EventPattern?: unknown } }>,
    )
      .filter((r) => r.Type === 'AWS::Events::Rule')
      .map((r) => r.Properties.EventPattern);
    expect(patterns).toHaveLength(2);
    for (const pattern of patterns) expect(pattern).toMatchObject({ source: ['gym-bridge-staging'] });
  }, 120_000);
});
