/**
 * The consumer team's stack: subscribes the notifier Lambda to the gym-bridge bus, which another
 * team owns and this stack only imports (by ARN).
 *
 * - The subscriptions: Member Status Changed with `detail.status` = PaymentIssue and Payment Failed
 *   with `detail.reason` = dishonoured, from the bridge's event source, pinned to the
 *   `eventVersion` the handler parses (docs/events-versioning.md: during a version change the
 *   bridge publishes both versions, and this rule keeps getting the one it knows).
 * - The function: Node.js 22 on arm64, bundled by the locally installed esbuild (no Docker),
 *   ES module with source maps.
 * - Nothing is dropped: an event the rule cannot deliver (after 24 hours of retries) and an event
 *   the function refuses or fails on (after Lambda's two asynchronous retries) both land in one
 *   dead-letter queue.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The bridge's typed subscription construct: the package @gym-bridge/cdk (npm run build:events
// builds it in dist/cdk beside dist/events; here tsconfig `paths` maps it to its source).
import { BridgeSubscription } from '@gym-bridge/cdk';
import { DEFAULT_EVENT_SOURCE, DETAIL_TYPES, type DetailType, EVENT_VERSION } from '@gym-bridge/events';
import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DISHONOURED, PAYMENT_ISSUE_STATUS } from '../src/payment-alerts';

const EXAMPLE_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface PaymentIssueNotifierStackProps extends StackProps {
  /** ARN of the gym-bridge bus (the bridge stack's `EventBusArn` output). */
  readonly eventBusArn: string;
  /** The bridge deployment's event source. @default 'gym-bridge' */
  readonly eventSource?: string;
}

export class PaymentIssueNotifierStack extends Stack {
  public readonly function: NodejsFunction;
  /** The rules on the bridge's bus; `pattern` of each is what its rule gets. */
  public readonly subscriptions: readonly BridgeSubscription<DetailType>[];
  public readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: PaymentIssueNotifierStackProps) {
    super(scope, id, props);
    const bus = events.EventBus.fromEventBusArn(this, 'GymBridgeBus', props.eventBusArn);

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.function = new NodejsFunction(this, 'Notifier', {
      entry: join(EXAMPLE_ROOT, 'src', 'handler.ts'),
      handler: 'handler',
      description: 'gym-bridge consumer: alerts on members moving to PaymentIssue and dishonoured payments',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      logGroup: new logs.LogGroup(this, 'NotifierLogs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
      environment: { NODE_OPTIONS: '--enable-source-maps' },
      // Lambda's asynchronous retries, then the dead-letter queue (a refused event is not lost).
      retryAttempts: 2,
      onFailure: new SqsDestination(this.deadLetterQueue),
      bundling: {
        tsconfig: join(EXAMPLE_ROOT, 'tsconfig.json'), // resolves @gym-bridge/events
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        forceDockerBundling: false,
      },
    });

    const target = new targets.LambdaFunction(this.function, {
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: 185,
      maxEventAge: Duration.hours(24),
    });
    // Typed subscriptions: the detail-type comes from the catalog and the detail pattern is checked
    // against the event's detail type, so `{ stauts: [...] }` or `{ reason: ['dishonored'] }` does
    // not compile.
    const eventSource = props.eventSource ?? DEFAULT_EVENT_SOURCE;
    this.subscriptions = [
      new BridgeSubscription(this, 'PaymentIssueRule', {
        eventBus: bus,
        eventSource,
        description: 'gym-bridge: a member moved to PaymentIssue',
        detailType: DETAIL_TYPES.MemberStatusChanged,
        detail: { eventVersion: [EVENT_VERSION], status: [PAYMENT_ISSUE_STATUS] },
        targets: [target],
      }),
      new BridgeSubscription(this, 'DishonouredPaymentRule', {
        eventBus: bus,
        eventSource,
        description: 'gym-bridge: a direct debit came back dishonoured',
        detailType: DETAIL_TYPES.PaymentFailed,
        detail: { eventVersion: [EVENT_VERSION], reason: [DISHONOURED] },
        targets: [target],
      }),
    ];
  }
}
