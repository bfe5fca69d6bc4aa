/**
 * CDK app of the example: `npx cdk deploy -c eventBusArn=arn:aws:events:...:event-bus/gym-bridge`
 * (from this folder; cdk.json runs this file with tsx).
 */
import { App } from 'aws-cdk-lib';
import { PaymentIssueNotifierStack } from './payment-issue-notifier-stack';

const app = new App();
const eventBusArn = app.node.tryGetContext('eventBusArn') ?? process.env.GYM_BRIDGE_EVENT_BUS_ARN;
if (typeof eventBusArn !== 'string' || !eventBusArn.startsWith('arn:')) {
  throw new Error(
    'the bus ARN is needed: cdk deploy -c eventBusArn=arn:aws:events:<region>:<account>:event-bus/<name> (or GYM_BRIDGE_EVENT_BUS_ARN)',
  );
}
const eventSource = app.node.tryGetContext('eventSource') ?? process.env.GYM_BRIDGE_EVENT_SOURCE;
new PaymentIssueNotifierStack(app, 'PaymentIssueNotifier', {
  eventBusArn,
  ...(typeof eventSource === 'string' ? { eventSource } : {}),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
