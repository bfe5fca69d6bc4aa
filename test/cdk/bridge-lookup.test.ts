/**
 * The lookups of `@gym-bridge/cdk` (lib/constructs/bridge-lookup.ts) name what the bridge's stack
 * deploys: for each stage, the stack, the bus, the events' source, the schema registry and its
 * schemas are those a synthesized GymBridge-<stage> stack has (so a consumer's rule lands on the
 * real bus, with the real source).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ALL_DETAIL_TYPES } from '../../lambdas/events/catalog';
import { DEPLOYMENT_STAGES, eventSourceForStage } from '../../lambdas/events/event-source';
import {
  BRIDGE_STAGES,
  bridgeBusOfStage,
  bridgeEventSource,
  bridgeSchemaArn,
  bridgeSchemaName,
  bridgeStageNames,
} from '../../lib/constructs/bridge-lookup';
import { registrySchemaName } from '../../lib/constructs/event-bus';
import { createGymBridgeApp } from '../../lib/gym-bridge-app';
import { FIXTURE_ENTRIES } from './support';

describe('bridge lookups by stage', () => {
  it('know the stages and their sources as the stack does', () => {
    expect([...BRIDGE_STAGES]).toEqual([...DEPLOYMENT_STAGES]);
    for (const stage of BRIDGE_STAGES) expect(bridgeEventSource(stage)).toBe(eventSourceForStage(stage));
    expect(() => bridgeStageNames('staging' as never)).toThrow(/'staging' is not a gym-bridge stage/);
  });

  it.each(BRIDGE_STAGES)(
    'name the %s stack, bus, source, registry and schemas it synthesizes',
    (stage) => {
      // Prepare
      const { stack } = createGymBridgeApp({ context: { stage }, handlerEntries: FIXTURE_ENTRIES });
      const template = Template.fromStack(stack);
      const names = bridgeStageNames(stage);
      // Assess
      expect(stack.stackName).toBe(names.stackName);
      template.hasResourceProperties('AWS::Events::EventBus', { Name: names.eventBusName });
      template.hasResourceProperties('AWS::EventSchemas::Registry', {
        RegistryName: names.schemaRegistryName,
      });
      expect(template.findOutputs('EventSource').EventSource?.Value).toBe(names.eventSource);
      for (const detailType of ALL_DETAIL_TYPES) {
        const schema = bridgeSchemaName(names.eventSource, detailType);
        expect(schema).toBe(registrySchemaName(names.eventSource, detailType));
        template.hasResourceProperties('AWS::EventSchemas::Schema', { SchemaName: schema });
      }
    },
    180_000,
  );

  it('import the bus by its ARN, in the consumer account or another, with the stage source', () => {
    const stack = new Stack(new App(), 'Consumer', { env: { account: '111111111111', region: 'eu-west-1' } });
    const local = bridgeBusOfStage(stack, 'Local', { stage: 'dev' });
    const remote = bridgeBusOfStage(stack, 'Remote', { stage: 'prod', account: '222222222222' });
    // The partition stays a token (AWS::Partition): compare the rest of the resolved ARN
    const arn = (value: string) => JSON.stringify(stack.resolve(value));
    expect(local.eventSource).toBe('gym-bridge.dev');
    expect(arn(local.eventBus.eventBusArn)).toContain(
      ':events:eu-west-1:111111111111:event-bus/gym-bridge-dev',
    );
    expect(remote.eventSource).toBe('gym-bridge');
    expect(arn(remote.eventBus.eventBusArn)).toContain(
      ':events:eu-west-1:222222222222:event-bus/gym-bridge-prod',
    );
    expect(arn(bridgeSchemaArn(stack, { stage: 'prod', detailType: 'Payment Failed' }))).toContain(
      ':schemas:eu-west-1:111111111111:schema/GymBridge-prod-events/gym-bridge@PaymentFailed',
    );
    const overridden = bridgeBusOfStage(stack, 'Own', { stage: 'prod', eventSource: 'acme.gyms' });
    expect(overridden.eventSource).toBe('acme.gyms');
  });
});
