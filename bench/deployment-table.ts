/**
 * The state table's capacity as the synthesized template has it (bench/deployment.ts reads the
 * rest): its billing mode and, when provisioned, each dimension's auto scaling range and target
 * utilization, from the table's ProvisionedThroughput, the Application Auto Scaling scalable
 * targets on it and their target tracking policies. Nothing here is re-typed from lib/.
 */
import type { Template } from 'aws-cdk-lib/assertions';

/** One provisioned dimension (reads or writes): what the table starts at, its range and target. */
export interface ProvisionedDimension {
  /** The table's (or index's) ProvisionedThroughput in the template: capacity units. */
  readonly provisioned: number;
  readonly min: number;
  readonly max: number;
  /** Target tracking's TargetValue, percent. */
  readonly targetUtilizationPercent: number;
}

/** The table's capacity mode; `provisioned` sums the table and its indexes, if any. */
export type TableCapacitySettings =
  | { readonly mode: 'on-demand' }
  | {
      readonly mode: 'provisioned';
      readonly read: ProvisionedDimension;
      readonly write: ProvisionedDimension;
      /** Scalable targets on the table and its indexes (target tracking creates 4 alarms each). */
      readonly scalableTargets: number;
    };

export class TableCapacityError extends Error {
  override readonly name = 'TableCapacityError';
}

type Resource = { Properties: Record<string, unknown> };
type Throughput = { ReadCapacityUnits?: number; WriteCapacityUnits?: number } | undefined;

const resources = (template: Template, type: string) =>
  Object.entries(template.findResources(type) as Record<string, Resource>);

/** `table/<Ref>` (optionally `/index/<name>`) of a scalable target: the table's logical id. */
function targetTableId(target: Resource): string | undefined {
  const join = target.Properties.ResourceId as { 'Fn::Join'?: [string, unknown[]] } | undefined;
  const parts = join?.['Fn::Join']?.[1] ?? [];
  const ref = parts.find((p): p is { Ref: string } => typeof p === 'object' && p !== null && 'Ref' in p);
  return ref?.Ref;
}

/** The one target tracking policy on a scalable target: its TargetValue. */
function targetValueOf(template: Template, targetId: string, dimension: string): number {
  const values = resources(template, 'AWS::ApplicationAutoScaling::ScalingPolicy')
    .filter(([, p]) => JSON.stringify(p.Properties.ScalingTargetId) === JSON.stringify({ Ref: targetId }))
    .map(
      ([, p]) =>
        (p.Properties.TargetTrackingScalingPolicyConfiguration as { TargetValue?: number } | undefined)
          ?.TargetValue,
    );
  const value = values[0];
  if (values.length !== 1 || value === undefined)
    throw new TableCapacityError(
      `expected one target tracking policy on ${dimension}, found ${values.length}`,
    );
  return value;
}

/** The scalable targets of one dimension (reads or writes) on the table and its indexes, summed. */
function dimension(
  template: Template,
  tableId: string,
  kind: 'Read' | 'Write',
  provisioned: number,
): { dimension: ProvisionedDimension; targets: number } {
  const targets = resources(template, 'AWS::ApplicationAutoScaling::ScalableTarget').filter(
    ([, t]) =>
      targetTableId(t) === tableId &&
      /^dynamodb:(table|index):/.test(String(t.Properties.ScalableDimension)) &&
      String(t.Properties.ScalableDimension).endsWith(`:${kind}CapacityUnits`),
  );
  if (targets.length === 0)
    throw new TableCapacityError(`the provisioned state table has no auto scaling on ${kind.toLowerCase()}s`);
  const targetValues = new Set(targets.map(([id]) => targetValueOf(template, id, `${kind}CapacityUnits`)));
  if (targetValues.size !== 1)
    throw new TableCapacityError(
      `expected one target utilization on ${kind.toLowerCase()}s, found ${[...targetValues].join(', ')}`,
    );
  const sum = (key: 'MinCapacity' | 'MaxCapacity') =>
    targets.reduce((a, [, t]) => a + Number(t.Properties[key] ?? 0), 0);
  return {
    dimension: {
      provisioned,
      min: sum('MinCapacity'),
      max: sum('MaxCapacity'),
      targetUtilizationPercent: [...targetValues][0]!,
    },
    targets: targets.length,
  };
}

/** The tables a function names in WEBHOOK_TABLE_NAME: the webhook table, not the state table. */
export function webhookTableIds(template: Template): Set<string> {
  return new Set(
    resources(template, 'AWS::Lambda::Function').flatMap(([, f]) => {
      const env = (f.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      const ref = (env?.WEBHOOK_TABLE_NAME as { Ref?: string } | undefined)?.Ref;
      return ref ? [ref] : [];
    }),
  );
}

/**
 * The template's resources of `type` that may be the state table: not a table a function names in
 * WEBHOOK_TABLE_NAME, and the StateTable construct's when there is one (the bridge's template names
 * it so; a template of the webhook construct alone names no function).
 */
function stateTableCandidates(template: Template, type: string) {
  const webhooks = webhookTableIds(template);
  const isState = ([id]: [string, unknown]) => id.startsWith('StateTable');
  const all = [
    ...resources(template, 'AWS::DynamoDB::Table'),
    ...resources(template, 'AWS::DynamoDB::GlobalTable'),
  ].filter(([id]) => !webhooks.has(id));
  const of = resources(template, type).filter(([id]) => !webhooks.has(id));
  return all.some(isState) ? of.filter(isState) : of;
}

/** The capacity of the template's one state table (AWS::DynamoDB::Table or GlobalTable). */
export function readTableCapacity(template: Template): TableCapacitySettings {
  const tables = stateTableCandidates(template, 'AWS::DynamoDB::Table');
  const globals = stateTableCandidates(template, 'AWS::DynamoDB::GlobalTable');
  if (tables.length + globals.length !== 1)
    throw new TableCapacityError(
      `expected one state table in the template, found ${tables.length + globals.length}`,
    );
  if (globals[0]) return globalTableCapacity(globals[0][1].Properties);
  const [tableId, { Properties: p }] = tables[0]!;
  if (p.BillingMode === 'PAY_PER_REQUEST') return { mode: 'on-demand' };
  // The table states its throughput, each index its own; auto scaling is on scalable targets.
  const indexes = (p.GlobalSecondaryIndexes as { ProvisionedThroughput?: Throughput }[] | undefined) ?? [];
  const throughputs = [p.ProvisionedThroughput as Throughput, ...indexes.map((i) => i.ProvisionedThroughput)];
  const total = (key: 'ReadCapacityUnits' | 'WriteCapacityUnits') =>
    throughputs.reduce((a, t) => a + Number(t?.[key] ?? 0), 0);
  const read = dimension(template, tableId, 'Read', total('ReadCapacityUnits'));
  const write = dimension(template, tableId, 'Write', total('WriteCapacityUnits'));
  return {
    mode: 'provisioned',
    read: read.dimension,
    write: write.dimension,
    scalableTargets: read.targets + write.targets,
  };
}

type AutoScaling =
  | {
      MinCapacity?: number;
      MaxCapacity?: number;
      TargetTrackingScalingPolicyConfiguration?: { TargetValue?: number };
    }
  | undefined;

/** A GlobalTable (TableV2) in one region: auto scaling is in its own properties, not scalable targets. */
function globalTableCapacity(p: Record<string, unknown>): TableCapacitySettings {
  if (p.BillingMode !== 'PROVISIONED') return { mode: 'on-demand' };
  type Replica = { ReadProvisionedThroughputSettings?: { ReadCapacityAutoScalingSettings?: AutoScaling } };
  const replicas = (p.Replicas as Replica[] | undefined) ?? [];
  if (replicas.length !== 1 || (p.GlobalSecondaryIndexes as unknown[] | undefined)?.length)
    throw new TableCapacityError('a provisioned GlobalTable with replicas or indexes is not modelled');
  const writes = (p.WriteProvisionedThroughputSettings as { WriteCapacityAutoScalingSettings?: AutoScaling })
    ?.WriteCapacityAutoScalingSettings;
  const reads = replicas[0]?.ReadProvisionedThroughputSettings?.ReadCapacityAutoScalingSettings;
  const scaled = (s: AutoScaling, kind: string): ProvisionedDimension => {
    const target = s?.TargetTrackingScalingPolicyConfiguration?.TargetValue;
    if (s?.MinCapacity === undefined || s.MaxCapacity === undefined || target === undefined)
      throw new TableCapacityError(`the provisioned GlobalTable has no auto scaling on ${kind}`);
    return {
      provisioned: s.MinCapacity,
      min: s.MinCapacity,
      max: s.MaxCapacity,
      targetUtilizationPercent: target,
    };
  };
  return {
    mode: 'provisioned',
    read: scaled(reads, 'reads'),
    write: scaled(writes, 'writes'),
    scalableTargets: 2,
  };
}
