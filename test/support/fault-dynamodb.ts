/**
 * DynamoDB throttling for a real SDK client: a middleware that answers a share of attempts with
 * ProvisionedThroughputExceededException before they are sent (DynamoDB guarantees a throttled call
 * was not applied). It sits right after the SDK's retry middleware, so each attempt may be throttled
 * and the SDK's own retry strategy (what the store relies on, `common/aws-clients.ts`) retries it;
 * against dynalite with the real SDK. The client's retry waits are made short (at most 10 ms) so a
 * chaos run stays fast; its attempts per call are the client's `maxAttempts`.
 */
import { type DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import type { FinalizeRequestMiddleware, MetadataBearer } from '@smithy/types';
import type { FaultInjector } from './fault-injector';

export function injectDynamoDbThrottling(client: DynamoDBClient, injector: FaultInjector): void {
  const strategy = new ConfiguredRetryStrategy(client.config.maxAttempts, (attempt) =>
    Math.min(10, 2 ** attempt),
  );
  client.config.retryStrategy = async () => strategy;
  const throttling: FinalizeRequestMiddleware<object, MetadataBearer> = (next, context) => async (args) => {
    if (injector.roll(injector.rates.dynamoThrottleRate)) {
      injector.count('dynamodb-throttle');
      throw new ProvisionedThroughputExceededException({
        message: `injected throttling of ${String(context.commandName)}`,
        $metadata: { httpStatusCode: 400 },
      });
    }
    return next(args);
  };
  client.middlewareStack.addRelativeTo(
    throttling as Parameters<DynamoDBClient['middlewareStack']['addRelativeTo']>[0],
    { relation: 'after', toMiddleware: 'retryMiddleware', name: 'chaosThrottlingMiddleware' },
  );
}
