/** What monitoring watches: the poller's functions, queues and log groups (lib/constructs/poller.ts). */
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

export interface MonitoredPoller {
  readonly dispatchFunction: lambda.IFunction;
  readonly pollFunction: lambda.IFunction;
  readonly pollQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  /** The dispatch function's log group: the overdue-sources query and dashboard widget read it. */
  readonly dispatchLogGroup: logs.ILogGroup;
  /** The poll function's log group: the per-club activity query reads its EMF lines. */
  readonly pollLogGroup: logs.ILogGroup;
}
