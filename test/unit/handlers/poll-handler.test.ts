/**
 * The poll handler on Powertools' batch processor, with a runtime built in memory (no sockets): which
 * records SQS gets back, and the environment it refuses to start without.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ClubRecord, MemoryClubRegistry } from '../../../lambdas/clubs';
import {
  type ClubCredentials,
  ClubSecretError,
  type ClubSecretsReader,
} from '../../../lambdas/clubs/club-secrets';
import { ENV } from '../../../lambdas/common/deployment-contract';
import { createMetrics } from '../../../lambdas/common/metrics';
import { GymApiClientFactory } from '../../../lambdas/engine/client-factory';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import { dispatchRuntimeFromEnv } from '../../../lambdas/handlers/dispatch-runtime';
import { createPollHandler } from '../../../lambdas/handlers/poll-handler';
import { type PollRuntime, pollRuntimeFromEnv } from '../../../lambdas/handlers/poll-runtime';
import { InvalidEnvironmentError, MissingEnvironmentError } from '../../../lambdas/handlers/runtime-env';
import { MemoryStateStore } from '../../../lambdas/state';

const NOW = '2026-06-10T12:00:00.000Z';

const clubRecord = (clubId: string): ClubRecord => ({
  clubId,
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Europe/London',
  plan: 'basic',
  enabled: true,
  sources: ['visits'],
  secretName: `gym-bridge/clubs/${clubId}`,
});

/** Secrets that answer, or fail as told; remembers what was invalidated. */
class StubSecrets implements ClubSecretsReader {
  readonly invalidated: string[] = [];
  constructor(private readonly fail?: ClubSecretError) {}
  async credentials(): Promise<ClubCredentials> {
    if (this.fail) throw this.fail;
    return { username: 'u', password: 'p', apiKey: 'k' };
  }
  invalidate(secretName: string): void {
    this.invalidated.push(secretName);
  }
}

/** An API that answers every request with `status` (no retries: one request each). */
function apiAnswering(status: number) {
  const fetch = (async () =>
    new Response(JSON.stringify({ Message: `HTTP ${status}` }), {
      status,
      headers: { 'content-type': 'application/json' },
    })) as typeof globalThis.fetch;
  return new GymApiClientFactory({ fetch, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 } });
}

function runtime(extra: Partial<PollRuntime> = {}): PollRuntime {
  return {
    registry: new MemoryClubRegistry([clubRecord('club-1'), clubRecord('club-2')]),
    secrets: new StubSecrets(),
    store: new MemoryStateStore(),
    sink: new MemorySink(),
    clients: apiAnswering(503),
    metrics: createMetrics({ serviceName: 'test' }),
    piiPolicyDefault: 'minimal',
    secretPrefix: 'gym-bridge/clubs/',
    ...extra,
  };
}

const record = (messageId: string, body: string): SQSRecord =>
  ({
    messageId,
    body,
    receiptHandle: messageId,
    attributes: {},
    messageAttributes: {},
  }) as unknown as SQSRecord;
const message = (clubId: string) => JSON.stringify({ clubId, sources: ['visits'], dispatchedAt: NOW });
const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

describe('createPollHandler', () => {
  // The metrics are EMF lines on stdout: kept out of the test output.
  beforeEach(() => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('drops malformed messages and unknown clubs, and answers an all-retry batch without throwing', async () => {
    // Prepare: the API is down for every club (503).
    const handler = createPollHandler(runtime());
    const event: SQSEvent = {
      Records: [
        record('m1', 'not json'),
        record('m2', message('ghost-club')),
        record('m3', message('club-1')),
        record('m4', message('club-2')),
      ],
    };
    const allDown: SQSEvent = { Records: [record('m5', message('club-1'))] };
    // Act
    const response = await handler(event, context);
    const downResponse = await handler(allDown, context);
    // Assess: only the polls a retry can fix come back.
    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m3', 'm4']);
    expect(downResponse).toEqual({ batchItemFailures: [{ itemIdentifier: 'm5' }] });
  });

  it('retries a club whose secret cannot be read yet, and drops one whose secret is wrong', async () => {
    // Prepare
    const transient = createPollHandler(
      runtime({ secrets: new StubSecrets(new ClubSecretError('s', 'down', true)) }),
    );
    const permanent = createPollHandler(
      runtime({ secrets: new StubSecrets(new ClubSecretError('s', 'gone', false)) }),
    );
    const event: SQSEvent = { Records: [record('m1', message('club-1'))] };
    // Act
    const retried = await transient(event, context);
    const dropped = await permanent(event, context);
    // Assess
    expect(retried.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(dropped.batchItemFailures).toEqual([]);
  });

  it('does not retry a club whose credentials are rejected (it is paused), and forgets its cached secret', async () => {
    // Prepare: the API refuses every credential.
    const secrets = new StubSecrets();
    const handler = createPollHandler(runtime({ secrets, clients: apiAnswering(401) }));
    // Act
    const response = await handler({ Records: [record('m1', message('club-1'))] }, context);
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(secrets.invalidated).toEqual(['gym-bridge/clubs/club-1']);
  });
});

describe('the handlers refuse to load without their environment', () => {
  const complete = {
    [ENV.stateTable]: 'state',
    [ENV.eventBus]: 'bus',
    [ENV.clubSecretPrefix]: 'gym-bridge/clubs/',
    [ENV.pollQueueUrl]: 'https://sqs.example/queue',
  };

  it('names a missing variable and what it must hold', () => {
    const { [ENV.eventBus]: _, ...noBus } = complete;
    expect(() => pollRuntimeFromEnv(noBus)).toThrow(MissingEnvironmentError);
    expect(() => pollRuntimeFromEnv(noBus)).toThrow(
      /EVENT_BUS_NAME is not set: it must hold the EventBridge bus/,
    );
    const { [ENV.pollQueueUrl]: __, ...noQueue } = complete;
    expect(() => dispatchRuntimeFromEnv(noQueue)).toThrow(
      /POLL_QUEUE_URL is not set: it must hold the SQS poll queue URL/,
    );
  });

  it('reads the response cap through the contract, and refuses one below 64 KB', () => {
    expect(() => pollRuntimeFromEnv({ ...complete, [ENV.maxResponseBytes]: '16777216' })).not.toThrow();
    expect(() => pollRuntimeFromEnv({ ...complete, [ENV.maxResponseBytes]: '100' })).toThrow(
      /GYM_API_MAX_RESPONSE_BYTES is '100': it must hold the cap of a page body in bytes, an integer >= 65536/,
    );
  });

  it('reads the secret cache TTL through the contract, and refuses one that is not a number', () => {
    expect(pollRuntimeFromEnv({ ...complete, [ENV.clubSecretCacheTtlMs]: '60000' }).secretPrefix).toBe(
      'gym-bridge/clubs/',
    );
    expect(() => pollRuntimeFromEnv({ ...complete, [ENV.clubSecretCacheTtlMs]: 'soon' })).toThrow(
      InvalidEnvironmentError,
    );
    expect(() => pollRuntimeFromEnv({ ...complete, [ENV.clubSecretCacheTtlMs]: 'soon' })).toThrow(
      /CLUB_SECRET_CACHE_TTL_MS is 'soon': it must hold milliseconds a club secret stays cached/,
    );
  });
});
