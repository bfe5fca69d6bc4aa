/**
 * Builds the CDK app: one gym-bridge stack for the stage chosen with context `stage` (default dev),
 * checked by cdk-nag's AWS Solutions rules: an unacknowledged finding fails the synth. Used by
 * bin/gym-bridge.ts and by the tests, so both check the same app.
 */
import { App, type AppProps, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GymBridgeStack, type GymBridgeStackProps } from './gym-bridge-stack';
import { resolveStageConfig } from './stage-config';

export interface GymBridgeAppOptions extends AppProps {
  /** Handler entry files, relative to the repository root. @default HANDLER_ENTRIES */
  readonly handlerEntries?: GymBridgeStackProps['handlerEntries'];
}

export function createGymBridgeApp(options: GymBridgeAppOptions = {}): { app: App; stack: GymBridgeStack } {
  const { handlerEntries, ...appProps } = options;
  const app = new App(appProps);
  const config = resolveStageConfig((key) => app.node.tryGetContext(key));
  const stack = new GymBridgeStack(app, `GymBridge-${config.stage}`, {
    config,
    description: `gym-bridge (${config.stage}): polls the gym reporting API and publishes typed EventBridge events`,
    ...(handlerEntries ? { handlerEntries } : {}),
  });
  Tags.of(stack).add('project', 'gym-bridge');
  Tags.of(stack).add('stage', config.stage);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
