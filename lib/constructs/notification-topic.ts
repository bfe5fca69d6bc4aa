/**
 * An SNS topic for people: encrypted with a customer managed key that CloudWatch alarms and
 * EventBridge rules may use (the AWS managed `aws/sns` key cannot be granted to them), TLS only,
 * publishable by this account's alarms, with an optional e-mail subscription; and the rule target
 * that lets one EventBridge rule of this account publish to it (`TopicRuleTarget`).
 *
 * Confused deputy: every statement that lets a service principal publish names the account and
 * the alarms or rule it acts for (`aws:SourceAccount`, `aws:SourceArn`). The key statements bind the
 * service to this account's SNS topics through the encryption context SNS sets on every message
 * (`kms:EncryptionContext:aws:sns:topicArn`), which SNS carries whoever publishes; the source keys
 * are not carried in the KMS request SNS makes for an EventBridge publish (docs/deploy.md).
 */
import { ArnFormat, Names, Stack } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/**
 * A customer managed key (yearly rotation) for the bridge's SNS topics. CloudWatch alarms and
 * EventBridge rules may use it to publish (AWS's documented statement for services publishing to
 * encrypted topics), through SNS topics of this account only; which alarms and rules may publish to
 * a topic is its topic policy's say (NotificationTopic, TopicRuleTarget).
 */
export function createTopicKey(scope: Construct, id: string): kms.Key {
  const key = new kms.Key(scope, id, {
    description: 'gym-bridge SNS topics (alarms and operations notifications)',
    enableKeyRotation: true,
  });
  const ownTopics = Stack.of(scope).formatArn({ service: 'sns', resource: '*' });
  for (const [sid, service] of [
    ['AllowCloudWatchAlarmsToPublishToEncryptedTopics', 'cloudwatch.amazonaws.com'],
    ['AllowEventBridgeRulesToPublishToEncryptedTopics', 'events.amazonaws.com'],
  ] as const) {
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid,
        principals: [new iam.ServicePrincipal(service)],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringLike: { 'kms:EncryptionContext:aws:sns:topicArn': ownTopics } },
      }),
    );
  }
  return key;
}

export interface NotificationTopicProps {
  /** Shown in e-mails. */
  readonly displayName: string;
  /** Key of the topic; see `createTopicKey`. @default a new key from createTopicKey */
  readonly encryptionKey?: kms.IKey;
  /** Subscribe this address (the recipient must confirm). @default no subscription */
  readonly email?: string;
}

export class NotificationTopic extends Construct {
  public readonly topic: sns.ITopic;

  constructor(scope: Construct, id: string, props: NotificationTopicProps) {
    super(scope, id);
    const topic = new sns.Topic(this, 'Topic', {
      displayName: props.displayName,
      masterKey: props.encryptionKey ?? createTopicKey(this, 'Key'),
      enforceSSL: true,
    });
    // The topic policy replaces SNS's default one: say explicitly that this account's alarms may publish.
    const stack = Stack.of(this);
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowThisAccountsAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
          StringEquals: { 'aws:SourceAccount': stack.account },
        },
      }),
    );
    if (props.email) topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.topic = topic;
  }
}

/**
 * An EventBridge rule target publishing to `topic`, like the L2 `SnsTopic` target, but whose topic
 * policy statement lets EventBridge publish for this rule of this account only (`aws:SourceArn`,
 * `aws:SourceAccount`), where `SnsTopic` grants `events.amazonaws.com` with no condition (and its
 * key likewise: this target grants no key; createTopicKey's key serves it).
 */
export class TopicRuleTarget implements events.IRuleTarget {
  constructor(
    private readonly topic: sns.ITopic,
    private readonly props: targets.SnsTopicProps = {},
  ) {}

  bind(rule: events.IRule, _id?: string): events.RuleTargetConfig {
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: `Allow${Names.nodeUniqueId(rule.node)}ToPublish`,
        principals: [new iam.ServicePrincipal('events.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnEquals: { 'aws:SourceArn': rule.ruleArn },
          StringEquals: { 'aws:SourceAccount': Stack.of(rule).account },
        },
      }),
    );
    if (this.props.deadLetterQueue)
      targets.addToDeadLetterQueueResourcePolicy(rule, this.props.deadLetterQueue);
    return {
      ...targets.bindBaseTargetConfig(this.props),
      arn: this.topic.topicArn,
      input: this.props.message,
      targetResource: this.topic,
    };
  }
}
