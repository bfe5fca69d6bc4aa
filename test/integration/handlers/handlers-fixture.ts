/**
 * The warm container the handlers*.test.ts files drive: the deployed runtime in process, through
 * the same entry points Lambda calls (`handler(event, context)` of lambdas/handlers/dispatch.ts and
 * poll.ts, configured only by environment variables) against dynalite, the gym API sandbox, the
 * local EventBridge, SQS and Secrets Manager. One set of handler modules for a whole file: a warm
 * container, as in Lambda.
 *
 * The domain clock is Date (faked, moving with real time): a test jumps it forward together with
 * the sandbox clock (`advance`) to make sources due again. What the handlers write to stdout (EMF
 * metrics: one document an invocation) is captured for the whole file.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { vi } from 'vitest';
import { clubRecordFrom, DynamoDbClubRegistry, putClubSecret } from '../../../lambdas/clubs';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { ENV } from '../../../lambdas/common/deployment-contract';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import type { DispatchSummary } from '../../../lambdas/handlers/dispatch';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { createTestTable, startDynalite } from '../../support/dynalite';
import { emfDocuments } from '../../support/emf';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';
import { type LocalSqs, startLocalSqs } from '../../support/local-sqs';

export const MINUTE = 60_000;
const START = Date.parse('2026-03-10T09:00:00.000Z');
export const PREFIX = 'gym-bridge/clubs/';
export const QUEUE = 'gym-bridge-poll';
export const awsCredentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export type Handler<E, R> = (event: E, context: Context) => Promise<R>;

export function lambdaContext(name: string): Context {
  return {
    awsRequestId: randomUUID(),
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 90_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** A port nothing listens on: the API of a club that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A club whose API does not answer (visits only). */
export async function downClub(clubId: string): Promise<ClubConfig> {
  return parseClubsFile({
    clubs: [
      {
        clubId,
        baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
        timeZone: 'Europe/London',
        plan: 'basic',
        sources: ['visits'],
        credentials: { username: 'u', password: 'p', apiKey: 'k' },
      },
    ],
  })[0]!;
}

export interface WarmContainer {
  readonly sandbox: Sandbox;
  /** One club with 4 API requests a month. */
  readonly quotaSandbox: Sandbox;
  readonly bus: LocalEventBridge;
  readonly sqs: LocalSqs;
  readonly sm: LocalSecretsManager;
  readonly registry: DynamoDbClubRegistry;
  readonly store: DynamoDbStateStore;
  readonly dispatch: Handler<unknown, DispatchSummary>;
  readonly poll: Handler<SQSEvent, SQSBatchResponse>;
  /** The sandbox's clubs, none onboarded yet. */
  readonly clubs: ClubConfig[];
  /** What the handlers write to stdout, captured for the whole file. */
  readonly stdout: string[];
  readonly emf: (fromIndex?: number) => Record<string, unknown>[];
  readonly onboard: (club: ClubConfig) => Promise<void>;
  readonly events: (clubId?: string) => BridgeEvent[];
  readonly runPoll: (event: SQSEvent) => Promise<SQSBatchResponse>;
  /** Moves the bridge's clock and the sandbox's together. */
  readonly advance: (ms: number) => void;
  /** Stops everything and restores stdout, the clock and the environment. */
  readonly close: () => Promise<void>;
}

/** Starts the services and the handler modules (for a file's beforeAll). */
export async function startWarmContainer(): Promise<WarmContainer> {
  const savedEnv = { ...process.env };
  const stdout: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  });
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: START });
  const db = await startDynalite();
  const sandbox = await startSandbox({
    seed: 11,
    clubs: 3,
    members: 100,
    historyDays: 2,
    startTime: START,
    activityScale: 5,
  });
  const quotaSandbox = await startSandbox({
    seed: 12,
    clubs: [{ clubId: 'quota-club', members: 40 }],
    historyDays: 1,
    startTime: START,
    quotaScale: 0.000004, // 4 requests a month
  });
  const bus = await startLocalEventBridge();
  const sqs = await startLocalSqs();
  const sm = await startLocalSecretsManager();
  const queue = sqs.createQueue(QUEUE);
  const tableName = await createTestTable(db.client, 'handlers');
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.endpoint,
    [ENV.stateTable]: tableName,
    [ENV.eventBus]: 'gym-bridge-test',
    [ENV.eventSource]: 'gym-bridge.test',
    [ENV.pollQueueUrl]: queue.url,
    [ENV.clubSecretPrefix]: PREFIX,
    [ENV.piiPolicyDefault]: 'minimal',
    [ENV.pollDeadlineMs]: '60000',
    [ENV.quotaReserve]: '0.1',
    POWERTOOLS_SERVICE_NAME: 'gym-bridge-test',
  });
  const secretsClient = new SecretsManagerClient({
    endpoint: sm.endpoint,
    region: 'us-east-1',
    credentials: awsCredentials,
  });
  const registry = new DynamoDbClubRegistry({ client: db.client, tableName });
  const store = new DynamoDbStateStore({ client: db.client, tableName });
  const clubs = parseClubsFile(sandbox.clubsFile());
  const { handler: dispatch } = (await import('../../../lambdas/handlers/dispatch')) as {
    handler: Handler<unknown, DispatchSummary>;
  };
  const { handler: poll } = (await import('../../../lambdas/handlers/poll')) as {
    handler: Handler<SQSEvent, SQSBatchResponse>;
  };

  return {
    sandbox,
    quotaSandbox,
    bus,
    sqs,
    sm,
    registry,
    store,
    dispatch,
    poll,
    clubs,
    stdout,
    emf: (fromIndex = 0) => emfDocuments(stdout.slice(fromIndex)),
    onboard: async (club) => {
      await putClubSecret(secretsClient, `${PREFIX}${club.clubId}`, club.credentials);
      await registry.put(clubRecordFrom(club, `${PREFIX}${club.clubId}`, { explicitPiiPolicy: false }));
    },
    events: (clubId) =>
      bus.events
        .filter((e) => clubId === undefined || (e.detail as { clubId: string }).clubId === clubId)
        .map((e) => ({ detailType: e.detailType, detail: e.detail }) as BridgeEvent),
    runPoll: async (event) => {
      const response = await poll(event, lambdaContext('poll'));
      sqs.settle(event, response);
      return response;
    },
    advance: (ms) => {
      sandbox.advance(ms);
      vi.setSystemTime(Date.now() + ms);
    },
    close: async () => {
      vi.restoreAllMocks();
      vi.useRealTimers();
      process.env = savedEnv;
      secretsClient.destroy();
      await Promise.all([
        sandbox.close(),
        quotaSandbox.close(),
        bus.close(),
        sqs.close(),
        sm.close(),
        db.close(),
      ]);
    },
  };
}
