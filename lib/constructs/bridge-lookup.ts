/**
 * Where a gym-bridge deployment's bus and schemas are, by stage, for a consumer's CDK app in
 * another repository (`@gym-bridge/cdk`): the stack of stage S is `GymBridge-S`, its bus
 * `gym-bridge-S`, its events' `source` `gym-bridge` in prod and `gym-bridge.S` otherwise, its schema
 * registry `GymBridge-S-events` with one schema per detail-type, `<source>@<DetailTypeKey>`
 * (lib/gym-bridge-stack.ts, lib/constructs/event-bus.ts; test/cdk/bridge-lookup.test.ts keeps these
 * names equal to what the stack synthesizes).
 *
 * ```ts
 * const bus = bridgeBusOfStage(this, 'GymBridge', { stage: 'prod' });  // same account and region
 * new BridgeSubscription(this, 'Dishonoured', {
 *   eventBus: bus,                       // the stage's source comes with it
 *   detailType: DETAIL_TYPES.PaymentFailed,
 *   detail: { reason: ['dishonoured'], eventVersion: [1] },
 *   targets: [new targets.LambdaFunction(fn)],
 * });
 * ```
 *
 * A bus in another account or region: `{ stage: 'prod', account: '111122223333', region:
 * 'eu-west-1' }` (the bridge's account must allow your rules on its bus). A deployment whose source
 * was overridden (context `eventSource`): pass its `EventSource` output as `eventSource`.
 */
import { DEFAULT_EVENT_SOURCE, DETAIL_TYPES, type DetailType } from '@gym-bridge/events';
import { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import type { BridgeBusLike } from './bridge-subscription';

/** The stages the bridge deploys (lambdas/events/event-source.ts's, kept equal by a test). */
export const BRIDGE_STAGES = ['dev', 'prod'] as const;
export type BridgeStage = (typeof BRIDGE_STAGES)[number];

/** The names of a stage's deployment. */
export interface BridgeStageNames {
  readonly stage: BridgeStage;
  /** The CloudFormation stack (its outputs: EventBusArn, EventSource, SchemaRegistryName, ...). */
  readonly stackName: string;
  readonly eventBusName: string;
  /** EventBridge `source` of the stage's events. */
  readonly eventSource: string;
  /** The EventBridge schema registry holding a schema per detail-type. */
  readonly schemaRegistryName: string;
}

/** The `source` of a stage's events, as the stack sets it: prod `gym-bridge`, others `gym-bridge.<stage>`. */
export function bridgeEventSource(stage: BridgeStage): string {
  return stage === 'prod' ? DEFAULT_EVENT_SOURCE : `${DEFAULT_EVENT_SOURCE}.${stage}`;
}

export function bridgeStageNames(
  stage: BridgeStage,
  options: { readonly eventSource?: string } = {},
): BridgeStageNames {
  if (!(BRIDGE_STAGES as readonly string[]).includes(stage))
    throw new Error(`'${stage}' is not a gym-bridge stage: one of ${BRIDGE_STAGES.join(', ')}`);
  const stackName = `GymBridge-${stage}`;
  return {
    stage,
    stackName,
    eventBusName: `gym-bridge-${stage}`,
    eventSource: options.eventSource ?? bridgeEventSource(stage),
    schemaRegistryName: `${stackName}-events`,
  };
}

/** The registry schema of a detail-type: `<source>@<DetailTypeKey>`, e.g. `gym-bridge@PaymentFailed`. */
export function bridgeSchemaName(eventSource: string, detailType: DetailType): string {
  const key = Object.entries(DETAIL_TYPES).find(([, value]) => value === detailType)?.[0];
  if (key === undefined) throw new Error(`'${detailType}' is not a gym-bridge detail-type`);
  return `${eventSource.replace(/[^A-Za-z0-9._-]/g, '-')}@${key}`;
}

export interface BridgeLookupProps {
  readonly stage: BridgeStage;
  /** The bridge's account. @default the scope's stack's */
  readonly account?: string;
  /** The bridge's region. @default the scope's stack's */
  readonly region?: string;
  /** The deployment's `EventSource` output, when it was overridden. @default the stage's */
  readonly eventSource?: string;
}

/** A stage's bus, as `BridgeSubscription` takes it: the imported bus, the stage's source and names. */
export interface BridgeBus extends BridgeBusLike {
  readonly names: BridgeStageNames;
}

/** The bus of a stage's deployment, imported into `scope` (no lookup call: its ARN is known). */
export function bridgeBusOfStage(scope: Construct, id: string, props: BridgeLookupProps): BridgeBus {
  const names = bridgeStageNames(
    props.stage,
    props.eventSource === undefined ? {} : { eventSource: props.eventSource },
  );
  const stack = Stack.of(scope);
  const arn = stack.formatArn({
    service: 'events',
    resource: 'event-bus',
    resourceName: names.eventBusName,
    ...(props.account === undefined ? {} : { account: props.account }),
    ...(props.region === undefined ? {} : { region: props.region }),
  });
  return { eventBus: events.EventBus.fromEventBusArn(scope, id, arn), eventSource: names.eventSource, names };
}

/**
 * The ARN of a stage's registry schema of one detail-type (for IAM, `aws schemas describe-schema`
 * or code bindings): `arn:<partition>:schemas:<region>:<account>:schema/<registry>/<schema>`.
 */
export function bridgeSchemaArn(
  scope: Construct,
  props: BridgeLookupProps & { readonly detailType: DetailType },
): string {
  const names = bridgeStageNames(
    props.stage,
    props.eventSource === undefined ? {} : { eventSource: props.eventSource },
  );
  return Stack.of(scope).formatArn({
    service: 'schemas',
    resource: 'schema',
    resourceName: `${names.schemaRegistryName}/${bridgeSchemaName(names.eventSource, props.detailType)}`,
    ...(props.account === undefined ? {} : { account: props.account }),
    ...(props.region === undefined ? {} : { region: props.region }),
  });
}
