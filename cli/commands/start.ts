/**
 * `start`: the local demo. The sandbox with a few clubs and live activity, dynalite in process, and
 * the real engine polling on a short interval; events are printed as they are published, with a
 * compact status per club. No AWS account, no network. Ctrl-C stops cleanly.
 */
import { randomUUID } from 'node:crypto';
import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../lambdas/engine/club-poll/client-factory';
import type { ClubReport } from '../../lambdas/engine/club-poll/poll-club';
import type { PiiPolicy } from '../../lambdas/events/pii';
import { JsonLinesFileSink } from '../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../lambdas/state';
import { createStateTable } from '../../lambdas/state/table';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local-aws/embedded-dynamodb';
import { type Sandbox, startSandbox } from '../../sandbox';
import { intFlag, parseFlags, piiFlag } from '../args';
import { bold, dim, PrintingSink, statusHeading, statusLine } from '../demo-output';
import type { DemoWebhook, DemoWebhookSettings } from '../demo-webhooks';
import { count } from '../format';
import { ListenError, listenError } from '../listen-error';
import { pollFileClub } from '../poll-file-club';
import { checkEventsFile } from '../preflight';
import { type StopWatch, watchStop } from '../stop-signal';

const HELP = `usage: npm start -- [flags]      (or: npm run --silent cli -- start [flags])

  --clubs N            clubs in the sandbox                       (default 3)
  --seed N             data seed                                  (default 7)
  --speed N            simulated seconds per real second          (default 120)
  --activity N         multiplies the sandbox's activity rates    (default 4)
  --interval SECONDS   seconds between polls                      (default 2)
  --duration SECONDS   stop by itself after this long             (default: run until Ctrl-C)
  --port N             sandbox port                               (default: any free port)
  --events-file FILE   also append every event as a JSON line to FILE
  --pii full|minimal   PII policy of the demo clubs               (default minimal)
  --webhook URL        also deliver every event to URL, signed (Standard Webhooks) with
                       $GYM_BRIDGE_WEBHOOK_SECRET (without it, a new secret is printed once);
                       http and localhost allowed: try webhooks listen --port 9000`;

const FLAGS = {
  clubs: { type: 'string' },
  seed: { type: 'string' },
  speed: { type: 'string' },
  activity: { type: 'string' },
  interval: { type: 'string' },
  duration: { type: 'string' },
  port: { type: 'string' },
  'events-file': { type: 'string' },
  pii: { type: 'string' },
  webhook: { type: 'string' },
} as const;

/** Starts one server; on failure, closes what was started before it and throws a ListenError. */
async function startOrRelease<T>(
  start: () => Promise<T>,
  onError: (err: unknown) => Error,
  started: (() => Promise<void>)[],
): Promise<T> {
  try {
    return await start();
  } catch (err) {
    for (const close of started.reverse()) await close().catch(() => undefined);
    throw onError(err);
  }
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return 0;
  const clubCount = intFlag('clubs', flags.clubs, { min: 1, max: 50, default: 3 });
  const seed = intFlag('seed', flags.seed, { min: 0, default: 7 });
  const speed = intFlag('speed', flags.speed, { min: 1, max: 3600, default: 120 });
  const activity = intFlag('activity', flags.activity, { min: 1, max: 100, default: 4 });
  const intervalSec = intFlag('interval', flags.interval, { min: 1, max: 3600, default: 2 });
  const durationSec = intFlag('duration', flags.duration, { min: 1 });
  const port = intFlag('port', flags.port, { min: 0, max: 65_535, default: 0 });
  const pii = piiFlag(flags.pii);
  const eventsFile = flags['events-file'];
  if (eventsFile !== undefined) await checkEventsFile(eventsFile);
  // The delivery code (and its AWS SDK clients) is loaded only for --webhook: a plain demo starts as fast.
  const webhook =
    flags.webhook === undefined
      ? undefined
      : (await import('../demo-webhooks')).demoWebhookSettings(flags.webhook);

  // Ctrl-C from here on stops cleanly, however many times it arrives (stop-signal.ts).
  const stop = watchStop({
    command: 'gym-bridge start',
    stopping:
      'stopping after the current poll: then the summary, and the sandbox and the embedded DynamoDB are closed',
    skipped: 'the summary and closing the sandbox and the embedded DynamoDB',
  });
  try {
    return await runDemo(
      { clubCount, seed, speed, activity, intervalSec, durationSec, port, pii, eventsFile, webhook },
      stop,
    );
  } finally {
    stop.release();
  }
}

interface DemoSettings {
  readonly clubCount: number;
  readonly seed: number;
  readonly speed: number;
  readonly activity: number;
  readonly intervalSec: number;
  readonly durationSec: number | undefined;
  readonly port: number;
  readonly pii: PiiPolicy;
  readonly eventsFile: string | undefined;
  readonly webhook: DemoWebhookSettings | undefined;
}

async function runDemo(settings: DemoSettings, stop: StopWatch): Promise<number> {
  process.stdout.write(
    bold('gym-bridge local demo') + dim('  (sandbox + embedded DynamoDB + bridge; Ctrl-C to stop)\n'),
  );
  const servers = await startServers(settings);
  if (typeof servers === 'string') {
    process.stderr.write(`gym-bridge start: ${servers}\n`);
    return 1;
  }
  const { db, sandbox } = servers;
  let webhook: DemoWebhook | undefined;
  try {
    if (settings.webhook)
      webhook = await (await import('../demo-webhooks')).startDemoWebhook(
        db.client,
        settings.webhook,
        (line) => process.stdout.write(`${dim(line)}\n`),
      );
    const bridge = await demoBridge(settings, db, sandbox, webhook);
    sandbox.startLive({ speed: settings.speed });
    await pollRounds(bridge, settings, stop);
    const { sink } = bridge;
    await webhook?.stop();
    process.stdout.write(`\n${bold('stopped.')} ${count(sink.total, 'event')}:\n`);
    for (const [type, n] of [...sink.byType].sort((x, y) => y[1] - x[1])) {
      process.stdout.write(`  ${String(n).padStart(6)}  ${type}\n`);
    }
    if (webhook) process.stdout.write(`${webhook.summary()}\n`);
    return 0;
  } finally {
    await webhook?.stop();
    sandbox.stopLive();
    await sandbox.close();
    await db.close();
  }
}

/**
 * The embedded DynamoDB and the sandbox, or why they could not listen. A server that cannot listen
 * (the --port taken) ends the command at once, non-zero, with what was already started closed:
 * nothing may keep the process alive.
 */
async function startServers(
  settings: DemoSettings,
): Promise<{ db: EmbeddedDynamoDb; sandbox: Sandbox } | string> {
  const { clubCount, seed, activity, port } = settings;
  const started: (() => Promise<void>)[] = [];
  try {
    const db = await startOrRelease(
      () => startEmbeddedDynamoDb(),
      (err) => listenError(err, 'the embedded DynamoDB', 0, '--port'),
      started,
    );
    started.push(() => db.close());
    // 24-hour clubs, so that every club has activity whatever the hour the demo runs at.
    const sandbox = await startOrRelease(
      () =>
        startSandbox({
          port,
          seed,
          clubs: Array.from({ length: clubCount }, () => ({ open24h: true })),
          activityScale: activity,
        }),
      (err) => listenError(err, 'the sandbox', port, '--port'),
      started,
    );
    return { db, sandbox };
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    return err.message;
  }
}

interface DemoBridge {
  readonly clubs: ClubConfig[];
  readonly sink: PrintingSink;
  readonly poll: (club: ClubConfig) => Promise<ClubReport>;
  /** The sandbox's clock (simulated time). */
  readonly now: () => number;
}

/** The bridge over the sandbox: its state table, its clubs, a sink that prints, the poll of a club. */
async function demoBridge(
  settings: DemoSettings,
  db: EmbeddedDynamoDb,
  sandbox: Sandbox,
  webhook: DemoWebhook | undefined,
): Promise<DemoBridge> {
  const tableName = 'gym-bridge-demo';
  await createStateTable(db.client, tableName);
  const store = new DynamoDbStateStore({ client: db.client, tableName });
  const file = parseClubsFile(sandbox.clubsFile(), 'sandbox clubs');
  const clubs = file.map((c) => ({ ...c, piiPolicy: settings.pii }));
  const zones = new Map(clubs.map((c) => [c.clubId, c.timeZone]));
  const { eventsFile } = settings;
  const fileSink = eventsFile === undefined ? undefined : new JsonLinesFileSink(eventsFile);
  const sink = new PrintingSink(
    webhook ? webhook.sinkAfter(fileSink) : fileSink,
    (id) => zones.get(id) ?? 'UTC',
  );
  const clients = new GymApiClientFactory();
  const owner = `demo-${randomUUID()}`;
  const now = () => sandbox.clock.now().getTime();
  process.stdout.write(dim(`sandbox ${sandbox.url}  state table ${tableName} on ${db.endpoint}\n`));
  for (const c of clubs) process.stdout.write(dim(`  ${c.clubId}  ${c.timeZone}  ${c.plan} plan\n`));
  process.stdout.write(
    dim(
      `simulated time runs ${settings.speed}x; first poll is a silent baseline, then changes print as events\n\n`,
    ),
  );
  const poll = (club: ClubConfig) =>
    pollFileClub({ store, sink, clients, now }, club, { owner, deadlineMs: Date.now() + 60_000 });
  return { clubs, sink, poll, now };
}

/** Polls every club each `--interval` until Ctrl-C or `--duration`, with a status every ten rounds. */
async function pollRounds(bridge: DemoBridge, settings: DemoSettings, stop: StopWatch): Promise<void> {
  const { clubs, sink, now } = bridge;
  const { intervalSec, durationSec } = settings;
  const endAt = durationSec ? Date.now() + durationSec * 1000 : Number.POSITIVE_INFINITY;
  const reports = new Map<string, ClubReport>();
  let round = 0;
  while (!stop.requested && Date.now() < endAt) {
    round++;
    const results = await Promise.all(
      clubs.map((club) =>
        bridge.poll(club).catch((err: unknown) => {
          process.stderr.write(`${club.clubId}: poll crashed: ${err instanceof Error ? err.message : err}\n`);
          return undefined;
        }),
      ),
    );
    results.forEach((r, i) => {
      if (r) reports.set(clubs[i]!.clubId, r);
    });
    if (round === 1) process.stdout.write(dim('baseline recorded; watching for changes...\n'));
    if (round % 10 === 0 || round === 1) {
      const simNow = now();
      process.stdout.write(dim(`${statusHeading(simNow, sink.total)}\n`));
      for (const club of clubs)
        process.stdout.write(
          `   ${statusLine(club, reports.get(club.clubId), sink.byClub.get(club.clubId) ?? 0, simNow)}\n`,
        );
    }
    await stop.sleep(Math.min(intervalSec * 1000, Math.max(0, endAt - Date.now())));
  }
}
