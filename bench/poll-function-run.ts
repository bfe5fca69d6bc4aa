/**
 * The poll function as Lambda runs it, in a child process, for the invocation-memory step: its
 * handler (lambdas/handlers/poll.ts) bundled as BridgeFunction bundles it (./esm-bundle.ts), loaded
 * by a runtime stand-in as small as Lambda's (RUNTIME below: import the module, which builds its
 * runtime from the environment, invoke the handler once with an SQS event, exit), with the
 * environment the template gives the function (NODE_OPTIONS, Powertools, the deployment contract)
 * and the heap flags Lambda's Node runtime gives its memory. Its clubs are in the state table's
 * registry and their credentials in Secrets Manager, as `clubs add` leaves them; its one SQS record
 * holds the batch as one group message (`{"polls":[...]}`), as the dispatcher sends it. DynamoDB,
 * EventBridge and Secrets Manager are local endpoints in a process of their own
 * (hosts/poll-aws-host.ts).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type ClubConfig, parseClubsFile } from '../lambdas/clubs/club-config';
import { clubRecordFrom } from '../lambdas/clubs/club-record';
import { DynamoDbClubRegistry } from '../lambdas/clubs/dynamodb-club-registry';
import { ENV, type PollMessage } from '../lambdas/common/deployment-contract';
import { serializePollBody } from '../lambdas/common/poll-message';
import { enabledSources } from '../lambdas/sources';
import { createStateTable } from '../lambdas/state/table';
import type { PollAwsEndpoints } from './hosts/poll-aws-host';
import type { HostProcess } from './hosts/rpc';

const run = promisify(execFile);

/** The event bus of the runs (the local EventBridge has it; the function's EVENT_BUS_NAME names it). */
export const BENCH_BUS = 'bench-poll-bus';

/** The Lambda runtime's part: load the function's module, invoke its handler once, exit. */
export const RUNTIME = `import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, bodyFile, outFile] = process.argv.slice(2);
const { handler } = await import(bundle);
const started = Date.now();
const timeoutMs = Number(process.env.BENCH_FUNCTION_TIMEOUT_MS);
const body = readFileSync(bodyFile, 'utf8');
const sqsArn = 'arn:aws:sqs:us-east-1:000000000000:bench-poll';
const attributes = { ApproximateReceiveCount: '1', SentTimestamp: String(started), SenderId: 'bench',
  ApproximateFirstReceiveTimestamp: String(started) };
const event = { Records: [{ messageId: 'bench-message-1', receiptHandle: 'bench', body, attributes,
  messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: sqsArn, awsRegion: 'us-east-1' }] };
const context = { callbackWaitsForEmptyEventLoop: true, functionName: 'bench-poll', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-poll',
  memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, awsRequestId: 'bench-request-1',
  logGroupName: '/aws/lambda/bench-poll', logStreamName: 'bench',
  getRemainingTimeInMillis: () => started + timeoutMs - Date.now(), done() {}, fail() {}, succeed() {} };
writeFileSync(outFile, JSON.stringify(await handler(event, context)));
`;

/** Where the function runs: its bundle, the runtime stand-in, its environment and heap flags. */
export interface FunctionSetup {
  readonly dir: string;
  readonly bundle: string;
  readonly runtime: string;
  readonly aws: HostProcess;
  readonly endpoints: PollAwsEndpoints;
  /** The template's environment of the poll function (`{ Ref }` values are replaced here). */
  readonly environment: Readonly<Record<string, unknown>>;
  readonly functionMb: number;
  readonly heapFlags: readonly string[];
  /** The poll deadline and the invocation's time, ms: long, so that a loaded machine cuts nothing. */
  readonly deadlineMs: number;
}

/** What one invocation read and how it answered. */
export interface FunctionInvocation {
  readonly stdout: string;
  readonly records: number;
  /** Clubs whose `club polled` line says a source did not complete. */
  readonly incomplete: number;
  readonly itemFailures: number;
}

const CREDENTIALS = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench' };

/** Creates `table` and registers the clubs in it, their credentials in the local Secrets Manager. */
export async function registerClubs(setup: FunctionSetup, table: string, clubs: readonly ClubConfig[]) {
  const prefix = String(setup.environment[ENV.clubSecretPrefix] ?? 'gym-bridge/bench/clubs/');
  const client = new DynamoDBClient({
    endpoint: setup.endpoints.dynamodb,
    region: CREDENTIALS.AWS_REGION,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  try {
    await createStateTable(client, table);
    const registry = new DynamoDbClubRegistry({ client, tableName: table });
    for (const club of clubs) await registry.put(clubRecordFrom(club, `${prefix}${club.clubId}`));
    const secrets = clubs.map((c) => [`${prefix}${c.clubId}`, JSON.stringify(c.credentials)] as const);
    await setup.aws.call('setSecrets', secrets);
  } finally {
    client.destroy();
  }
}

/** The clubs of a clubs file (the sandbox's). */
export const clubsOf = (clubsFile: unknown): ClubConfig[] => parseClubsFile(clubsFile, 'sandbox clubs');

/** The environment of the function's process: the template's, with this run's table and endpoints. */
function functionEnv(setup: FunctionSetup, table: string, rssOut: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...CREDENTIALS };
  for (const [name, value] of Object.entries(setup.environment))
    if (typeof value === 'string') env[name] = value;
  return {
    ...env,
    [ENV.stateTable]: table,
    [ENV.eventBus]: BENCH_BUS,
    [ENV.pollDeadlineMs]: String(setup.deadlineMs),
    AWS_ENDPOINT_URL_DYNAMODB: setup.endpoints.dynamodb,
    AWS_ENDPOINT_URL_EVENTBRIDGE: setup.endpoints.eventBridge,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: setup.endpoints.secretsManager,
    AWS_LAMBDA_FUNCTION_NAME: 'bench-poll',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(setup.functionMb),
    BENCH_FUNCTION_TIMEOUT_MS: String(setup.deadlineMs + 10_000),
    RSS_OUT: rssOut,
  };
}

/** One invocation of the poll function with one SQS record polling `clubs`, its RSS sampled by `sampler`. */
export async function invokePollFunction(
  setup: FunctionSetup,
  table: string,
  clubs: readonly ClubConfig[],
  sampler: { readonly preload: string; readonly out: string },
): Promise<FunctionInvocation> {
  const dispatchedAt = new Date().toISOString();
  const messages: PollMessage[] = clubs.map((c) => ({
    clubId: c.clubId,
    sources: enabledSources(c),
    dispatchedAt,
  }));
  const bodyFile = join(setup.dir, `${table}.body.json`);
  const outFile = join(setup.dir, `${table}.response.json`);
  await writeFile(bodyFile, serializePollBody(messages));
  const args = [
    ...setup.heapFlags,
    '--require',
    sampler.preload,
    setup.runtime,
    setup.bundle,
    bodyFile,
    outFile,
  ];
  const { stdout } = await run(process.execPath, args, {
    env: functionEnv(setup, table, sampler.out),
    maxBuffer: 64 * 1024 * 1024,
  });
  const polled = stdout
    .split('\n')
    .filter((line) => line.includes('"message":"club polled"'))
    .map((line) => JSON.parse(line) as { records?: number; sourcesIncomplete?: string });
  const response = JSON.parse(await readFile(outFile, 'utf8')) as { batchItemFailures?: unknown[] };
  return {
    stdout,
    records: polled.reduce((n, p) => n + (p.records ?? 0), 0),
    incomplete: polled.filter((p) => p.sourcesIncomplete !== undefined).length,
    itemFailures: response.batchItemFailures?.length ?? 0,
  };
}
