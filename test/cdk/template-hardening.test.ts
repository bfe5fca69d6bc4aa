/**
 * The template's guards against a confused deputy and against losing data with the stack (issue
 * 32): AWS services publish to the operations and alarm topics, and use their key, only on behalf
 * of this account's rules and alarms and only through this account's SNS topics; the archive and
 * the example rules' queues follow `retainData`; the example rules' dead-letter queues raise an
 * alarm as the poll DLQ does.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { onlyResource, type Resource, synthTemplate } from './support';

let prod: Template;
let dev: Template;

beforeAll(() => {
  prod = synthTemplate({ stage: 'prod', alarmEmail: 'ops@example.com' }).template;
  dev = synthTemplate({ stage: 'dev' }).template;
}, 180_000); // two synths with cdk-nag: a minute on a busy 2-core machine

type Statement = {
  Principal?: { Service?: string };
  Action?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
};
const statementsOf = (template: Template, type: string, property: 'PolicyDocument' | 'KeyPolicy') =>
  (Object.values(template.findResources(type)) as Resource[]).flatMap(
    (r) => (r.Properties[property] as { Statement: Statement[] }).Statement,
  );
const byService = (statements: Statement[], service: string) =>
  statements.filter((s) => s.Principal?.Service === service);

describe('confused deputy: service principals act for this account only', () => {
  it('EventBridge may publish to the operations topic only for the example rules of this account', () => {
    const topic = onlyResource(prod, 'AWS::SNS::Topic', (p) => String(p.DisplayName).includes('operations'));
    const rules = Object.keys(
      prod.findResources('AWS::Events::Rule', {
        Properties: { Targets: Match.arrayWith([Match.objectLike({ Arn: { Ref: topic.id } })]) },
      }),
    );
    expect(rules).toHaveLength(2);
    for (const rule of rules) {
      prod.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topic.id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'events.amazonaws.com' },
              Action: 'sns:Publish',
              Condition: {
                ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [rule, 'Arn'] } },
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              },
            }),
          ]),
        },
      });
    }
    for (const template of [prod, dev]) {
      const publishes = byService(
        statementsOf(template, 'AWS::SNS::TopicPolicy', 'PolicyDocument'),
        'events.amazonaws.com',
      );
      expect(publishes.length).toBeGreaterThan(0);
      for (const s of publishes)
        expect(Object.keys(s.Condition ?? {}).sort()).toEqual(['ArnEquals', 'StringEquals']);
    }
  });

  it('the topics\u2019 key serves CloudWatch and EventBridge only through SNS topics of this account', () => {
    const throughOwnTopics = {
      StringLike: {
        'kms:EncryptionContext:aws:sns:topicArn': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':sns:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':*',
            ],
          ],
        },
      },
    };
    for (const service of ['events.amazonaws.com', 'cloudwatch.amazonaws.com']) {
      prod.hasResourceProperties('AWS::KMS::Key', {
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Principal: { Service: service },
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
              Condition: throughOwnTopics,
            }),
          ]),
        },
      });
    }
    for (const template of [prod, dev]) {
      const keyStatements = statementsOf(template, 'AWS::KMS::Key', 'KeyPolicy').filter(
        (s) => s.Principal?.Service,
      );
      expect(keyStatements.length).toBeGreaterThanOrEqual(2);
      for (const s of keyStatements) expect(s.Condition).toEqual(throughOwnTopics);
    }
  });
});

describe('retainData', () => {
  it('keeps the archive with the stack in prod, deletes it in dev', () => {
    expect(onlyResource(prod, 'AWS::Events::Archive').resource.DeletionPolicy).toBe('Retain');
    expect(onlyResource(dev, 'AWS::Events::Archive').resource.DeletionPolicy).toBe('Delete');
  });

  it('keeps the example rules\u2019 queues (events not yet delivered) in prod, deletes them in dev', () => {
    const exampleQueues = (template: Template) =>
      Object.entries(template.findResources('AWS::SQS::Queue') as Record<string, Resource>).filter(([id]) =>
        id.startsWith('ExampleRules'),
      );
    expect(exampleQueues(prod)).toHaveLength(3);
    for (const [id, queue] of exampleQueues(prod)) expect(queue.DeletionPolicy, id).toBe('Retain');
    for (const [id, queue] of exampleQueues(dev)) expect(queue.DeletionPolicy, id).toBe('Delete');
  });
});

describe('example rules\u2019 dead-letter queues', () => {
  it('each raises an alarm, on the alarm topic, when it holds a message', () => {
    const dlqs = Object.keys(prod.findResources('AWS::SQS::Queue')).filter(
      (id) => id.startsWith('ExampleRules') && id.includes('DeadLetterQueue'),
    );
    expect(dlqs).toHaveLength(2);
    for (const dlq of dlqs) {
      prod.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
        AlarmDescription: Match.stringLikeRegexp('Runbook: docs/deploy.md#ruledeadletterqueuenotempty'),
      });
    }
  });
});
