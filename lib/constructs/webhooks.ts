/**
 * Webhook delivery (docs/webhooks.md), deployed once; endpoints are data (the webhook table and the
 * shared key secrets), added by the CLI without a deploy:
 *
 *   bus --(one rule: every event of the bridge's source)--> ingest queue --> fan-out Lambda
 *     --(first attempt, healthy endpoints under their rate)--> HTTPS endpoints
 *     --(the others, retries, hand-offs: MessageGroupId = endpoint)--> delivery queue
 *     (an SQS fair queue) --> delivery Lambda --> HTTPS endpoints
 *
 * Both functions attempt deliveries, so both have what an attempt needs: the table (health, dead
 * letters), the key secrets, the bus (Webhook Delivery Failed, Webhook Endpoint Disabled).
 *
 * The webhook table is its own (on demand, TTL, point-in-time recovery), so the delivery Lambdas,
 * which call URLs the operator adds, get no access to the clubs' state. Both queues have a
 * dead-letter queue for messages that fail every receive (a bug, not an endpoint's failure: those
 * are the endpoints' dead letters in the table). Grants set the environment that goes with them.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, HANDLER_ENTRIES } from '../../lambdas/common/deployment-contract';
import { stateTableKeySchema } from '../../lambdas/state/table';
import { BridgeFunction } from './bridge-function';
import type { BridgeEventBus } from './event-bus';

export interface WebhookDeliveryProps {
  readonly eventBus: BridgeEventBus;
  /** Secrets Manager name prefix of the shared signing-key secrets (ends in /). */
  readonly secretNamePrefix: string;
  /**
   * Most concurrent fan-out invocations (2..1000): each paces endpoints at rate / this. Each one
   * drains the ingest queue while it has events (receives paced so that each carries several), so
   * a few carry a fleet: 3 at 256 MB make some 150 first attempts a second; more share the
   * arrivals (fewer events a receive). @default 3
   */
  readonly fanOutConcurrency?: number;
  /** Most concurrent delivery invocations (2..1000). @default 50 */
  readonly deliveryConcurrency?: number;
  /** Entry files (tests pass fixtures). @default HANDLER_ENTRIES */
  readonly entries?: { readonly webhookFanOut: string; readonly webhookDeliver: string };
  readonly serviceName?: string;
  readonly logRetention?: logs.RetentionDays;
  /** Log groups and the table on stack deletion. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** The delivery Lambda's timeout: an attempt's 15 s, a few in a row for one endpoint, and margin. */
const DELIVER_TIMEOUT = Duration.seconds(60);
const FAN_OUT_TIMEOUT = Duration.seconds(30);

export class WebhookDelivery extends Construct {
  public readonly table: dynamodb.ITable;
  public readonly ingestQueue: sqs.IQueue;
  public readonly ingestDeadLetterQueue: sqs.IQueue;
  public readonly deliveryQueue: sqs.IQueue;
  public readonly deliveryDeadLetterQueue: sqs.IQueue;
  public readonly rule: events.IRule;
  public readonly fanOutFunction: lambda.IFunction;
  public readonly deliverFunction: lambda.IFunction;
  public readonly fanOutLogGroup: logs.ILogGroup;
  public readonly deliverLogGroup: logs.ILogGroup;
  public readonly secretNamePrefix: string;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const fanOutConcurrency = props.fanOutConcurrency ?? 3;
    const entries = props.entries ?? HANDLER_ENTRIES;
    this.secretNamePrefix = props.secretNamePrefix;
    const { partitionKey, sortKey, timeToLiveAttribute } = stateTableKeySchema;
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: partitionKey.name, type: dynamodb.AttributeType.STRING },
      sortKey: { name: sortKey.name, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    });
    this.table = table;

    const ingest = this.#queueWithDeadLetters(
      'Ingest',
      FAN_OUT_TIMEOUT.toSeconds() * 6,
      Duration.days(4),
      10,
    );
    const delivery = this.#queueWithDeadLetters(
      'Delivery',
      DELIVER_TIMEOUT.toSeconds() * 6,
      Duration.days(14),
      500,
    );
    this.ingestQueue = ingest.queue;
    this.ingestDeadLetterQueue = ingest.deadLetters;
    this.deliveryQueue = delivery.queue;
    this.deliveryDeadLetterQueue = delivery.deadLetters;

    this.rule = new events.Rule(this, 'Rule', {
      eventBus: props.eventBus.eventBus,
      description: 'gym-bridge webhooks: every event of the bridge, to the webhook fan-out',
      eventPattern: { source: [props.eventBus.eventSource] },
      targets: [
        new targets.SqsQueue(ingest.queue, {
          deadLetterQueue: ingest.deadLetters,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });

    const { fanOut, deliver } = this.#functions(props, entries, removalPolicy, fanOutConcurrency);
    this.fanOutFunction = fanOut.function;
    this.deliverFunction = deliver.function;
    this.fanOutLogGroup = fanOut.logGroup;
    this.deliverLogGroup = deliver.logGroup;
    this.#wire(props, fanOut.function, deliver.function, fanOutConcurrency);
  }

  /** The fan-out and delivery functions. */
  #functions(
    props: WebhookDeliveryProps,
    entries: { readonly webhookFanOut: string; readonly webhookDeliver: string },
    removalPolicy: RemovalPolicy,
    fanOutConcurrency: number,
  ): { fanOut: BridgeFunction; deliver: BridgeFunction } {
    const common = {
      serviceName: props.serviceName,
      logRetention: props.logRetention,
      logRemovalPolicy: removalPolicy,
    };
    const fanOut = new BridgeFunction(this, 'FanOut', {
      ...common,
      entry: entries.webhookFanOut,
      description:
        'gym-bridge webhooks: matches each event against the endpoints, attempts its deliveries to healthy ones, queues the others',
      memorySize: 256,
      timeout: FAN_OUT_TIMEOUT,
      environment: { [ENV.webhookFanOutConcurrency]: String(fanOutConcurrency) },
    });
    const deliver = new BridgeFunction(this, 'Deliver', {
      ...common,
      entry: entries.webhookDeliver,
      description: 'gym-bridge webhooks: signs and sends deliveries, retries, isolates failing endpoints',
      // Mostly waiting on endpoints: memory buys CPU it barely uses.
      memorySize: 256,
      timeout: DELIVER_TIMEOUT,
    });
    return { fanOut, deliver };
  }

  /** Grants (each with its environment variable) and the two event sources. */
  #wire(
    props: WebhookDeliveryProps,
    fanOut: lambda.Function,
    deliver: lambda.Function,
    fanOutConcurrency: number,
  ): void {
    const table = this.table;
    const deliveryQueue = this.deliveryQueue;
    for (const fn of [fanOut, deliver]) {
      table.grantReadWriteData(fn);
      fn.addEnvironment(ENV.webhookTable, table.tableName);
      fn.addEnvironment(ENV.webhookQueueUrl, deliveryQueue.queueUrl);
      deliveryQueue.grantSendMessages(fn);
      props.eventBus.grantPutEventsTo(fn);
      this.#grantKeys(fn);
    }
    // The fan-out drains the ingest queue itself too, between its event source's invocations.
    this.ingestQueue.grantConsumeMessages(fanOut);
    fanOut.addEnvironment(ENV.webhookIngestQueueUrl, this.ingestQueue.queueUrl);
    fanOut.addEventSource(
      new SqsEventSource(this.ingestQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: fanOutConcurrency,
      }),
    );
    deliver.addEventSource(
      new SqsEventSource(deliveryQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: props.deliveryConcurrency ?? 50,
      }),
    );
  }

  #queueWithDeadLetters(
    name: string,
    visibilitySeconds: number,
    retention: Duration,
    maxReceiveCount: number,
  ) {
    const deadLetters = new sqs.Queue(this, `${name}DeadLetterQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(deadLetters).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue (of the webhook ingest or delivery queue, or of the rule target).',
    });
    const queue = new sqs.Queue(this, `${name}Queue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(visibilitySeconds),
      retentionPeriod: retention,
      deadLetterQueue: { queue: deadLetters, maxReceiveCount },
    });
    return { queue, deadLetters };
  }

  /** GetSecretValue on the key secrets only (they are created by the CLI, names unknown here). */
  #grantKeys(fn: lambda.Function): void {
    fn.addEnvironment(ENV.webhookSecretPrefix, this.secretNamePrefix);
    const arn = Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${this.secretNamePrefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ReadWebhookKeys',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [arn],
      }),
    );
    if (fn.role) {
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${this.secretNamePrefix}*]`,
        reason:
          'The webhook key secrets are created after deployment by the webhooks CLI (a few shared ones, names unknown here) and each ARN ends in a random suffix: the prefix wildcard is the narrowest grant possible.',
      });
    }
  }
}
