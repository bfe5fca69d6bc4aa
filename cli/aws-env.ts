/**
 * AWS clients for the CLI, configured by the standard SDK environment (AWS_REGION,
 * AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_EVENTBRIDGE, AWS_PROFILE, AWS_ACCESS_KEY_ID, ...) and
 * the runtime's one retry configuration (`common/aws-clients.ts`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { awsClientConfig } from '../lambdas/common/aws-clients';
import { CliUsageError } from './args';

/** The region the SDK environment names (a local endpoint alone: us-east-1), or a usage error. */
export function region(): string {
  const value = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (value) return value;
  // A local endpoint (dynalite, a local EventBridge) does not care about the region.
  if (
    process.env.AWS_ENDPOINT_URL_DYNAMODB ||
    process.env.AWS_ENDPOINT_URL_EVENTBRIDGE ||
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER ||
    process.env.AWS_ENDPOINT_URL_SQS ||
    process.env.AWS_ENDPOINT_URL
  ) {
    return 'us-east-1';
  }
  throw new CliUsageError(
    'AWS_REGION is not set: set it (e.g. AWS_REGION=eu-west-1) or point AWS_ENDPOINT_URL_* at a local endpoint',
  );
}

export function dynamoDbClient(): DynamoDBClient {
  return new DynamoDBClient({ ...awsClientConfig(), region: region() });
}

export function eventBridgeClient(): EventBridgeClient {
  return new EventBridgeClient({ ...awsClientConfig(), region: region() });
}
