import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { AWS_MAX_ATTEMPTS, awsClientConfig } from '../../../lambdas/common/aws-clients';

describe('awsClientConfig', () => {
  it('gives the standard retry mode and the documented attempts, overridable', () => {
    // Act
    const defaults = awsClientConfig();
    const fewer = awsClientConfig({ maxAttempts: 1 });

    // Assess
    expect(defaults).toEqual({ maxAttempts: AWS_MAX_ATTEMPTS, retryMode: 'standard' });
    expect(AWS_MAX_ATTEMPTS).toBe(5);
    expect(fewer).toEqual({ maxAttempts: 1, retryMode: 'standard' });
  });

  it('is what an SDK client built with it retries by (no request sent)', async () => {
    // Prepare
    const client = new DynamoDBClient({ ...awsClientConfig(), region: 'us-east-1' });

    // Act
    const maxAttempts = await client.config.maxAttempts();
    const strategy = await client.config.retryStrategy();

    // Assess
    expect(maxAttempts).toBe(AWS_MAX_ATTEMPTS);
    expect(strategy).toMatchObject({ mode: 'standard' });
    client.destroy();
  });
});
