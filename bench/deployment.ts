/**
 * The deployed settings the cost figures depend on, read from the CDK app itself (lib/): the
 * stack is synthesized in memory with bundling skipped, and the template gives each Lambda's memory,
 * architecture and timeout, the dispatch schedule's rate, the poll queue's event source batch
 * size and maximum concurrency, and the state table's capacity mode with its auto scaling
 * (deployment-table.ts). Nothing here is re-typed from lib/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { HANDLER_ENTRIES } from '../lambdas/common/deployment-contract';
import { createGymBridgeApp } from '../lib/gym-bridge-app';
import { readTableCapacity, type TableCapacitySettings, webhookTableIds } from './deployment-table';

export type { ProvisionedDimension, TableCapacitySettings } from './deployment-table';

export interface FunctionSettings {
  readonly memoryMb: number;
  readonly architecture: string;
  readonly timeoutSec: number;
}

/** The poll function: its settings and the environment the template gives it. */
export interface PollFunctionSettings extends FunctionSettings {
  /** Its environment variables: values, or `{ Ref: logicalId }` (absent in reports from before). */
  readonly environment?: Readonly<Record<string, unknown>>;
}

export interface DeploymentSettings {
  readonly stage: string;
  readonly dispatch: FunctionSettings;
  readonly poll: PollFunctionSettings;
  /** Minutes between dispatcher runs (EventBridge Scheduler rate). */
  readonly scheduleRateMinutes: number;
  /** Dispatch shards: one schedule each (absent in reports from before the shards). */
  readonly dispatchShards?: number;
  /** Clubs an invocation polls: the event source's batch × the clubs a message carries. */
  readonly pollBatchSize: number;
  /** Clubs one poll message carries (POLL_CLUBS_PER_MESSAGE; absent in reports from before: 1). */
  readonly pollClubsPerMessage?: number;
  readonly pollMaxConcurrency: number;
  /** Poll deadline the code is given (POLL_DEADLINE_MS), ms. */
  readonly pollDeadlineMs?: number;
  /**
   * The state table: on demand, or provisioned with its auto scaling (absent in reports from before
   * the setting: on demand).
   */
  readonly tableCapacity?: TableCapacitySettings;
  /** The webhook delivery machinery (absent in reports from before it). */
  readonly webhooks?: WebhookDeploymentSettings;
  /** True when lambdas/handlers/*.ts existed; false: stand-in entries were used to synthesize. */
  readonly handlersPresent: boolean;
  /** What the stack bills whatever the club count (fleet-wide fixed costs). */
  readonly fixed: {
    readonly alarms: number;
    readonly dashboards: number;
    /** Customer-managed KMS keys ($1 a month each). */
    readonly kmsKeys: number;
    /** Point-in-time recovery on the state table. */
    readonly tablePitr: boolean;
    /** Days the event archive keeps events (0 = forever). */
    readonly archiveRetentionDays: number;
    /** Days the poll function's logs are kept. */
    readonly logRetentionDays: number;
  };
}

/** A webhook function, its event source mapping and its environment as the template gives them. */
export interface WebhookFunctionSettings extends FunctionSettings {
  readonly batchSize: number;
  /** MaximumBatchingWindowInSeconds of its event source (0: none). */
  readonly batchingWindowSec: number;
  readonly maxConcurrency: number;
  /** The queue's visibility timeout, s. */
  readonly visibilitySec: number;
  /** Its environment variables: values, or `{ Ref: logicalId }`. */
  readonly environment: Readonly<Record<string, unknown>>;
}

export interface WebhookDeploymentSettings {
  readonly fanOut: WebhookFunctionSettings;
  readonly deliver: WebhookFunctionSettings;
  /** The webhook alarms (part of `fixed.alarms`). */
  readonly alarms: number;
  readonly logRetentionDays: number;
}

export class DeploymentSettingsError extends Error {
  override readonly name = 'DeploymentSettingsError';
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Resource = { Properties: Record<string, unknown> };

function oneEntry(
  template: Template,
  type: string,
  match: (r: Resource, id: string) => boolean,
  what: string,
): [string, Resource] {
  const found = Object.entries(template.findResources(type) as Record<string, Resource>).filter(([id, r]) =>
    match(r, id),
  );
  if (found.length !== 1)
    throw new DeploymentSettingsError(`expected one ${what} in the template, found ${found.length}`);
  return found[0]!;
}

function one(
  template: Template,
  type: string,
  match: (r: Resource, id: string) => boolean,
  what: string,
): Resource {
  return oneEntry(template, type, match, what)[1];
}

function functionSettings(r: Resource): FunctionSettings {
  const p = r.Properties;
  return {
    memoryMb: Number(p.MemorySize ?? 128),
    architecture: ((p.Architectures as string[] | undefined) ?? ['x86_64'])[0] ?? 'x86_64',
    timeoutSec: Number(p.Timeout ?? 3),
  };
}

/** The dispatch schedules (one per shard): their one rate and how many. */
function dispatchSchedules(template: Template): { scheduleRateMinutes: number; dispatchShards: number } {
  const schedules = Object.values(
    template.findResources('AWS::Scheduler::Schedule') as Record<string, Resource>,
  );
  const expressions = new Set(schedules.map((r) => String(r.Properties.ScheduleExpression ?? '')));
  if (expressions.size !== 1)
    throw new DeploymentSettingsError(
      `expected the dispatch schedules to share one rate, found ${[...expressions].join(', ')}`,
    );
  const expression = [...expressions][0] ?? '';
  const rate = /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(expression);
  if (!rate) throw new DeploymentSettingsError(`unexpected schedule expression '${expression}'`);
  const scheduleRateMinutes = Number(rate[1]) * (rate[2]!.startsWith('hour') ? 60 : 1);
  return { scheduleRateMinutes, dispatchShards: schedules.length };
}

/** The one SQS event source mapping of the function with logical id `functionId`. */
function mappingOf(template: Template, functionId: string): Resource {
  return one(
    template,
    'AWS::Lambda::EventSourceMapping',
    (r) => (r.Properties.FunctionName as { Ref?: string } | undefined)?.Ref === functionId,
    `event source mapping of ${functionId}`,
  );
}

/** The webhook functions (their descriptions begin with 'gym-bridge webhooks'), undefined without them. */
function readWebhooks(template: Template): WebhookDeploymentSettings | undefined {
  const all = Object.entries(template.toJSON().Resources as Record<string, Resource & { Type: string }>);
  const fn = (word: string) =>
    all.find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' &&
        String(r.Properties.Description ?? '').startsWith(`gym-bridge webhooks: ${word}`),
    );
  const fanOut = fn('matches');
  const deliver = fn('signs');
  if (!fanOut || !deliver) return undefined;
  const settings = ([id, r]: [string, Resource]): WebhookFunctionSettings => {
    const mapping = mappingOf(template, id);
    const queueId = String(
      ((mapping.Properties.EventSourceArn as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt'] ?? [])[0] ?? '',
    );
    return {
      ...functionSettings(r),
      batchSize: Number(mapping.Properties.BatchSize ?? 10),
      batchingWindowSec: Number(mapping.Properties.MaximumBatchingWindowInSeconds ?? 0),
      maxConcurrency: Number(
        (mapping.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)
          ?.MaximumConcurrency ?? 1000,
      ),
      visibilitySec: Number(
        (all.find(([qid]) => qid === queueId)?.[1].Properties.VisibilityTimeout as number | undefined) ?? 30,
      ),
      environment: (r.Properties.Environment as { Variables?: Record<string, unknown> }).Variables ?? {},
    };
  };
  const retention = (id: string) =>
    all
      .filter(
        ([lid, r]) =>
          r.Type === 'AWS::Logs::LogGroup' && lid.startsWith(id.replace(/Function[0-9A-F]{8}$/, '')),
      )
      .map(([, r]) => Number(r.Properties.RetentionInDays ?? 0));
  return {
    fanOut: settings(fanOut),
    deliver: settings(deliver),
    alarms: all.filter(([id, r]) => r.Type === 'AWS::CloudWatch::Alarm' && id.startsWith('WebhookMonitoring'))
      .length,
    logRetentionDays: Math.max(0, ...retention(fanOut[0]), ...retention(deliver[0])),
  };
}

/** The settings of `stage`, with extra context values (e.g. `{ clubs: 50000 }`). */
export function readDeploymentSettings(
  stage = 'prod',
  context: Record<string, unknown> = {},
): DeploymentSettings {
  const handlersPresent =
    existsSync(join(ROOT, HANDLER_ENTRIES.dispatch)) && existsSync(join(ROOT, HANDLER_ENTRIES.poll));
  // Bundling is skipped, so any existing file can stand in for a handler that is not written yet.
  const standIn = 'lambdas/engine/club-poll/poll-club.ts';
  const { stack } = createGymBridgeApp({
    context: { ...context, stage, 'aws:cdk:bundling-stacks': [] },
    ...(handlersPresent ? {} : { handlerEntries: { dispatch: standIn, poll: standIn } }),
  });
  const template = Template.fromStack(stack);
  const isFn = (word: string) => (r: Resource) => String(r.Properties.Description ?? '').includes(word);
  const dispatch = one(template, 'AWS::Lambda::Function', isFn('dispatch'), 'dispatch function');
  const [pollId, poll] = oneEntry(
    template,
    'AWS::Lambda::Function',
    isFn('gym-bridge poll'),
    'poll function',
  );
  const { scheduleRateMinutes, dispatchShards } = dispatchSchedules(template);
  const mapping = mappingOf(template, pollId);
  const env =
    (poll.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const deadline = Number(env.POLL_DEADLINE_MS);
  const dispatchEnv =
    (dispatch.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const clubsPerMessage = Number(dispatchEnv.POLL_CLUBS_PER_MESSAGE ?? 1);
  const count = (type: string) => Object.keys(template.findResources(type)).length;
  const webhookTables = webhookTableIds(template);
  const table = one(template, 'AWS::DynamoDB::Table', (_, id) => !webhookTables.has(id), 'state table');
  const pitr = (
    table.Properties.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled?: boolean } | undefined
  )?.PointInTimeRecoveryEnabled;
  const archive = one(template, 'AWS::Events::Archive', () => true, 'event archive');
  const retentions = Object.values(
    template.findResources('AWS::Logs::LogGroup') as Record<string, Resource>,
  ).map((r) => Number(r.Properties.RetentionInDays ?? 0));
  return {
    stage,
    dispatch: functionSettings(dispatch),
    poll: { ...functionSettings(poll), environment: env },
    scheduleRateMinutes,
    dispatchShards,
    pollBatchSize: Number(mapping.Properties.BatchSize ?? 10) * clubsPerMessage,
    pollClubsPerMessage: clubsPerMessage,
    pollMaxConcurrency: Number(
      (mapping.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ??
        0,
    ),
    ...(Number.isFinite(deadline) ? { pollDeadlineMs: deadline } : {}),
    tableCapacity: readTableCapacity(template),
    webhooks: readWebhooks(template),
    handlersPresent,
    fixed: {
      alarms: count('AWS::CloudWatch::Alarm'),
      dashboards: count('AWS::CloudWatch::Dashboard'),
      kmsKeys: count('AWS::KMS::Key'),
      tablePitr: pitr === true,
      archiveRetentionDays: Number(archive.Properties.RetentionDays ?? 0),
      logRetentionDays: Math.max(0, ...retentions),
    },
  };
}
