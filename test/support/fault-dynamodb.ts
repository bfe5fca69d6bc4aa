/**
 * DynamoDB throttling for a real SDK client: a middleware that answers a share of calls with
 * ProvisionedThroughputExceededException before they are sent (DynamoDB guarantees a throttled call
 * was not applied), so the store's own retry path runs against dynalite with the real SDK.
 */
import { type DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { FaultInjector } from './fault-injector';

export function injectDynamoDbThrottling(client: DynamoDBClient, injector: FaultInjector): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (injector.roll(injector.rates.dynamoThrottleRate)) {
        injector.count('dynamodb-throttle');
        throw new ProvisionedThroughputExceededException({
          message: `injected throttling of ${String(context.commandName)}`,
          $metadata: { httpStatusCode: 400 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'chaosThrottlingMiddleware', priority: 'high' },
  );
}
