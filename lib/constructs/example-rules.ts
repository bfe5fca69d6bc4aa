/**
 * Example subscriptions for the bridge's three kinds of users, built from the `DETAIL_TYPES`
 * constants (the names the publisher uses):
 *
 * - marketing: Prospect Created and Prospect Status Changed -> an SQS queue their automation reads
 *   (it must honour `detail.data.Contact.OptOutEmail` / `OptOutSms`);
 * - operations: Member Status Changed to PaymentIssue, Club Credentials Rejected, Club Data Stale
 *   and Club Quota Low -> an SNS topic (e-mailed to the alarm address). The PaymentIssue rule sends
 *   a summary that carries no member data (`paymentIssueSummary`) unless `emailDetail` is 'full';
 *   the club health events carry none in the first place;
 * - archive-everything is the bus archive (`BridgeEventBus.archive`).
 *
 * Rule targets that fail to deliver after retries go to a rule dead-letter queue instead of being
 * dropped; it and the marketing queue's own dead-letter queue each raise RuleDeadLetterQueueNotEmpty
 * (docs/deploy.md runbook). The queues hold events not yet delivered: they follow the stage's
 * `retainData` (`removalPolicy`). The operations topic's publish permission names each rule
 * (`TopicRuleTarget`).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import { BridgeSubscription, bridgePattern, subscriptionSpec } from './bridge-subscription';
import type { BridgeEventBus } from './event-bus';
import { deadLetterQueueAlarm } from './monitoring/alarms';
import { NotificationTopic, TopicRuleTarget } from './notification-topic';

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
  /**
   * What the operations topic gets of a PaymentIssue member: 'summary' (club, member number,
   * status change, time, eventId and how to look the member up; no member data) or 'full' (the
   * whole event, with `data` as the club's PII policy let it through: names, membership, ...).
   * @default 'summary'
   */
  readonly emailDetail?: ExampleRulesEmailDetail;
  /** What happens to the queues (events not yet delivered) when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** The dead-letter queues' alarms notify this topic. @default no notification (the alarms still show) */
  readonly alarmTopic?: sns.ITopic;
}

/** What the operations e-mail of a PaymentIssue member carries (stage setting `exampleRulesEmailDetail`). */
export type ExampleRulesEmailDetail = 'summary' | 'full';

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

/** The last line of the PaymentIssue summary: where the member data is, since the e-mail has none. */
export const PAYMENT_ISSUE_LOOKUP =
  "No member data in this e-mail: look the member up by club and member number in the club's management software (stage setting exampleRulesEmailDetail=full e-mails the whole event).";

/**
 * The PaymentIssue e-mail by default: an input transformer that reads only the envelope and the
 * status fields (`clubId`, `subject.memberNumber`, `previousStatus`, `status`, `occurredAt`,
 * `eventId`), never `data`, so no name, contact detail or membership reaches the mailbox.
 */
export function paymentIssueSummary(): events.RuleTargetInput {
  const field = (path: string) => events.EventField.fromPath(`$.detail.${path}`);
  return events.RuleTargetInput.fromMultilineText(
    [
      `gym-bridge: a member moved to ${PAYMENT_ISSUE_STATUS}.`,
      `club: ${field('clubId')}`,
      `member number: ${field('subject.memberNumber')}`,
      `status: ${field('previousStatus')} -> ${field('status')}`,
      `occurred at (UTC): ${field('occurredAt')}`,
      `eventId: ${field('eventId')}`,
      PAYMENT_ISSUE_LOOKUP,
    ].join('\n'),
  );
}

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
  /** RuleDeadLetterQueueNotEmpty of the rules' dead-letter queue, and of the marketing one (when `marketing`). */
  public readonly alarms: readonly cloudwatch.IAlarm[];
  readonly #alarms: cloudwatch.IAlarm[] = [];

  constructor(scope: Construct, id: string, props: ExampleRulesProps) {
    super(scope, id);
    this.ruleDeadLetterQueue = this.#ruleDeadLetterQueue(props);
    const delivery: targets.TargetBaseProps = {
      deadLetterQueue: this.ruleDeadLetterQueue,
      retryAttempts: 20,
      maxEventAge: Duration.hours(24),
    };
    const rules: events.IRule[] = [];
    if (props.marketing ?? true) {
      const marketing = this.#marketing(props, delivery);
      rules.push(marketing.rule);
      this.marketingQueue = marketing.queue;
    }
    if (props.operations ?? true) {
      const operations = this.#operations(props, delivery);
      rules.push(...operations.rules);
      this.operationsTopic = operations.topic;
    }
    this.rules = rules;
    this.alarms = this.#alarms;
    for (const queue of this.node.findAll().filter((c): c is sqs.Queue => c instanceof sqs.Queue)) {
      queue.applyRemovalPolicy(props.removalPolicy ?? RemovalPolicy.RETAIN);
    }
  }

  /** The dead-letter queue of every rule target, and its alarm. */
  #ruleDeadLetterQueue(props: ExampleRulesProps): sqs.Queue {
    const ruleDeadLetterQueue = new sqs.Queue(this, 'RuleDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(ruleDeadLetterQueue).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the rule targets (EventBridge DeadLetterConfig).',
    });
    this.#alarms.push(
      deadLetterQueueAlarm(this, 'RuleDeadLetterQueueNotEmpty', {
        queue: ruleDeadLetterQueue,
        description: 'An example rule could not deliver an event to its target after its retries.',
        ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
      }),
    );
    return ruleDeadLetterQueue;
  }

  /** The marketing queue (with its own dead-letter queue) and the prospects rule that feeds it. */
  #marketing(
    props: ExampleRulesProps,
    delivery: targets.TargetBaseProps,
  ): { queue: sqs.Queue; rule: events.IRule } {
    const deadLetters = new sqs.Queue(this, 'MarketingDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.#alarms.push(
      deadLetterQueueAlarm(this, 'MarketingDeadLetterQueueNotEmpty', {
        queue: deadLetters,
        description: 'A prospect event in the marketing queue was received 5 times and not deleted.',
        ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
      }),
    );
    const queue = new sqs.Queue(this, 'MarketingQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
    });
    const rule = new BridgeSubscription(this, 'MarketingProspectsRule', {
      eventBus: props.eventBus,
      description: 'Marketing: new prospects and prospect status changes',
      ...EXAMPLE_SUBSCRIPTIONS.marketingProspects,
      targets: [new targets.SqsQueue(queue, delivery)],
    });
    return { queue, rule };
  }

  /** The operations topic and its two rules: payment issues, and club health. */
  #operations(
    props: ExampleRulesProps,
    delivery: targets.TargetBaseProps,
  ): { topic: sns.ITopic; rules: events.IRule[] } {
    const topic = new NotificationTopic(this, 'OperationsTopic', {
      displayName: 'gym-bridge operations',
      encryptionKey: props.topicEncryptionKey,
      email: props.operationsEmail,
    }).topic;
    const summary = (props.emailDetail ?? 'summary') === 'summary';
    const rules = [
      new BridgeSubscription(this, 'OperationsPaymentIssueRule', {
        eventBus: props.eventBus,
        description: `Operations: a member moved to ${PAYMENT_ISSUE_STATUS}`,
        ...EXAMPLE_SUBSCRIPTIONS.operationsPaymentIssue,
        targets: [
          new TopicRuleTarget(topic, {
            ...delivery,
            ...(summary ? { message: paymentIssueSummary() } : {}),
          }),
        ],
      }),
      new BridgeSubscription(this, 'OperationsClubHealthRule', {
        eventBus: props.eventBus,
        description: 'Operations: club credentials rejected, data stale or quota low',
        ...EXAMPLE_SUBSCRIPTIONS.operationsClubHealth,
        targets: [new TopicRuleTarget(topic, delivery)],
      }),
    ];
    return { topic, rules };
  }
}
