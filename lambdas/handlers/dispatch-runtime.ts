/**
 * What the dispatch handler runs with: the club registry, the state store, the poll queue and the
 * metrics, built once per container from the contract's environment variables (a missing or invalid
 * one fails the load, naming it). The AWS clients take the one SDK retry configuration.
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { ClubRegistry } from '../clubs/club-registry';
import { DynamoDbClubRegistry } from '../clubs/dynamodb-club-registry';
import { awsClientConfig } from '../common/aws-clients';
import { DEFAULT_SOURCE_OVERDUE_MINUTES, ENV } from '../common/deployment-contract';
import { createMetrics } from '../common/metrics';
import { DEFAULT_QUOTA_RESERVE } from '../common/plans';
import { type PollQueue, SqsPollQueue } from '../common/poll-queue';
import { DynamoDbStateStore } from '../state/dynamodb-store';
import type { StateStore } from '../state/state-store';
import {
  type Env,
  optionalNumberEnv,
  quotaReserveEnv,
  requiredEnv,
  sourceOverdueMinutesEnv,
} from './runtime-env';

export interface DispatchRuntime {
  readonly registry: ClubRegistry;
  readonly store: StateStore;
  readonly queue: PollQueue;
  readonly reserve: number;
  readonly overdueMinimumMs: number;
  readonly spreadSeconds: number;
  readonly metrics: Metrics;
}

/** `DISPATCH_SPREAD_SECONDS`: whole seconds in 0..MAX_SPREAD_SECONDS, 0 when unset. */
export function spreadSecondsEnv(env: Env): number {
  return optionalNumberEnv(env, ENV.dispatchSpreadSeconds) ?? 0;
}

/** `POLL_CLUBS_PER_MESSAGE`: clubs a poll message carries, 1..MAX_CLUBS_PER_MESSAGE, 1 when unset. */
export function clubsPerMessageEnv(env: Env): number {
  return optionalNumberEnv(env, ENV.pollClubsPerMessage) ?? 1;
}

/** The dispatch handler's runtime from the environment (every variable read here, at load). */
export function dispatchRuntimeFromEnv(env: Env): DispatchRuntime {
  const tableName = requiredEnv(env, ENV.stateTable);
  const queueUrl = requiredEnv(env, ENV.pollQueueUrl);
  const reserve = quotaReserveEnv(env, DEFAULT_QUOTA_RESERVE);
  const overdueMinimumMs = sourceOverdueMinutesEnv(env, DEFAULT_SOURCE_OVERDUE_MINUTES) * 60_000;
  const spreadSeconds = spreadSecondsEnv(env);
  const clubsPerMessage = clubsPerMessageEnv(env);
  const dynamo = new DynamoDBClient(awsClientConfig());
  return {
    registry: new DynamoDbClubRegistry({ client: dynamo, tableName }),
    store: new DynamoDbStateStore({ client: dynamo, tableName }),
    queue: new SqsPollQueue({ client: new SQSClient(awsClientConfig()), queueUrl, clubsPerMessage }),
    reserve,
    overdueMinimumMs,
    spreadSeconds,
    metrics: createMetrics(),
  };
}
