/**
 * AWS list prices used by the cost model: US East (N. Virginia), on-demand, no free tier, no
 * savings plans. Checked on 2026-11-22 against the AWS pricing pages named here (and, where a page
 * renders its rates client-side, against published summaries of them); update them here only.
 */
export const PRICE_REGION = 'us-east-1';
export const PRICE_DATE = '2026-11-22';

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
} as const satisfies Record<string, Price>;

/**
 * Latencies the Lambda duration model adds to the measured local poll time. They are assumptions
 * (the sandbox and the in-memory store answer in microseconds), stated here and in the report; the
 * report also shows the cost with no added latency and with the API at 500 ms.
 */
export const LATENCY_ASSUMPTIONS_MS = {
  /** One gym API request from Lambda (TLS reuse, 500-row page). */
  gymApiRequest: 200,
  /** One DynamoDB request in the same region. */
  dynamoRequest: 5,
  /** One PutEvents request. */
  putEventsRequest: 20,
  /** One GetSecretValue. */
  secretsRequest: 20,
} as const;
