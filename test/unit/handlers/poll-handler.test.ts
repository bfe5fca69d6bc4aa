/**
 * The poll handler on Powertools' batch processor, with a runtime built in memory (no sockets): which
 * records SQS gets back, what it writes once per invocation (one EMF document, one line with the
 * Lambda context), and the environment it refuses to start without.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ClubRecord, MemoryClubRegistry } from '../../../lambdas/clubs';
import {
  type ClubCredentials,
  ClubSecretError,
  type ClubSecretsReader,
} from '../../../lambdas/clubs/club-secrets';
import { ENV, METRIC } from '../../../lambdas/common/deployment-contract';
import { logger } from '../../../lambdas/common/logger';
import { createMetrics } from '../../../lambdas/common/metrics';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
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

  it('polls each club of a group message; the message comes back whole when one of them is to be retried', async () => {
    // Prepare: the API is down (503); a group with a club to retry, an unknown club and a bad entry
    const registry = new MemoryClubRegistry([clubRecord('club-1'), clubRecord('club-2')]);
    const store = new MemoryStateStore();
    const handler = createPollHandler(runtime({ registry, store }));
    const entry = (clubId: string) => ({ clubId, sources: ['visits'], dispatchedAt: NOW });
    const group = (...polls: unknown[]) => JSON.stringify({ polls });
    const event: SQSEvent = {
      Records: [
        record('g1', group(entry('club-1'), entry('ghost-club'), { clubId: 5 })),
        record('g2', group(entry('ghost-club'), { sources: [] })),
        record('g3', group()),
      ],
    };
    const lines: string[] = [];
    vi.spyOn(logger, 'error').mockImplementation((...args: unknown[]) => {
      lines.push(String(args[0]));
    });
    // Act
    const response = await handler(event, context);
    // Assess: g1 back for club-1 (its lease released: another poller may take it); g2 and g3 dropped
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['g1']);
    expect(lines.filter((l) => l === 'malformed club entry of a poll message dropped')).toHaveLength(2);
    expect(lines).toContain('malformed poll message dropped');
    expect(await store.openClub('club-1', 'another', 60_000, Date.now())).toBeDefined();
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

describe('what the poll handler writes once per invocation', () => {
  const clubs = ['club-1', 'club-2', 'club-3'];
  const savedEnv = { ...process.env };
  const written: string[] = [];
  const jsonLines = () =>
    written
      .flatMap((w) => w.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const emf = () => jsonLines().filter((l) => '_aws' in l);
  const logLines = (message: string) => jsonLines().filter((l) => l.message === message);
  const lambdaContext = (awsRequestId: string) =>
    ({
      awsRequestId,
      functionName: 'GymBridge-prod-PollFunction',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-PollFunction',
      memoryLimitInMB: '256',
      getRemainingTimeInMillis: () => 30_000,
    }) as unknown as Context;
  const batch = (): SQSEvent => ({ Records: clubs.map((c, i) => record(`m${i}`, message(c))) });

  beforeEach(() => {
    written.length = 0;
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    // What Lambda sets: the invocation's trace header, and an on-demand container (cold starts).
    process.env._X_AMZN_TRACE_ID =
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=0';
    process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
    logger.setLogLevel('INFO');
  });
  afterEach(() => {
    vi.restoreAllMocks();
    logger.setLogLevel('SILENT');
    for (const key of ['_X_AMZN_TRACE_ID', 'AWS_LAMBDA_INITIALIZATION_TYPE']) {
      if (savedEnv[key] === undefined) delete process.env[key];
      else process.env[key] = savedEnv[key];
    }
  });

  it("writes ONE EMF document for a batch of clubs, with every club's values and the metrics the alarms read", async () => {
    // Prepare: three clubs whose API is down (each poll's one source fails).
    const handler = createPollHandler(
      runtime({
        registry: new MemoryClubRegistry(clubs.map(clubRecord)),
        metrics: createMetrics({ serviceName: 'test' }),
      }),
    );
    // Act
    await handler(batch(), lambdaContext('req-1'));
    // Assess: one document (the old code wrote one per club poll), service-wide, no club property.
    const docs = emf();
    expect(docs).toHaveLength(1);
    const [doc] = docs;
    const directive = (
      doc!._aws as { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] }
    ).CloudWatchMetrics[0]!;
    expect(directive.Dimensions).toEqual([['service']]);
    expect(doc).not.toHaveProperty('ClubId');
    // The alarms' metrics (PollErrors, CredentialsRejected: Sum; QuotaUsedShare: Maximum) and the
    // dashboard's, by the names the contract gives them.
    expect(directive.Metrics.map((m) => m.Name)).toEqual(
      expect.arrayContaining([
        METRIC.recordsFetched,
        METRIC.eventsPublished,
        METRIC.apiRequests,
        METRIC.rateLimited,
        METRIC.pollErrors,
        METRIC.pollDuration,
        METRIC.credentialsRejected,
      ]),
    );
    // Every club's poll is in it: its duration, and its failed source in the sum.
    expect(doc![METRIC.pollDuration]).toHaveLength(clubs.length);
    expect(doc![METRIC.pollErrors]).toBe(clubs.length);
    expect(doc![METRIC.credentialsRejected]).toBe(0);
    expect(
      logLines('club polled')
        .map((l) => l.clubId)
        .sort(),
    ).toEqual(clubs);
  });

  it('writes the Lambda context once, on the `poll batch done` line; each club line keeps its ids and the request id', async () => {
    // Prepare
    const handler = createPollHandler(runtime({ registry: new MemoryClubRegistry(clubs.map(clubRecord)) }));
    const contextKeys = [
      'cold_start',
      'function_arn',
      'function_memory_size',
      'function_name',
      'xray_trace_id',
    ];
    // Act: two invocations of one container.
    await handler(batch(), lambdaContext('req-1'));
    await handler({ Records: [record('m9', message('club-1'))] }, lambdaContext('req-2'));
    // Assess
    const clubLines = logLines('club polled');
    expect(clubLines).toHaveLength(clubs.length + 1);
    for (const line of clubLines) {
      expect(line).toMatchObject({ clubId: expect.any(String), messageId: expect.any(String) });
      for (const key of [...contextKeys, 'sampling_rate']) expect(line).not.toHaveProperty(key);
    }
    expect(clubLines.map((l) => l.function_request_id)).toEqual(['req-1', 'req-1', 'req-1', 'req-2']);
    const [first, second, ...more] = logLines('poll batch done');
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      cold_start: true,
      function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-PollFunction',
      function_memory_size: '256',
      function_name: 'GymBridge-prod-PollFunction',
      function_request_id: 'req-1',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      messages: 3,
      retry: 3,
    });
    expect(second).toMatchObject({ cold_start: false, function_request_id: 'req-2', messages: 1, retry: 1 });
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
      /GYM_API_MAX_RESPONSE_BYTES is '100': it must hold the cap of a page body in bytes, a whole number >= 65536/,
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
