/**
 * Example subscriptions for the bridge's three kinds of users, built from the `DETAIL_TYPES`
 * constants (the names the publisher uses):
 *
 * - marketing: Prospect Created and Prospect Status Changed -> an SQS queue their automation reads
 *   (it must honour `detail.data.Contact.OptOutEmail` / `OptOutSms`);
 * - operations: Member Status Changed to PaymentIssue, Club Credentials Rejected, Club Data Stale
 *   and Club Quota Low -> an SNS topic;
 * - archive-everything is the bus archive (`BridgeEventBus.archive`).
 *
 * Rule targets that fail to deliver after retries go to a rule dead-letter queue instead of being
 * dropped.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import { BridgeSubscription, bridgePattern, subscriptionSpec } from './bridge-subscription';
import type { BridgeEventBus } from './event-bus';
import { NotificationTopic } from './notification-topic';

export interface ExampleRulesProps {
  readonly eventBus: BridgeEventBus;
  /** Create the marketing rule and queue. @default true */
  readonly marketing?: boolean;
  /** Create the operations rules and topic. @default true */
  readonly operations?: boolean;
  /** Subscribe this address to the operations topic. @default no subscription */
  readonly operationsEmail?: string;
  /** Key of the operations topic. @default a new key (see createTopicKey) */
  readonly topicEncryptionKey?: kms.IKey;
}

/** The member status operations is alerted on (`detail.status` of Member Status Changed). */
export const PAYMENT_ISSUE_STATUS = 'PaymentIssue';

/** The example subscriptions: detail-types and detail patterns, checked against the catalog. */
export const EXAMPLE_SUBSCRIPTIONS = {
  marketingProspects: subscriptionSpec({
    detailType: [DETAIL_TYPES.ProspectCreated, DETAIL_TYPES.ProspectStatusChanged],
  }),
  operationsPaymentIssue: subscriptionSpec({
    detailType: DETAIL_TYPES.MemberStatusChanged,
    detail: { status: [PAYMENT_ISSUE_STATUS] },
  }),
  operationsClubHealth: subscriptionSpec({
    detailType: [
      DETAIL_TYPES.ClubCredentialsRejected,
      DETAIL_TYPES.ClubDataStale,
      DETAIL_TYPES.ClubQuotaLow,
      DETAIL_TYPES.ClubSourceUnavailable,
    ],
  }),
};

/**
 * Event patterns of the example rules, for `events.Rule` or for a consumer's own stack: `bridgePattern`
 * of `EXAMPLE_SUBSCRIPTIONS`, the same JSON as writing them by hand.
 */
export function exampleEventPatterns(eventSource: string) {
  return {
    marketingProspects: bridgePattern({ ...EXAMPLE_SUBSCRIPTIONS.marketingProspects, eventSource }),
    operationsPaymentIssue: bridgePattern({ ...EXAMPLE_SUBSCRIPTIONS.operationsPaymentIssue, eventSource }),
    operationsClubHealth: bridgePattern({ ...EXAMPLE_SUBSCRIPTIONS.operationsClubHealth, eventSource }),
  } satisfies Record<string, events.EventPattern>;
}

export class ExampleRules extends Construct {
  /** Queue of prospect events for marketing automation (when `marketing`). */
  public readonly marketingQueue?: sqs.IQueue;
  /** Topic of operations notifications (when `operations`). */
  public readonly operationsTopic?: sns.ITopic;
  /** Events a rule could not deliver after its retries. */
  public readonly ruleDeadLetterQueue: sqs.IQueue;
  public readonly rules: readonly events.IRule[];

  constructor(scope: Construct, id: string, props: ExampleRulesProps) {
    super(scope, id);
    const rules: events.IRule[] = [];

    const ruleDeadLetterQueue = new sqs.Queue(this, 'RuleDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(ruleDeadLetterQueue).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the rule targets (EventBridge DeadLetterConfig).',
    });
    this.ruleDeadLetterQueue = ruleDeadLetterQueue;
    const delivery = {
      deadLetterQueue: ruleDeadLetterQueue,
      retryAttempts: 20,
      maxEventAge: Duration.hours(24),
    };

    if (props.marketing ?? true) {
      const queue = new sqs.Queue(this, 'MarketingQueue', {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(4),
        deadLetterQueue: {
          queue: new sqs.Queue(this, 'MarketingDeadLetterQueue', {
            encryption: sqs.QueueEncryption.SQS_MANAGED,
            enforceSSL: true,
            retentionPeriod: Duration.days(14),
          }),
          maxReceiveCount: 5,
        },
      });
      rules.push(
        new BridgeSubscription(this, 'MarketingProspectsRule', {
          eventBus: props.eventBus,
          description: 'Marketing: new prospects and prospect status changes',
          ...EXAMPLE_SUBSCRIPTIONS.marketingProspects,
          targets: [new targets.SqsQueue(queue, delivery)],
        }),
      );
      this.marketingQueue = queue;
    }

    if (props.operations ?? true) {
      const topic = new NotificationTopic(this, 'OperationsTopic', {
        displayName: 'gym-bridge operations',
        encryptionKey: props.topicEncryptionKey,
        email: props.operationsEmail,
      }).topic;
      rules.push(
        new BridgeSubscription(this, 'OperationsPaymentIssueRule', {
          eventBus: props.eventBus,
          description: `Operations: a member moved to ${PAYMENT_ISSUE_STATUS}`,
          ...EXAMPLE_SUBSCRIPTIONS.operationsPaymentIssue,
          targets: [new targets.SnsTopic(topic, delivery)],
        }),
        new BridgeSubscription(this, 'OperationsClubHealthRule', {
          eventBus: props.eventBus,
          description: 'Operations: club credentials rejected, data stale or quota low',
          ...EXAMPLE_SUBSCRIPTIONS.operationsClubHealth,
          targets: [new targets.SnsTopic(topic, delivery)],
        }),
      );
      this.operationsTopic = topic;
    }
    this.rules = rules;
  }
}
