/**
 * `local-aws`: the AWS endpoints `poll` needs, on this machine, from what the project installs: a
 * DynamoDB-compatible endpoint (dynalite, in memory) and an EventBridge-compatible endpoint
 * (lambdas/local-aws/local-eventbridge.ts) that prints, and optionally saves, every event it receives.
 * Prints the environment to use, stays up until Ctrl-C; a port it cannot take ends it at once,
 * non-zero, with what it had started closed.
 */
import { appendFileSync } from 'node:fs';
import type { BridgeEvent } from '../../events/catalog';
import {
  type LocalEventBridge,
  type ReceivedEvent,
  startLocalEventBridge,
} from '../../local-aws/local-eventbridge';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../state/embedded-dynamodb';
import { CliUsageError, intFlag, parseFlags } from '../args';
import { describeEvent } from '../format';
import { ListenError, listenError } from '../listen-error';
import { type LocalAwsWebhooks, startLocalAwsWebhooks } from '../local-stack/local-aws-webhooks';
import { checkBusName, checkEventsFile } from '../preflight';
import { watchStop } from '../stop-signal';

export const summary = 'local DynamoDB and EventBridge endpoints for poll (in memory), events printed';

export const DEFAULT_DYNAMODB_PORT = 4567;
export const DEFAULT_BUS = 'gym-bridge-local';
export const LOCAL_REGION = 'us-east-1';

const HELP = `usage: npm run --silent cli -- local-aws [flags]

Starts, on 127.0.0.1, a DynamoDB-compatible endpoint (dynalite, in memory) and an
EventBridge-compatible endpoint (PutEvents and buses; rules, targets and archives are not
emulated), prints the environment that points the AWS SDK (and poll, status) at them, and prints
every event the EventBridge endpoint receives. Runs until Ctrl-C; all data is lost when it stops.

  --port N              DynamoDB on N, EventBridge on N+1      (default ${DEFAULT_DYNAMODB_PORT}; 0: free ports)
  --dynamodb-port N     DynamoDB port                           (overrides --port)
  --eventbridge-port N  EventBridge port                        (overrides --port)
  --bus NAME            event bus to create and print           (default ${DEFAULT_BUS})
  --events-file FILE    also append every received event to FILE as a JSON line
  --quiet               do not print received events

Exit: 0 after Ctrl-C, 1 when a port cannot be taken, 2 on a bad flag.`;

const FLAGS = {
  port: { type: 'string' },
  'dynamodb-port': { type: 'string' },
  'eventbridge-port': { type: 'string' },
  bus: { type: 'string' },
  'events-file': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

export interface LocalAwsPorts {
  readonly dynamodb: number;
  readonly eventbridge: number;
}

/** The ports from the flags: --port N gives N and N+1; a specific flag wins; 0 is a free port. */
export function portsFromFlags(flags: {
  port?: string | undefined;
  'dynamodb-port'?: string | undefined;
  'eventbridge-port'?: string | undefined;
}): LocalAwsPorts {
  const base = intFlag('port', flags.port, { min: 0, max: 65_534, default: DEFAULT_DYNAMODB_PORT });
  const dynamodb = intFlag('dynamodb-port', flags['dynamodb-port'], { min: 0, max: 65_535, default: base });
  const eventbridge = intFlag('eventbridge-port', flags['eventbridge-port'], {
    min: 0,
    max: 65_535,
    default: base === 0 ? 0 : base + 1,
  });
  if (dynamodb !== 0 && dynamodb === eventbridge)
    throw new CliUsageError(`--dynamodb-port and --eventbridge-port must differ, both are ${dynamodb}`);
  return { dynamodb, eventbridge };
}

/** The shell line that points the AWS SDK at the endpoints (dummy credentials: nothing is checked). */
export function environmentLine(dynamodbEndpoint: string, eventbridgeEndpoint: string): string {
  return [
    'export',
    `AWS_ENDPOINT_URL_DYNAMODB=${dynamodbEndpoint}`,
    `AWS_ENDPOINT_URL_EVENTBRIDGE=${eventbridgeEndpoint}`,
    `AWS_REGION=${LOCAL_REGION}`,
    'AWS_ACCESS_KEY_ID=local',
    'AWS_SECRET_ACCESS_KEY=local',
  ].join(' ');
}

/** One received event as a line a person reads: bus, detail-type, club, what happened. */
export function describeReceived(e: ReceivedEvent): string {
  const detail = (typeof e.detail === 'object' && e.detail !== null ? e.detail : {}) as Record<
    string,
    unknown
  >;
  const when = typeof detail.occurredAt === 'string' ? detail.occurredAt : e.time;
  const club = typeof detail.clubId === 'string' ? detail.clubId : '-';
  let what: string;
  try {
    what = describeEvent({ detailType: e.detailType, detail } as unknown as BridgeEvent);
  } catch {
    what = '';
  }
  if (!what) what = JSON.stringify(e.detail).slice(0, 120);
  return `${when}  ${e.eventBusName}  ${e.detailType.padEnd(34)} ${club.padEnd(8)} ${what}`;
}

/** What happens to each received event: appended to `eventsFile` when given, printed unless `quiet`. */
function eventSink(eventsFile: string | undefined, quiet: boolean | undefined): (e: ReceivedEvent) => void {
  return (e) => {
    if (eventsFile !== undefined) {
      const { id, eventBusName, source, detailType, time, detail } = e;
      try {
        appendFileSync(
          eventsFile,
          `${JSON.stringify({ id, eventBusName, source, detailType, time, detail })}\n`,
        );
      } catch (err) {
        process.stderr.write(`local-aws: could not append to ${eventsFile}: ${(err as Error).message}\n`);
      }
    }
    if (!quiet) process.stdout.write(`${describeReceived(e)}\n`);
  };
}

interface RunningEndpoints {
  readonly db: EmbeddedDynamoDb;
  readonly events: LocalEventBridge;
  /** Closes both, never throwing. */
  readonly closeAll: () => Promise<void>;
}

/**
 * Starts DynamoDB, then EventBridge. A port that cannot be taken closes what had started and
 * prints why: `undefined` (exit 1).
 */
async function startEndpoints(
  ports: LocalAwsPorts,
  bus: string,
  onEvent: (e: ReceivedEvent) => void,
): Promise<RunningEndpoints | undefined> {
  let db: EmbeddedDynamoDb | undefined;
  let events: LocalEventBridge | undefined;
  const closeAll = async () => {
    await events?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
  };
  try {
    db = await startEmbeddedDynamoDb({ port: ports.dynamodb }).catch((err: unknown) => {
      throw listenError(err, 'the DynamoDB endpoint', ports.dynamodb, '--dynamodb-port');
    });
    events = await startLocalEventBridge({
      port: ports.eventbridge,
      region: LOCAL_REGION,
      buses: [bus],
      keepEvents: false,
      onEvent,
    }).catch((err: unknown) => {
      throw listenError(err, 'the EventBridge endpoint', ports.eventbridge, '--eventbridge-port');
    });
  } catch (err) {
    await closeAll();
    if (err instanceof ListenError) {
      process.stderr.write(`gym-bridge local-aws: ${err.message}\n`);
      return undefined;
    }
    throw err;
  }
  return { db, events, closeAll };
}

/** What the running endpoints are, and the environment line to use them. */
function banner(
  endpoints: RunningEndpoints,
  bus: string,
  eventsFile: string | undefined,
  quiet: boolean | undefined,
  webhooks: readonly string[],
): string {
  const { db, events } = endpoints;
  return [
    'local AWS endpoints (in memory; everything is lost when this stops; Ctrl-C to stop)',
    `  DynamoDB     ${db.endpoint}   (dynalite)`,
    `  EventBridge  ${events.endpoint}   (PutEvents and buses; rules and targets are not emulated)`,
    `  bus          ${bus}`,
    ...(eventsFile === undefined
      ? []
      : [`  events file  ${eventsFile}   (one JSON line per received event)`]),
    ...webhooks,
    '',
    'In the shell that runs poll or status:',
    '',
    environmentLine(db.endpoint, events.endpoint),
    '',
    `then e.g.: npm run --silent cli -- poll --clubs clubs.json --create-table --bus ${bus}`,
    '',
    quiet ? 'received events are not printed (--quiet)' : 'received events:',
    '',
  ].join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return 0;
  const ports = portsFromFlags(flags);
  const bus = flags.bus ?? DEFAULT_BUS;
  checkBusName(bus, '--bus');
  const eventsFile = flags['events-file'];
  if (eventsFile !== undefined) await checkEventsFile(eventsFile);

  // Webhooks: every event received is delivered to the local stack's endpoints (docs/webhooks.md).
  let hooks: LocalAwsWebhooks | undefined;
  const print = eventSink(eventsFile, flags.quiet);
  const endpoints = await startEndpoints(ports, bus, (e) => {
    print(e);
    hooks?.receive(e);
  });
  if (!endpoints) return 1;
  hooks = await startLocalAwsWebhooks({
    client: endpoints.db.client,
    eventBridgeEndpoint: endpoints.events.endpoint,
    bus,
    region: LOCAL_REGION,
    quiet: flags.quiet === true,
  });
  process.stdout.write(banner(endpoints, bus, eventsFile, flags.quiet, hooks.banner));

  const stop = watchStop({
    command: 'gym-bridge local-aws',
    stopping: 'stopping the local endpoints',
    skipped: 'closing them',
  });
  try {
    await stop.whenRequested;
    await hooks.stop();
    await endpoints.closeAll();
    process.stdout.write('local AWS endpoints stopped\n');
  } finally {
    stop.release();
  }
  return 0;
}
