/**
 * The stack's two bridge functions, dispatch and poll: their runtime, memory, log groups and
 * environment, and what each may do (least privilege), the scheduler's invoke of the dispatcher
 * included.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV, METRICS_NAMESPACE } from '../../lambdas/common/deployment-contract';
import { POLL_FUNCTION_MEMORY_MB } from '../../lambdas/engine/club-poll/heavy-polls';
import { devTemplate, envOf, getAtt, prodTemplate } from './stack-fixture';
import {
  actionsOf,
  bridgeFunction,
  onlyResource,
  outsideWebhooks,
  type Resource,
  roleIdOf,
  statementsOfRole,
} from './support';

let prod: Template;
let dev: Template;

beforeAll(() => {
  prod = prodTemplate();
  dev = devTemplate();
});

describe('functions', () => {
  it('run Node.js 22 on arm64 with source maps and the Powertools settings', () => {
    for (const role of ['dispatch', 'poll'] as const) {
      const { resource } = bridgeFunction(prod, role);
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      expect(envOf(resource)).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        [ENV.serviceName]: 'gym-bridge-prod',
        [ENV.metricsNamespace]: METRICS_NAMESPACE,
      });
    }
  });

  it('give the poll function the memory its heavy-poll bound is derived from', () => {
    // lambdas/engine/club-poll/heavy-polls.ts: the bound keeps a quarter of this memory free.
    for (const template of [prod, dev])
      expect(bridgeFunction(template, 'poll').resource.Properties.MemorySize).toBe(POLL_FUNCTION_MEMORY_MB);
  });

  it('log to their own log group with a retention', () => {
    for (const role of ['dispatch', 'poll'] as const) {
      const { resource } = bridgeFunction(prod, role);
      const logGroupId = (resource.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const logGroup = prod.toJSON().Resources[logGroupId] as Resource;
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('dispatch gets the table, the queue URL and the quota reserve', () => {
    const table = onlyResource(prod, 'AWS::DynamoDB::Table', outsideWebhooks).id;
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.RedrivePolicy !== undefined && p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    ).id;
    const env = envOf(bridgeFunction(prod, 'dispatch').resource);
    expect(env).toMatchObject({
      [ENV.stateTable]: { Ref: table },
      [ENV.pollQueueUrl]: { Ref: queue },
      [ENV.quotaReserve]: '0.1',
    });
    expect(env).not.toHaveProperty(ENV.eventBus);
    expect(env).not.toHaveProperty(ENV.clubSecretPrefix);
  });

  it('poll gets the table, bus, event source, secret prefix, PII default and a deadline below its timeout', () => {
    const { resource } = bridgeFunction(prod, 'poll');
    const env = envOf(resource);
    expect(env).toMatchObject({
      [ENV.stateTable]: { Ref: onlyResource(prod, 'AWS::DynamoDB::Table', outsideWebhooks).id },
      [ENV.eventBus]: { Ref: onlyResource(prod, 'AWS::Events::EventBus').id },
      [ENV.eventSource]: 'gym-bridge',
      [ENV.clubSecretPrefix]: 'gym-bridge/prod/clubs/',
      [ENV.piiPolicyDefault]: 'minimal',
    });
    const deadline = Number(env[ENV.pollDeadlineMs]);
    const timeoutMs = Number(resource.Properties.Timeout) * 1000;
    expect(deadline).toBeGreaterThan(0);
    expect(deadline).toBeLessThanOrEqual(timeoutMs - 10_000);
  });
});

describe('least privilege', () => {
  it('no statement of any bridge policy has a bare "*" resource', () => {
    for (const policy of Object.values(prod.findResources('AWS::IAM::Policy')) as Resource[]) {
      const statements = (policy.Properties.PolicyDocument as { Statement: { Resource: unknown }[] })
        .Statement;
      for (const statement of statements) {
        const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
        expect(resources).not.toContain('*');
      }
    }
  });

  it('dispatch reads the table and sends to the poll queue, nothing more', () => {
    const statements = statementsOfRole(prod, roleIdOf(bridgeFunction(prod, 'dispatch').resource));
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'dynamodb:GetItem', 'sqs:SendMessage']),
    );
    for (const forbidden of [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'events:PutEvents',
    ]) {
      expect(actions).not.toContain(forbidden);
    }
    expect(actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
  });

  it('poll writes the table, puts events on the bus only, and reads secrets under the club prefix only', () => {
    const statements = statementsOfRole(prod, roleIdOf(bridgeFunction(prod, 'poll').resource));
    expect(actionsOf(statements)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:DeleteMessage']),
    );
    const bus = onlyResource(prod, 'AWS::Events::EventBus').id;
    expect(statements).toContainEqual(
      expect.objectContaining({ Action: 'events:PutEvents', Resource: getAtt(bus) }),
    );
    const secrets = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('secretsmanager:')));
    expect(secrets).toHaveLength(1);
    expect(secrets[0]!.Action).toBe('secretsmanager:GetSecretValue');
    const arn = JSON.stringify(secrets[0]!.Resource);
    expect(arn).toContain(':secret:gym-bridge/prod/clubs/*');
  });

  it('the scheduler may invoke the dispatcher and nothing else', () => {
    const schedule = onlyResource(prod, 'AWS::Scheduler::Schedule').resource;
    const roleId = (schedule.Properties.Target as { RoleArn: { 'Fn::GetAtt': [string, string] } }).RoleArn[
      'Fn::GetAtt'
    ][0];
    const statements = statementsOfRole(prod, roleId);
    expect(actionsOf(statements)).toEqual(['lambda:InvokeFunction']);
    expect(JSON.stringify(statements)).toContain(bridgeFunction(prod, 'dispatch').id);
  });
});
