/**
 * An SNS topic for people: encrypted with a customer managed key that CloudWatch alarms and
 * EventBridge rules may use (the AWS managed `aws/sns` key cannot be granted to them), TLS only,
 * with an optional e-mail subscription.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** Services that publish to the bridge's topics and so must use their key. */
const PUBLISHING_SERVICES = ['cloudwatch.amazonaws.com', 'events.amazonaws.com'] as const;

/**
 * A customer managed key (yearly rotation) for the bridge's SNS topics, usable by CloudWatch alarms
 * and EventBridge rules of this account only.
 */
export function createTopicKey(scope: Construct, id: string): kms.Key {
  const key = new kms.Key(scope, id, {
    description: 'gym-bridge SNS topics (alarms and operations notifications)',
    enableKeyRotation: true,
  });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowAlarmsAndRulesToPublishToEncryptedTopics',
      principals: PUBLISHING_SERVICES.map((service) => new iam.ServicePrincipal(service)),
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
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
    if (props.email) topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.topic = topic;
  }
}
