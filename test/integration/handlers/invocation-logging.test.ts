/**
 * Every Lambda handler sets up its logging the same way, through one helper (common/logger.ts
 * InvocationLog): each line of an invocation carries its request id; the Lambda context (cold
 * start, function name, ARN, memory, X-Ray trace id) is written ONCE, on the invocation's last
 * line; after the invocation the logger's lines carry no request id. The four handlers (poll,
 * dispatch, webhook fan-out, webhook delivery) run here over runtimes in memory and dynalite, two
 * invocations each in one container, with an input that makes them write a line before their last
 * (a failing club, a malformed message). A handler that drifted (a Powertools middleware or
 * `addContext` of its own, a request id forgotten, keys not reset) fails here, named; a handler
 * module added without a case here fails too.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryClubRegistry } from '../../../lambdas/clubs';
import { logger } from '../../../lambdas/common/logger';
import { createMetrics } from '../../../lambdas/common/metrics';
import { MemoryDeliveryQueue } from '../../../lambdas/delivery/delivery-queue';
import { createEndpointMetrics } from '../../../lambdas/delivery/delivery-report';
import { EndpointRegistry, HealthCache } from '../../../lambdas/delivery/endpoint-cache';
import { EndpointPacer } from '../../../lambdas/delivery/fan-out';
import { createDeliverHandler } from '../../../lambdas/delivery/handlers/deliver-handler';
import { createFanOutHandler } from '../../../lambdas/delivery/handlers/fan-out-handler';
import type { DeliverRuntime } from '../../../lambdas/delivery/handlers/runtime';
import { MemorySigningKeys } from '../../../lambdas/delivery/signing-keys';
import { WebhookStore } from '../../../lambdas/delivery/webhook-store';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import { createDispatchHandler } from '../../../lambdas/handlers/dispatch-handler';
import { createPollHandler } from '../../../lambdas/handlers/poll-handler';
import { MemoryStateStore } from '../../../lambdas/state';
import { createStateTable } from '../../../lambdas/state/table';
import { type Dynalite, startDynalite } from '../../support/dynalite';
import { captureLogs, type LogCapture, type LogLine } from '../../support/log-capture';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const HANDLER_FOLDERS = ['lambdas/handlers', 'lambdas/delivery/handlers'];
/** The keys of the Lambda context, written on an invocation's last line only. */
const CONTEXT_KEYS = ['cold_start', 'function_arn', 'function_memory_size', 'function_name', 'xray_trace_id'];
const TRACE_HEADER = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=0';

const lambdaContext = (awsRequestId: string) =>
  ({
    awsRequestId,
    functionName: 'GymBridge-prod-Function',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-Function',
    memoryLimitInMB: '256',
    getRemainingTimeInMillis: () => 30_000,
  }) as unknown as Context;

const sqsRecord = (messageId: string, body: string) =>
  ({ messageId, body, receiptHandle: messageId, attributes: {}, messageAttributes: {} }) as never;

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.close();
});

async function deliverRuntime(name: string): Promise<DeliverRuntime & { pacer: EndpointPacer }> {
  const tableName = `invocation-logging-${name}-${process.pid}`;
  await createStateTable(db.client, tableName);
  const store = new WebhookStore({ client: db.client, tableName });
  return {
    store,
    registry: new EndpointRegistry({ store }),
    health: new HealthCache({ store }),
    keys: new MemorySigningKeys(),
    queue: new MemoryDeliveryQueue(),
    sink: new MemorySink(),
    timeoutMs: 15_000,
    metrics: createMetrics({ serviceName: 'gym-bridge-test' }),
    endpointMetrics: (id) => createEndpointMetrics(id, { serviceName: 'gym-bridge-test' }),
    pacer: new EndpointPacer(1),
  };
}

/** A club whose API answers 503 to everything: its poll writes lines before the batch's last. */
function pollHandler() {
  const fetch = (async () =>
    new Response('{"Message":"HTTP 503"}', { status: 503 })) as unknown as typeof globalThis.fetch;
  const club = {
    clubId: 'club-1',
    baseUrl: 'https://api.example.com/v1',
    timeZone: 'Europe/London',
    plan: 'basic' as const,
    enabled: true,
    sources: ['visits' as const],
    secretName: 'gym-bridge/clubs/club-1',
  };
  const handler = createPollHandler({
    registry: new MemoryClubRegistry([club]),
    secrets: {
      credentials: async () => ({ username: 'u', password: 'p', apiKey: 'k' }),
      invalidate: () => {},
    },
    store: new MemoryStateStore(),
    sink: new MemorySink(),
    clients: new GymApiClientFactory({ fetch, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 } }),
    metrics: createMetrics({ serviceName: 'test' }),
    piiPolicyDefault: 'minimal',
    secretPrefix: 'gym-bridge/clubs/',
  });
  const body = JSON.stringify({
    clubId: 'club-1',
    sources: ['visits'],
    dispatchedAt: new Date().toISOString(),
  });
  return (context: Context) => handler({ Records: [sqsRecord('m-1', body)] }, context);
}

/** A shard of clubs to dispatch, with a queue that refuses them (a line before the last). */
function dispatchHandler() {
  const handler = createDispatchHandler({
    registry: new MemoryClubRegistry([
      {
        clubId: 'club-1',
        baseUrl: 'https://api.example.com/v1',
        timeZone: 'Europe/London',
        plan: 'basic',
        enabled: true,
        secretName: 'gym-bridge/clubs/club-1',
      },
    ]),
    store: new MemoryStateStore(),
    queue: {
      async sendBatch() {
        throw new Error('SendMessageBatch refused');
      },
    },
    reserve: 0.1,
    overdueMinimumMs: 15 * 60_000,
    spreadSeconds: 0,
    metrics: createMetrics({ serviceName: 'test' }),
  });
  return (context: Context) => handler({}, context).catch(() => undefined);
}

/** The four handlers, each with an input that makes it write a line before its last. */
const HANDLERS: Record<string, () => Promise<(context: Context) => Promise<unknown>>> = {
  'lambdas/handlers/poll-handler.ts': async () => pollHandler(),
  'lambdas/handlers/dispatch-handler.ts': async () => dispatchHandler(),
  'lambdas/delivery/handlers/fan-out-handler.ts': async () => {
    const handler = createFanOutHandler(await deliverRuntime('fan-out'));
    return (context) => handler({ Records: [sqsRecord('r-1', '{"not":"a bridge event"}')] }, context);
  },
  'lambdas/delivery/handlers/deliver-handler.ts': async () => {
    const handler = createDeliverHandler(await deliverRuntime('deliver'));
    return (context) => handler({ Records: [sqsRecord('d-1', 'not a delivery message')] }, context);
  },
};

describe('every handler sets up its logging the same way (InvocationLog)', () => {
  let capture: LogCapture | undefined;
  // What Lambda sets: the invocation's trace header, and an on-demand container (cold starts).
  const lambdaEnv = { _X_AMZN_TRACE_ID: TRACE_HEADER, AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' };
  const saved = Object.fromEntries(Object.keys(lambdaEnv).map((key) => [key, process.env[key]]));
  beforeEach(() => {
    Object.assign(process.env, lambdaEnv);
  });
  afterEach(() => {
    capture?.stop();
    capture = undefined;
    vi.restoreAllMocks();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('has a case for every handler module', () => {
    const modules = HANDLER_FOLDERS.flatMap((folder) =>
      readdirSync(join(ROOT, folder))
        .filter((f) => f.endsWith('-handler.ts'))
        .map((f) => `${folder}/${f}`),
    );
    expect(modules.sort()).toEqual(Object.keys(HANDLERS).sort());
  });

  it.each(Object.keys(HANDLERS))('%s', async (file) => {
    // Prepare: one container (one handler), the log captured.
    const invoke = await HANDLERS[file]!();
    capture = captureLogs();
    const invocation = async (requestId: string): Promise<LogLine[]> => {
      const from = capture!.lines.length;
      await invoke(lambdaContext(requestId));
      return capture!.lines.slice(from);
    };
    // Act: two invocations, then a line of the logger between invocations.
    const first = await invocation('req-1');
    const second = await invocation('req-2');
    logger.info('between invocations');
    // Assess: each invocation wrote a line before its last, every line with its request id, and
    // the context on its last line only (a cold start the first time only).
    for (const [lines, requestId, coldStart] of [
      [first, 'req-1', true],
      [second, 'req-2', false],
    ] as const) {
      expect(lines.length, JSON.stringify(lines)).toBeGreaterThan(1);
      for (const line of lines) expect(line.function_request_id, line.message).toBe(requestId);
      const last = lines.at(-1)!;
      expect(last).toMatchObject({
        cold_start: coldStart,
        function_name: 'GymBridge-prod-Function',
        function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-Function',
        function_memory_size: '256',
        xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      });
      for (const line of lines.slice(0, -1)) {
        for (const key of CONTEXT_KEYS) expect(line, `${line.message}: ${key}`).not.toHaveProperty(key);
      }
    }
    const between = capture.lines.at(-1)!;
    expect(between.message).toBe('between invocations');
    expect(between).not.toHaveProperty('function_request_id');
  });
});
