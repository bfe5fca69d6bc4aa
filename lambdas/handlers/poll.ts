/**
 * Poll Lambda (SQS event source, partial batch responses): one poll message per club. For each
 * record: parse and validate the message (a malformed one is logged and dropped, never retried
 * forever), load the club (registry + cached secret), poll it with the engine (`pollClub`) within
 * the invocation's deadline, publish its metrics, and report the record as failed only when its
 * poll failed in a way a retry can fix (API unavailable, publish or store errors). A 401 or 429
 * pauses the club inside the engine (and emits its operational event once): not retried here.
 *
 * A message dispatched before a source's last successful poll is stale for that source (another
 * message already covered it): such sources are skipped, so a backlog of duplicates costs no API
 * requests.
 *
 * Thin by design: `processPollBatch` does the work with its dependencies passed in. AWS clients and
 * configuration are created once per container, on the first invocation.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ClubRecordError } from '../clubs/club-record';
import type { ClubRegistry } from '../clubs/club-registry';
import { ClubSecretError, type ClubSecretsReader, SecretsManagerClubSecrets } from '../clubs/club-secrets';
import { DynamoDbClubRegistry } from '../clubs/dynamodb-club-registry';
import { loadClub } from '../clubs/load-club';
import { ENV } from '../common/deployment-contract';
import { logger } from '../common/logger';
import {
  createMetrics,
  publishClubPollFailure,
  publishClubPollMetrics,
  watermarkLagSeconds,
} from '../common/metrics';
import { type ClientFactory, GymApiClientFactory } from '../engine/client-factory';
import { type ClubReport, type FailureKind, pollClub } from '../engine/poll-club';
import type { PiiPolicy } from '../events/pii';
import { EventBridgeSink, type EventSink } from '../events/publisher';
import { DynamoDbStateStore } from '../state/dynamodb-store';
import type { SourceName, StateStore } from '../state/store';
import { parsePollMessage } from './poll-message';
import { eventSourceEnv, optionalNumberEnv, piiPolicyEnv, requiredEnv } from './runtime-env';

/** Failure kinds a later attempt can fix: the SQS record is retried (and ends in the DLQ if not). */
export const RETRYABLE_FAILURES: ReadonlySet<FailureKind> = new Set<FailureKind>([
  'unavailable',
  'publish',
  'store',
  'conflict',
  'internal',
]);

/** Time kept between the poll deadline and the end of the invocation. */
export const INVOCATION_SAFETY_MS = 5_000;

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

export type RecordOutcome = 'polled' | 'skipped' | 'dropped' | 'retry';

type InvocationContext = Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>;

/** Polls every record of the batch (concurrently) and lists the ones to retry. */
export async function processPollBatch(
  rt: PollRuntime,
  event: SQSEvent,
  context: InvocationContext,
): Promise<SQSBatchResponse> {
  const budget = Math.min(
    rt.pollDeadlineMs ?? Number.POSITIVE_INFINITY,
    context.getRemainingTimeInMillis() - INVOCATION_SAFETY_MS,
  );
  const deadlineMs = Date.now() + Math.max(0, budget);
  const outcomes = await Promise.all(
    event.Records.map(async (record) => {
      try {
        return await pollRecord(rt, record, deadlineMs, `poll:${context.awsRequestId}:${record.messageId}`);
      } catch (err) {
        logger.error('poll record failed unexpectedly', { messageId: record.messageId, err });
        return 'retry' as const;
      }
    }),
  );
  return {
    batchItemFailures: event.Records.filter((_, i) => outcomes[i] === 'retry').map((r) => ({
      itemIdentifier: r.messageId,
    })),
  };
}

async function pollRecord(
  rt: PollRuntime,
  record: SQSRecord,
  deadlineMs: number,
  owner: string,
): Promise<RecordOutcome> {
  const parsed = parsePollMessage(record.body);
  if (!parsed.ok) {
    logger.error('malformed poll message dropped', { messageId: record.messageId, problem: parsed.problem });
    return 'dropped';
  }
  const message = parsed.message;
  const log = logger.createChild({ persistentKeys: { clubId: message.clubId, messageId: record.messageId } });
  const startedMs = Date.now();

  let loaded: Awaited<ReturnType<typeof loadClub>>;
  try {
    loaded = await loadClub(
      {
        registry: rt.registry,
        secrets: rt.secrets,
        piiPolicyDefault: rt.piiPolicyDefault,
        ...(rt.secretPrefix === undefined ? {} : { secretPrefix: rt.secretPrefix }),
      },
      message.clubId,
    );
  } catch (err) {
    publishClubPollFailure(rt.metrics, message.clubId, Date.now() - startedMs);
    if (err instanceof ClubRecordError || (err instanceof ClubSecretError && !err.retryable)) {
      log.error('club cannot be polled: message dropped', { error: err.message });
      return 'dropped';
    }
    log.error('club could not be loaded: retrying', { err });
    return 'retry';
  }
  if (loaded.status === 'unknown') {
    log.warn('poll message for an unknown club dropped');
    return 'dropped';
  }
  if (loaded.status === 'disabled') {
    log.info('poll message for a disabled club dropped');
    return 'dropped';
  }
  const { record: club, config } = loaded;

  const sources = await sourcesStillDue(rt.store, message.clubId, message.sources, message.dispatchedAt);
  if (sources.length === 0) {
    log.info('every source was polled since this message was dispatched: skipped');
    return 'skipped';
  }

  let rateLimited = 0;
  const clients: ClientFactory = {
    forClub: (c, onRequest) =>
      rt.clients.forClub(c, (e) => {
        if (e.status === 429) rateLimited++;
        onRequest(e);
      }),
  };
  let report: ClubReport;
  try {
    report = await pollClub({ store: rt.store, sink: rt.sink, clients, owner }, config, {
      deadlineMs,
      sources,
      ...(message.backfillFrom ? { backfillFromMs: Date.parse(message.backfillFrom) } : {}),
    });
  } catch (err) {
    publishClubPollFailure(rt.metrics, message.clubId, Date.now() - startedMs);
    log.error('club poll failed: retrying', { err });
    return 'retry';
  }
  const nowMs = Date.now();
  publishClubPollMetrics(rt.metrics, {
    report,
    plan: club.plan,
    durationMs: nowMs - startedMs,
    rateLimited,
    nowMs,
  });
  logReport(log, report, nowMs);
  if (report.failures.some((f) => f.kind === 'auth')) rt.secrets.invalidate(club.secretName);
  return report.failures.some((f) => RETRYABLE_FAILURES.has(f.kind)) ? 'retry' : 'polled';
}

/** The message's sources minus those that completed a poll after the message was dispatched. */
async function sourcesStillDue(
  store: StateStore,
  clubId: string,
  sources: readonly SourceName[],
  dispatchedAt: string,
): Promise<SourceName[]> {
  const dispatchedMs = Date.parse(dispatchedAt);
  const cursors = await store.listCursors(clubId);
  const succeededSince = new Set(
    cursors
      .filter((c) => c.health.lastSuccessAt && Date.parse(c.health.lastSuccessAt) > dispatchedMs)
      .map((c) => c.source),
  );
  return sources.filter((s) => !succeededSince.has(s));
}

function logReport(log: typeof logger, report: ClubReport, nowMs: number): void {
  for (const s of report.sources) {
    log.info('source polled', {
      source: s.source,
      outcome: s.outcome,
      ...(s.mode ? { mode: s.mode } : {}),
      pages: s.pages,
      records: s.records,
      events: s.events,
      quarantined: s.quarantined,
      ...(s.watermark ? { watermarkLagSeconds: watermarkLagSeconds(s.watermark, nowMs) } : {}),
    });
  }
  for (const f of report.failures) {
    log.warn('source failed', { source: f.source, kind: f.kind, error: f.message });
  }
  log.info('club polled', {
    outcome: report.outcome,
    requests: report.requests,
    tokenRequests: report.tokenRequests,
    operationalEvents: report.operationalEvents.map((e) => e.detailType),
    ...(report.pausedUntil ? { pausedUntil: report.pausedUntil } : {}),
  });
}

// ------------------------------------------------------------------------------------------------
// The Lambda entry point.

let runtime: PollRuntime | undefined;

/** Clients and configuration, built once per container from the environment. */
function pollRuntime(): PollRuntime {
  if (runtime) return runtime;
  const env = process.env;
  const tableName = requiredEnv(env, ENV.stateTable);
  const busName = requiredEnv(env, ENV.eventBus);
  const secretPrefix = requiredEnv(env, ENV.clubSecretPrefix);
  const pollDeadlineMs = optionalNumberEnv(env, ENV.pollDeadlineMs, (n) => n >= 1000);
  const secretTtlMs = optionalNumberEnv(env, 'CLUB_SECRET_CACHE_TTL_MS', (n) => n >= 0);
  const dynamo = new DynamoDBClient({});
  runtime = {
    registry: new DynamoDbClubRegistry({ client: dynamo, tableName }),
    secrets: new SecretsManagerClubSecrets({
      client: new SecretsManagerClient({}),
      ...(secretTtlMs === undefined ? {} : { ttlMs: secretTtlMs }),
    }),
    store: new DynamoDbStateStore({ client: dynamo, tableName }),
    sink: new EventBridgeSink({
      client: new EventBridgeClient({}),
      busName,
      source: eventSourceEnv(env),
    }),
    clients: new GymApiClientFactory(),
    metrics: createMetrics(),
    piiPolicyDefault: piiPolicyEnv(env),
    secretPrefix,
    ...(pollDeadlineMs === undefined ? {} : { pollDeadlineMs }),
  };
  return runtime;
}

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler((event, context) => processPollBatch(pollRuntime(), event, context));
