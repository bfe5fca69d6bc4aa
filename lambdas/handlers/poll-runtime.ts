/**
 * What the poll handler runs with (registry, secrets, store, sink, API clients, metrics), built once
 * per container from the contract's environment variables (a missing or invalid one fails the load,
 * naming it). The AWS clients take the one SDK retry configuration (common/aws-clients.ts).
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ClubRegistry } from '../clubs/club-registry';
import { type ClubSecretsReader, SecretsManagerClubSecrets } from '../clubs/club-secrets';
import { DynamoDbClubRegistry } from '../clubs/dynamodb-club-registry';
import { awsClientConfig } from '../common/aws-clients';
import { ENV } from '../common/deployment-contract';
import { createMetrics } from '../common/metrics';
import { type ClientFactory, GymApiClientFactory } from '../engine/club-poll/client-factory';
import type { PiiPolicy } from '../events/pii';
import { EventBridgeSink, type EventSink } from '../events/publisher';
import { DynamoDbStateStore } from '../state/dynamodb-store';
import type { StateStore } from '../state/state-store';
import { type Env, eventSourceEnv, optionalNumberEnv, piiPolicyEnv, requiredEnv } from './runtime-env';

export interface PollRuntime {
  readonly registry: ClubRegistry;
  readonly secrets: ClubSecretsReader;
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly clients: ClientFactory;
  readonly metrics: Metrics;
  readonly piiPolicyDefault: PiiPolicy;
  /** Only secrets under this prefix are read (CLUB_SECRET_PREFIX). */
  readonly secretPrefix?: string;
  /** Most a poll may use (POLL_DEADLINE_MS); the invocation's remaining time caps it too. */
  readonly pollDeadlineMs?: number;
}

/** The poll handler's runtime from the environment (every variable read here, at load). */
export function pollRuntimeFromEnv(env: Env): PollRuntime {
  const tableName = requiredEnv(env, ENV.stateTable);
  const busName = requiredEnv(env, ENV.eventBus);
  const secretPrefix = requiredEnv(env, ENV.clubSecretPrefix);
  const pollDeadlineMs = optionalNumberEnv(env, ENV.pollDeadlineMs);
  const secretTtlMs = optionalNumberEnv(env, ENV.clubSecretCacheTtlMs);
  const maxResponseBytes = optionalNumberEnv(env, ENV.maxResponseBytes);
  const source = eventSourceEnv(env);
  const piiPolicyDefault = piiPolicyEnv(env);
  const dynamo = new DynamoDBClient(awsClientConfig());
  return {
    registry: new DynamoDbClubRegistry({ client: dynamo, tableName }),
    secrets: new SecretsManagerClubSecrets({
      client: new SecretsManagerClient(awsClientConfig()),
      ...(secretTtlMs === undefined ? {} : { ttlMs: secretTtlMs }),
    }),
    store: new DynamoDbStateStore({ client: dynamo, tableName }),
    sink: new EventBridgeSink({ client: new EventBridgeClient(awsClientConfig()), busName, source }),
    clients: new GymApiClientFactory(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
    metrics: createMetrics(),
    piiPolicyDefault,
    secretPrefix,
    ...(pollDeadlineMs === undefined ? {} : { pollDeadlineMs }),
  };
}
