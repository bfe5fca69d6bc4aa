/**
 * AWS list prices used by the cost model: US East (N. Virginia), on-demand, no free tier, no
 * savings plans. Checked on 2026-11-22 against the AWS pricing pages named here (and, where a page
 * renders its rates client-side, against published summaries of them); update them here only.
 * DynamoDB's provisioned capacity-hours (no reserved capacity) were checked the same way on
 * 2026-11-27.
 */
export const PRICE_REGION = 'us-east-1';
export const PRICE_DATE = '2026-11-24';

export interface Price {
  readonly usd: number;
  readonly unit: string;
  readonly source: string;
}

export const PRICES = {
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second (arm64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaX86GbSecond: {
    usd: 0.0000166667,
    unit: 'GB-second (x86_64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'request', source: 'https://aws.amazon.com/lambda/pricing/' },
  dynamoReadUnit: {
    usd: 0.125 / 1e6,
    unit: 'read request unit (on-demand, since 2024-11-01)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoWriteUnit: {
    usd: 0.625 / 1e6,
    unit: 'write request unit (on-demand, since 2024-11-01)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoReadCapacityUnitHour: {
    usd: 0.00013,
    unit: 'read capacity unit-hour (provisioned)',
    source: 'https://aws.amazon.com/dynamodb/pricing/provisioned/',
  },
  dynamoWriteCapacityUnitHour: {
    usd: 0.00065,
    unit: 'write capacity unit-hour (provisioned)',
    source: 'https://aws.amazon.com/dynamodb/pricing/provisioned/',
  },
  dynamoStorageGbMonth: {
    usd: 0.25,
    unit: 'GB-month',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  eventBridgeEvent: {
    usd: 1 / 1e6,
    unit: 'custom event (each 64 KB chunk)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  schedulerInvocation: {
    usd: 1 / 1e6,
    unit: 'scheduled invocation (after 14 M free a month)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'standard queue request (each 64 KB chunk)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  secretsApiCall: {
    usd: 0.05 / 1e4,
    unit: 'API call',
    source: 'https://aws.amazon.com/secrets-manager/pricing/',
  },
  secretMonth: { usd: 0.4, unit: 'secret-month', source: 'https://aws.amazon.com/secrets-manager/pricing/' },
  cloudWatchMetricMonth: {
    usd: 0.3,
    unit: 'custom metric-month (first 10,000 metrics)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchLogsGb: {
    usd: 0.5,
    unit: 'GB of logs ingested (standard)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchLogsStorageGbMonth: {
    usd: 0.03,
    unit: 'GB-month of logs stored (archived)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchAlarmMonth: {
    usd: 0.1,
    unit: 'standard-resolution alarm metric-month',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchDashboardMonth: {
    usd: 3,
    unit: 'dashboard-month (beyond the 3 free)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  dynamoPitrGbMonth: {
    usd: 0.2,
    unit: 'GB-month of point-in-time recovery (continuous backups)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  eventBridgeArchiveGb: {
    usd: 0.1,
    unit: 'GB of events archived (processing)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  eventBridgeArchiveStorageGbMonth: {
    usd: 0.023,
    unit: 'GB-month of archived events stored',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  kmsKeyMonth: { usd: 1, unit: 'customer managed key-month', source: 'https://aws.amazon.com/kms/pricing/' },
  dataTransferOutGb: {
    usd: 0.09,
    unit: 'GB out to the internet (first 10 TB, after 100 GB free a month per account)',
    source: 'https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer',
  },
} as const satisfies Record<string, Price>;

/** Free each month before the prices above apply, account-wide (stated, and applied fleet-wide). */
export const FREE_TIERS = {
  schedulerInvocations: 14_000_000,
  dataTransferOutGb: 100,
  dashboards: 3,
} as const;

/**
 * Latencies the Lambda duration model adds to the measured local poll time. They are assumptions
 * (the sandbox and the in-memory store answer in microseconds), stated here and in the report; the
 * report also shows the cost with no added latency and with the API at 500 ms.
 */
export const LATENCY_ASSUMPTIONS_MS = {
  /** One gym API request from Lambda (TLS reuse, 500-row page) to an API in another region or cloud. */
  gymApiRequest: 400,
  /** One DynamoDB request in the same region. */
  dynamoRequest: 5,
  /** One PutEvents request. */
  putEventsRequest: 20,
  /** One GetSecretValue. */
  secretsRequest: 20,
} as const;
