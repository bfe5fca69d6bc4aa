/**
 * `local-aws`: the AWS endpoints the CLI needs, on this machine, from what the project installs: a
 * DynamoDB-compatible endpoint (dynalite, in memory), an EventBridge-compatible endpoint
 * (local-aws/local-eventbridge.ts: the buses it is given, no other, each with an archive
 * that `events replay` replays) that prints, and optionally saves, every event it receives, and a
 * Secrets Manager endpoint (local-aws/local-secrets-manager.ts) for `clubs add`.
 * Prints the environment to use, stays up until Ctrl-C or SIGTERM, then says what it received; a
 * port it cannot take ends it at once, non-zero, with what it had started closed.
 */
import { appendFileSync } from 'node:fs';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';
import {
  type LocalEventBridge,
  type ReceivedEvent,
  startLocalEventBridge,
} from '../../local-aws/local-eventbridge';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../local-aws/local-secrets-manager';
import { CliUsageError, intFlag, parseFlags } from '../args';
import { count, describeEvent } from '../format';
import { ListenError, listenError } from '../listen-error';
import { type LocalAwsWebhooks, startLocalAwsWebhooks } from '../local-stack/local-stack-webhooks';
import { checkBusName, checkEventsFile } from '../preflight';
import { watchStop } from '../stop-signal';

export const DEFAULT_DYNAMODB_PORT = 4567;
export const DEFAULT_BUS = 'gym-bridge-local';
export const LOCAL_REGION = 'us-east-1';

const HELP = `usage: npm run --silent cli -- local-aws [flags]

Starts, on 127.0.0.1, in memory:
  - a DynamoDB-compatible endpoint (dynalite), for poll, status, explain and clubs;
  - an EventBridge-compatible endpoint: PutEvents to the buses given by --bus and to no other
    (a mistyped bus fails, as in AWS), each bus with an archive of what it received, which
    events replay --bus NAME --from TIME --to now puts back on the bus (rules and targets are
    not emulated: the events are printed again, marked as replayed);
  - a Secrets Manager-compatible endpoint, for clubs add and clubs list;
prints the environment that points the AWS SDK (and the CLI) at them, and prints every event the
EventBridge endpoint receives. Runs until Ctrl-C; all data is lost when it stops.

  --port N                 DynamoDB on N, EventBridge on N+1, Secrets Manager on N+2
                                                         (default ${DEFAULT_DYNAMODB_PORT}; 0: free ports)
  --dynamodb-port N        DynamoDB port                           (overrides --port)
  --eventbridge-port N     EventBridge port                        (overrides --port)
  --secretsmanager-port N  Secrets Manager port                    (overrides --port)
  --bus NAME               an event bus to create, archive and print (repeatable;
                           default ${DEFAULT_BUS})
  --events-file FILE       also append every received event to FILE as a JSON line
  --quiet                  do not print received events

Exit: 0 after Ctrl-C or SIGTERM, 1 when a port cannot be taken, 2 on a bad flag.`;

const FLAGS = {
  port: { type: 'string' },
  'dynamodb-port': { type: 'string' },
  'eventbridge-port': { type: 'string' },
  'secretsmanager-port': { type: 'string' },
  bus: { type: 'string', multiple: true },
  'events-file': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

export interface LocalAwsPorts {
  readonly dynamodb: number;
  readonly eventbridge: number;
  readonly secretsmanager: number;
}

/** The ports from the flags: --port N gives N, N+1 and N+2; a specific flag wins; 0 is a free port. */
export function portsFromFlags(flags: {
  port?: string | undefined;
  'dynamodb-port'?: string | undefined;
  'eventbridge-port'?: string | undefined;
  'secretsmanager-port'?: string | undefined;
}): LocalAwsPorts {
  const base = intFlag('port', flags.port, { min: 0, max: 65_533, default: DEFAULT_DYNAMODB_PORT });
  const port = (flag: keyof typeof flags, offset: number) =>
    intFlag(flag, flags[flag], { min: 0, max: 65_535, default: base === 0 ? 0 : base + offset });
  const ports = {
    dynamodb: port('dynamodb-port', 0),
    eventbridge: port('eventbridge-port', 1),
    secretsmanager: port('secretsmanager-port', 2),
  };
  const taken = Object.values(ports).filter((p) => p !== 0);
  const twice = taken.find((p, i) => taken.indexOf(p) !== i);
  if (twice !== undefined)
    throw new CliUsageError(
      `the DynamoDB, EventBridge and Secrets Manager ports must differ: ${twice} is given twice`,
    );
  return ports;
}

/** The shell line that points the AWS SDK at the endpoints (dummy credentials: nothing is checked). */
export function environmentLine(endpoints: {
  dynamodb: string;
  eventbridge: string;
  secretsmanager: string;
}): string {
  return [
    'export',
    `AWS_ENDPOINT_URL_DYNAMODB=${endpoints.dynamodb}`,
    `AWS_ENDPOINT_URL_EVENTBRIDGE=${endpoints.eventbridge}`,
    `AWS_ENDPOINT_URL_SECRETS_MANAGER=${endpoints.secretsmanager}`,
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
  const replay = e.replayName === undefined ? '' : `  (replay ${e.replayName})`;
  return `${when}  ${e.eventBusName}  ${e.detailType.padEnd(34)} ${club.padEnd(8)} ${what}${replay}`;
}

interface Received {
  readonly live: Map<string, number>;
  replayed: number;
}

/** What happens to each received event: counted, appended to `eventsFile` when given, printed unless `quiet`. */
function eventSink(
  eventsFile: string | undefined,
  quiet: boolean | undefined,
  received: Received,
): (e: ReceivedEvent) => void {
  return (e) => {
    if (e.replayName === undefined)
      received.live.set(e.eventBusName, (received.live.get(e.eventBusName) ?? 0) + 1);
    else received.replayed++;
    if (eventsFile !== undefined) {
      const { id, eventBusName, source, detailType, time, detail, replayName } = e;
      const line = { id, eventBusName, source, detailType, time, detail };
      try {
        appendFileSync(
          eventsFile,
          `${JSON.stringify(replayName === undefined ? line : { ...line, 'replay-name': replayName })}\n`,
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
  readonly secrets: LocalSecretsManager;
  /** Closes all three, never throwing. */
  readonly closeAll: () => Promise<void>;
}

/**
 * Starts DynamoDB, EventBridge, then Secrets Manager. A port that cannot be taken closes what had
 * started and prints why: `undefined` (exit 1).
 */
async function startEndpoints(
  ports: LocalAwsPorts,
  buses: readonly string[],
  onEvent: (e: ReceivedEvent) => void,
): Promise<RunningEndpoints | undefined> {
  let db: EmbeddedDynamoDb | undefined;
  let events: LocalEventBridge | undefined;
  let secrets: LocalSecretsManager | undefined;
  const closeAll = async () => {
    await secrets?.close().catch(() => undefined);
    await events?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
  };
  const listen = <T>(start: () => Promise<T>, what: string, port: number, flag: string) =>
    start().catch((err: unknown) => {
      throw listenError(err, what, port, flag);
    });
  try {
    db = await listen(
      () => startEmbeddedDynamoDb({ port: ports.dynamodb }),
      'the DynamoDB endpoint',
      ports.dynamodb,
      '--dynamodb-port',
    );
    events = await listen(
      () =>
        startLocalEventBridge({
          port: ports.eventbridge,
          region: LOCAL_REGION,
          buses,
          archiveBuses: buses,
          autoCreateBuses: false,
          keepEvents: false,
          onEvent,
        }),
      'the EventBridge endpoint',
      ports.eventbridge,
      '--eventbridge-port',
    );
    secrets = await listen(
      () => startLocalSecretsManager({ port: ports.secretsmanager, region: LOCAL_REGION }),
      'the Secrets Manager endpoint',
      ports.secretsmanager,
      '--secretsmanager-port',
    );
  } catch (err) {
    await closeAll();
    if (err instanceof ListenError) {
      process.stderr.write(`gym-bridge local-aws: ${err.message}\n`);
      return undefined;
    }
    throw err;
  }
  return { db, events, secrets, closeAll };
}

/** What the running endpoints are, and the environment line to use them. */
function banner(
  endpoints: RunningEndpoints,
  buses: readonly string[],
  eventsFile: string | undefined,
  quiet: boolean | undefined,
  webhooks: readonly string[],
): string {
  const { db, events, secrets } = endpoints;
  const [bus] = buses;
  return [
    'local AWS endpoints (in memory; everything is lost when this stops; Ctrl-C to stop)',
    `  DynamoDB         ${db.endpoint}   (dynalite)`,
    `  EventBridge      ${events.endpoint}   (PutEvents, buses, archives and replays; no rules or targets)`,
    `  Secrets Manager  ${secrets.endpoint}   (for clubs add, clubs list)`,
    `  ${buses.length === 1 ? 'bus' : 'buses'}${' '.repeat(buses.length === 1 ? 14 : 12)}${buses.join(', ')}   (others do not exist: PutEvents to them fails, as in AWS)`,
    `  ${buses.length === 1 ? 'archive' : 'archives'}${' '.repeat(buses.length === 1 ? 10 : 9)}${buses.map((b) => `${b}-archive`).join(', ')}   (every event received; events replay --bus ${bus} --from TIME --to now)`,
    ...(eventsFile === undefined
      ? []
      : [`  events file      ${eventsFile}   (one JSON line per received event)`]),
    ...webhooks,
    '',
    'In the shell that runs the CLI:',
    '',
    environmentLine({
      dynamodb: db.endpoint,
      eventbridge: events.endpoint,
      secretsmanager: secrets.endpoint,
    }),
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
  const buses = [...new Set(flags.bus ?? [DEFAULT_BUS])];
  for (const bus of buses) checkBusName(bus, '--bus');
  if (buses.includes('default'))
    throw new CliUsageError('--bus default: the default bus is always there; name another');
  const eventsFile = flags['events-file'];
  if (eventsFile !== undefined) await checkEventsFile(eventsFile);

  const received: Received = { live: new Map(), replayed: 0 };
  // Webhooks: every event the first bus (the bridge's) receives is delivered to the local stack's
  // endpoints, as the stack's one rule on the bus does (docs/webhooks.md).
  const [bridgeBus] = buses as [string, ...string[]];
  let hooks: LocalAwsWebhooks | undefined;
  const print = eventSink(eventsFile, flags.quiet, received);
  const endpoints = await startEndpoints(ports, buses, (e) => {
    print(e);
    if (e.eventBusName === bridgeBus) hooks?.receive(e);
  });
  if (!endpoints) return 1;
  hooks = await startLocalAwsWebhooks({
    client: endpoints.db.client,
    eventBridgeEndpoint: endpoints.events.endpoint,
    bus: bridgeBus,
    region: LOCAL_REGION,
    quiet: flags.quiet === true,
  });
  // Watching before the banner says it is up: a signal sent as soon as it is read finds its handler.
  const stop = watchStop({
    command: 'gym-bridge local-aws',
    stopping: 'stopping the local endpoints',
    skipped: 'closing them',
  });
  process.stdout.write(banner(endpoints, buses, eventsFile, flags.quiet, hooks.banner));
  try {
    await stop.whenRequested;
    const secretCount = endpoints.secrets.names().length;
    await hooks.stop();
    await endpoints.closeAll();
    const total = [...received.live.values()].reduce((n, v) => n + v, 0);
    const byBus = [...received.live].map(([name, n]) => `${name} ${n}`).join(', ');
    const replayed = received.replayed ? `, ${count(received.replayed, 'event')} replayed` : '';
    process.stdout.write(
      `local AWS endpoints stopped: ${count(total, 'event')} received${byBus ? ` (${byBus})` : ''}${replayed}, ${count(secretCount, 'secret')} held\n`,
    );
  } finally {
    stop.release();
  }
  return 0;
}
