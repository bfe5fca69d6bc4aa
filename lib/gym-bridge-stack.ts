/**
 * The gym-bridge stack: state table, event bus (+ archive, schema registry), club secrets prefix,
 * the poller (schedule -> dispatch -> queue -> poll -> DLQ), monitoring, and optional example rules.
 * Environment-agnostic: it synthesizes offline, without credentials.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { ClubSecrets } from './constructs/club-secrets';
import { BridgeEventBus } from './constructs/event-bus';
import { ExampleRules } from './constructs/example-rules';
import { Monitoring } from './constructs/monitoring';
import { createTopicKey, NotificationTopic } from './constructs/notification-topic';
import { Poller } from './constructs/poller';
import { StateTable, type StateTableCapacity } from './constructs/state-table';
import { WebhookMonitoring } from './constructs/webhook-monitoring';
import { WebhookDelivery } from './constructs/webhooks';
import { tableCapacityFor } from './fleet-sizing';
import type { StageConfig } from './stage-config';

export interface GymBridgeStackProps extends StackProps {
  readonly config: StageConfig;
  /** Handler entry files, relative to the repository root. @default HANDLER_ENTRIES */
  readonly handlerEntries?: {
    readonly dispatch: string;
    readonly poll: string;
    readonly webhookFanOut?: string;
    readonly webhookDeliver?: string;
  };
}

/** The state table's capacity: on demand, or provisioned as sized for the stage's clubs. */
function tableCapacity(config: StageConfig): StateTableCapacity {
  if (config.tableCapacity === 'on-demand') return { mode: 'on-demand' };
  const targetUtilizationPercent = config.tableTargetUtilization;
  return {
    mode: 'provisioned',
    targetUtilizationPercent,
    ...tableCapacityFor(config.clubs, targetUtilizationPercent),
  };
}

export class GymBridgeStack extends Stack {
  public readonly stateTable: StateTable;
  public readonly eventBus: BridgeEventBus;
  public readonly clubSecrets: ClubSecrets;
  public readonly poller: Poller;
  public readonly monitoring: Monitoring;
  public readonly exampleRules?: ExampleRules;
  public readonly webhooks: WebhookDelivery;
  public readonly webhookMonitoring: WebhookMonitoring;

  constructor(scope: Construct, id: string, props: GymBridgeStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const serviceName = `gym-bridge-${config.stage}`;

    this.stateTable = new StateTable(this, 'State', { removalPolicy, capacity: tableCapacity(config) });
    this.eventBus = new BridgeEventBus(this, 'Events', {
      eventBusName: `gym-bridge-${config.stage}`,
      eventSource: config.eventSource,
      archiveRetention: Duration.days(config.archiveRetentionDays),
      archiveRemovalPolicy: removalPolicy,
    });
    this.clubSecrets = new ClubSecrets(this, 'ClubSecrets', {
      secretNamePrefix: `gym-bridge/${config.stage}/clubs/`,
    });
    this.poller = this.#poller(props, serviceName, removalPolicy);

    const needsOwnTopic = !config.alarmTopicArn && (config.alarmEmail || config.exampleRules);
    const topicKey = needsOwnTopic ? createTopicKey(this, 'NotificationsKey') : undefined;
    const alarmTopic = this.#alarmTopic(config, topicKey);
    this.monitoring = this.#monitoring(config, serviceName, alarmTopic);
    this.webhooks = this.#webhooks(props, serviceName, removalPolicy);
    this.webhookMonitoring = new WebhookMonitoring(this, 'WebhookMonitoring', {
      webhooks: this.webhooks,
      serviceName,
      dashboard: this.monitoring.dashboard,
      ...(alarmTopic ? { alarmTopic } : {}),
    });

    if (config.exampleRules) {
      this.exampleRules = new ExampleRules(this, 'ExampleRules', {
        eventBus: this.eventBus,
        topicEncryptionKey: topicKey,
        operationsEmail: config.alarmEmail,
        emailDetail: config.exampleRulesEmailDetail,
        removalPolicy,
        ...(alarmTopic ? { alarmTopic } : {}),
      });
    }

    this.#outputs(config);
  }

  #poller(props: GymBridgeStackProps, serviceName: string, removalPolicy: RemovalPolicy): Poller {
    const { config } = props;
    return new Poller(this, 'Poller', {
      stateTable: this.stateTable,
      eventBus: this.eventBus,
      clubSecrets: this.clubSecrets,
      pollRate: Duration.minutes(config.pollRateMinutes),
      maxConcurrency: config.pollMaxConcurrency,
      batchSize: config.pollBatchSize,
      dispatchShards: config.dispatchShards,
      dispatchMemoryMb: config.dispatchMemoryMb,
      piiPolicyDefault: config.piiPolicyDefault,
      quotaReserve: config.quotaReserve,
      sourceOverdueAfter: Duration.minutes(config.sourceOverdueMinutes),
      serviceName,
      logRetention: config.retainData ? logs.RetentionDays.THREE_MONTHS : logs.RetentionDays.ONE_WEEK,
      logRemovalPolicy: removalPolicy,
      ...(props.handlerEntries ? { handlerEntries: props.handlerEntries } : {}),
    });
  }

  /** The webhook delivery machinery (endpoints are data: none is deployed). */
  #webhooks(props: GymBridgeStackProps, serviceName: string, removalPolicy: RemovalPolicy): WebhookDelivery {
    const { config, handlerEntries } = props;
    return new WebhookDelivery(this, 'Webhooks', {
      eventBus: this.eventBus,
      secretNamePrefix: `gym-bridge/${config.stage}/webhooks/`,
      serviceName,
      removalPolicy,
      logRetention: config.retainData ? logs.RetentionDays.THREE_MONTHS : logs.RetentionDays.ONE_WEEK,
      ...(handlerEntries?.webhookFanOut && handlerEntries.webhookDeliver
        ? {
            entries: {
              webhookFanOut: handlerEntries.webhookFanOut,
              webhookDeliver: handlerEntries.webhookDeliver,
            },
          }
        : {}),
    });
  }

  /** The alarm topic: the one `alarmTopicArn` names, else the bridge's own when `alarmEmail` is set, else none. */
  #alarmTopic(config: StageConfig, topicKey: kms.IKey | undefined): sns.ITopic | undefined {
    if (config.alarmTopicArn) return sns.Topic.fromTopicArn(this, 'AlarmTopic', config.alarmTopicArn);
    if (!config.alarmEmail) return undefined;
    return new NotificationTopic(this, 'AlarmTopic', {
      displayName: `gym-bridge ${config.stage} alarms`,
      encryptionKey: topicKey,
      email: config.alarmEmail,
    }).topic;
  }

  #monitoring(config: StageConfig, serviceName: string, alarmTopic: sns.ITopic | undefined): Monitoring {
    return new Monitoring(this, 'Monitoring', {
      dispatchFunction: this.poller.dispatchFunction,
      pollFunction: this.poller.pollFunction,
      pollQueue: this.poller.pollQueue,
      deadLetterQueue: this.poller.deadLetterQueue,
      dispatchLogGroup: this.poller.dispatchLogGroup,
      pollLogGroup: this.poller.pollLogGroup,
      stateTable: this.stateTable.table,
      pollRate: Duration.minutes(config.pollRateMinutes),
      serviceName,
      sourceOverdueAfter: Duration.minutes(config.sourceOverdueMinutes),
      dashboardName: `gym-bridge-${config.stage}`,
      ...(alarmTopic ? { alarmTopic } : {}),
    });
  }

  #outputs(config: StageConfig): void {
    new CfnOutput(this, 'StateTableName', {
      value: this.stateTable.table.tableName,
      description: 'clubs CLI: --table',
    });
    new CfnOutput(this, 'ClubSecretPrefix', {
      value: this.clubSecrets.secretNamePrefix,
      description: 'clubs CLI: --secret-prefix',
    });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBus.eventBusName });
    new CfnOutput(this, 'EventBusArn', { value: this.eventBus.eventBus.eventBusArn });
    new CfnOutput(this, 'EventSource', { value: config.eventSource });
    new CfnOutput(this, 'SchemaRegistryName', { value: this.eventBus.registry.attrRegistryName });
    new CfnOutput(this, 'PollDeadLetterQueueUrl', { value: this.poller.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'PollDeadLetterQueueArn', {
      value: this.poller.deadLetterQueue.queueArn,
      description: 'aws sqs start-message-move-task --source-arn (redrive)',
    });
    new CfnOutput(this, 'PollFunctionLogGroup', { value: this.poller.pollLogGroup.logGroupName });
    new CfnOutput(this, 'DispatchFunctionLogGroup', { value: this.poller.dispatchLogGroup.logGroupName });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
    new CfnOutput(this, 'WebhookTableName', {
      value: this.webhooks.table.tableName,
      description: 'webhooks CLI: --table',
    });
    new CfnOutput(this, 'WebhookQueueUrl', {
      value: this.webhooks.deliveryQueue.queueUrl,
      description: 'webhooks redrive',
    });
    new CfnOutput(this, 'WebhookSecretPrefix', { value: this.webhooks.secretNamePrefix });
    new CfnOutput(this, 'WebhookRuleArn', {
      value: this.webhooks.rule.ruleArn,
      description: 'webhooks replay',
    });
    new CfnOutput(this, 'EventArchiveArn', {
      value: this.eventBus.archive.archiveArn,
      description: 'webhooks replay',
    });
    new CfnOutput(this, 'WebhookDeliverLogGroup', { value: this.webhooks.deliverLogGroup.logGroupName });
    if (this.exampleRules?.marketingQueue) {
      new CfnOutput(this, 'MarketingQueueUrl', { value: this.exampleRules.marketingQueue.queueUrl });
    }
    if (this.exampleRules?.operationsTopic) {
      new CfnOutput(this, 'OperationsTopicArn', { value: this.exampleRules.operationsTopic.topicArn });
    }
  }
}
