/**
 * An SNS topic for people: encrypted with a customer managed key that CloudWatch alarms and
 * EventBridge rules may use (the AWS managed `aws/sns` key cannot be granted to them), TLS only,
 * publishable by this account's alarms, with an optional e-mail subscription.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/**
 * A customer managed key (yearly rotation) for the bridge's SNS topics. CloudWatch alarms may use it
 * to publish (AWS's documented statement for services publishing to encrypted topics; the topic
 * policy below limits publishing to this account's alarms). EventBridge rules get their own key
 * statement from the L2 `SnsTopic` target when a rule targets the topic.
 */
export function createTopicKey(scope: Construct, id: string): kms.Key {
  const key = new kms.Key(scope, id, {
    description: 'gym-bridge SNS topics (alarms and operations notifications)',
    enableKeyRotation: true,
  });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublishToEncryptedTopics',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
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
