/**
 * A DynamoDBClient whose HTTP layer is a function (no sockets): each request is answered by
 * `answer(operation)`, so a throttle reaches the client through the whole middleware stack, the
 * SDK's retry strategy included (aws-sdk-client-mock replaces `send` and would skip it).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type AwsClientConfig, awsClientConfig } from '../../../lambdas/common/aws-clients';

export interface FakeAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** DynamoDB's answer to a throttled call (HTTP 400, JSON 1.0 error shape). */
export function throttledAnswer(
  type:
    | 'ProvisionedThroughputExceededException'
    | 'ThrottlingException' = 'ProvisionedThroughputExceededException',
): FakeAnswer {
  return { status: 400, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: 'slow down' } };
}

export function okAnswer(body: Record<string, unknown> = {}): FakeAnswer {
  return { status: 200, body };
}

export interface FakeDynamoDb {
  readonly client: DynamoDBClient;
  /** The operation of every HTTP request sent, retries included (e.g. 'Query'). */
  readonly requests: string[];
}

export function fakeDynamoDb(
  answer: (operation: string, attempt: number) => FakeAnswer,
  config: Partial<AwsClientConfig> = {},
): FakeDynamoDb {
  const requests: string[] = [];
  const requestHandler = {
    async handle(request: { headers: Record<string, string> }) {
      const target = request.headers['x-amz-target'] ?? request.headers['X-Amz-Target'] ?? '';
      const operation = target.split('.').pop() ?? '';
      requests.push(operation);
      const { status, body } = answer(operation, requests.filter((o) => o === operation).length);
      return {
        response: {
          statusCode: status,
          reason: status === 200 ? 'OK' : 'Bad Request',
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: new TextEncoder().encode(JSON.stringify(body)),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
  };
  const client = new DynamoDBClient({
    ...awsClientConfig(config),
    region: 'us-east-1',
    endpoint: 'http://dynamodb.invalid',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler,
  });
  return { client, requests };
}
