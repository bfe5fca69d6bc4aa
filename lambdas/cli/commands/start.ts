/**
 * `start`: the local demo. The sandbox with a few clubs and live activity, dynalite in process, and
 * the real engine polling on a short interval; events are printed as they are published, with a
 * compact status per club. No AWS account, no network. Ctrl-C stops cleanly.
 */
import { randomUUID } from 'node:crypto';
import { type ClubConfig, parseClubsFile } from '../../clubs/club-config';
import { GymApiClientFactory } from '../../engine/client-factory';
import type { ClubReport } from '../../engine/poll-club';
import type { BridgeEvent } from '../../events/catalog';
import type { EventSink } from '../../events/publisher';
import { JsonLinesFileSink } from '../../events/publisher';
import { type Sandbox, startSandbox } from '../../sandbox';
import { DynamoDbStateStore } from '../../state';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../state/embedded-dynamodb';
import { createStateTable } from '../../state/table';
import { intFlag, parseFlags } from '../args';
import { describeEvent } from '../format';
import { ListenError, listenError } from '../listen-error';
import { pollFileClub } from '../poll-file-club';
import { checkEventsFile } from '../preflight';
import { type StopWatch, watchStop } from '../stop-signal';

export const summary = 'local demo: sandbox + embedded DynamoDB + bridge, events printed live';

const HELP = `usage: npm start -- [flags]      (or: npm run --silent cli -- start [flags])

  --clubs N            clubs in the sandbox                       (default 3)
  --seed N             data seed                                  (default 7)
  --speed N            simulated seconds per real second          (default 120)
  --activity N         multiplies the sandbox's activity rates    (default 4)
  --interval SECONDS   seconds between polls                      (default 2)
  --duration SECONDS   stop by itself after this long             (default: run until Ctrl-C)
  --port N             sandbox port                               (default: any free port)
  --events-file FILE   also append every event as a JSON line to FILE
  --pii full|minimal   PII policy of the demo clubs               (default minimal)`;

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
} as const;

const tty = process.stdout.isTTY === true;
const paint = (code: number, text: string) => (tty ? `\u001b[${code}m${text}\u001b[0m` : text);
const dim = (t: string) => paint(2, t);
const bold = (t: string) => paint(1, t);

const COLOURS: Record<string, number> = {
  'Payment Failed': 31,
  'Member Status Changed': 33,
  'Member Sent To Debt Collection': 31,
  'Prospect Created': 36,
  'Prospect Status Changed': 36,
  'Member Joined': 32,
  'Payment Succeeded': 32,
  'Club Credentials Rejected': 35,
  'Club Quota Low': 35,
  'Club Data Stale': 35,
};

/** Prints each event as it is published, then passes it on. */
class PrintingSink implements EventSink {
  total = 0;
  readonly byType = new Map<string, number>();
  readonly byClub = new Map<string, number>();
  constructor(
    private readonly next: EventSink | undefined,
    private readonly zoneOf: (clubId: string) => string,
  ) {}

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    if (this.next) await this.next.publish(events);
    for (const e of events) {
      this.total++;
      this.byType.set(e.detailType, (this.byType.get(e.detailType) ?? 0) + 1);
      this.byClub.set(e.detail.clubId, (this.byClub.get(e.detail.clubId) ?? 0) + 1);
      const d = e.detail;
      const when = d.occurredAtLocal ?? localClock(d.occurredAt, this.zoneOf(d.clubId));
      const type = paint(COLOURS[e.detailType] ?? 0, e.detailType.padEnd(34));
      process.stdout.write(
        `${dim(when.replace('T', ' '))}  ${d.clubId.padEnd(7)} ${type} ${describeEvent(e)}\n`,
      );
    }
  }
}

function localClock(iso: string, zone: string): string {
  return new Date(iso).toLocaleString('sv-SE', { timeZone: zone }).replace(' ', 'T');
}

/**
 * One status line per club, on one clock: the simulated one (the clock the events' times come
 * from), as the club's local time. The wall clock of the machine running the demo never appears.
 */
export function statusLine(
  club: Pick<ClubConfig, 'clubId' | 'timeZone'>,
  report: Pick<ClubReport, 'outcome' | 'failures' | 'requests'> | undefined,
  events: number,
  simNowMs: number,
): string {
  if (!report) return `${club.clubId}: starting`;
  const failures = report.failures.map((f) => `${f.source}: ${f.kind}`).join(', ');
  const local = localClock(new Date(simNowMs).toISOString(), club.timeZone).replace('T', ' ');
  return [
    bold(club.clubId.padEnd(7)),
    report.outcome === 'ok' ? paint(32, 'ok') : paint(31, report.outcome),
    `simulated ${local} ${club.timeZone}`,
    `${events} events`,
    `${report.requests} API requests last poll`,
    failures,
  ]
    .filter(Boolean)
    .join('  ');
}

/** The heading above the status lines: the simulated clock in UTC, labelled as such. */
export function statusHeading(simNowMs: number, totalEvents: number): string {
  const utc = new Date(simNowMs).toISOString().slice(0, 19).replace('T', ' ');
  return `-- simulated ${utc} UTC, ${totalEvents} events so far`;
}

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
  const pii = flags.pii ?? 'minimal';
  if (pii !== 'full' && pii !== 'minimal') {
    process.stderr.write(`--pii must be full or minimal, got '${pii}'\n`);
    return 2;
  }
  const eventsFile = flags['events-file'];
  if (eventsFile !== undefined) await checkEventsFile(eventsFile);

  // Ctrl-C from here on stops cleanly, however many times it arrives (stop-signal.ts).
  const stop = watchStop({
    command: 'gym-bridge start',
    stopping:
      'stopping after the current poll: then the summary, and the sandbox and the embedded DynamoDB are closed',
    skipped: 'the summary and closing the sandbox and the embedded DynamoDB',
  });
  try {
    return await runDemo(
      { clubCount, seed, speed, activity, intervalSec, durationSec, port, pii, eventsFile },
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
  readonly pii: 'full' | 'minimal';
  readonly eventsFile: string | undefined;
}

async function runDemo(settings: DemoSettings, stop: StopWatch): Promise<number> {
  const { clubCount, seed, speed, activity, intervalSec, durationSec, port, pii, eventsFile } = settings;
  process.stdout.write(
    bold('gym-bridge local demo') + dim('  (sandbox + embedded DynamoDB + bridge; Ctrl-C to stop)\n'),
  );
  // A server that cannot listen (the --port taken) ends the command at once, non-zero, with what
  // was already started closed: nothing may keep the process alive.
  const started: (() => Promise<void>)[] = [];
  let db: EmbeddedDynamoDb;
  let sandbox: Sandbox;
  try {
    db = await startOrRelease(
      () => startEmbeddedDynamoDb(),
      (err) => listenError(err, 'the embedded DynamoDB', 0, '--port'),
      started,
    );
    started.push(() => db.close());
    // 24-hour clubs, so that every club has activity whatever the hour the demo runs at.
    sandbox = await startOrRelease(
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
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    process.stderr.write(`gym-bridge start: ${err.message}\n`);
    return 1;
  }
  const cleanup = async () => {
    sandbox.stopLive();
    await sandbox.close();
    await db.close();
  };
  try {
    const tableName = 'gym-bridge-demo';
    await createStateTable(db.client, tableName);
    const store = new DynamoDbStateStore({ client: db.client, tableName });
    const file = parseClubsFile(sandbox.clubsFile(), 'sandbox clubs');
    const clubs = file.map((c) => ({ ...c, piiPolicy: pii }));
    const zones = new Map(clubs.map((c) => [c.clubId, c.timeZone]));
    const sink = new PrintingSink(
      eventsFile === undefined ? undefined : new JsonLinesFileSink(eventsFile),
      (id) => zones.get(id) ?? 'UTC',
    );
    const clients = new GymApiClientFactory();
    const owner = `demo-${randomUUID()}`;
    const now = () => sandbox.clock.now().getTime();

    process.stdout.write(dim(`sandbox ${sandbox.url}  state table ${tableName} on ${db.endpoint}\n`));
    for (const c of clubs) process.stdout.write(dim(`  ${c.clubId}  ${c.timeZone}  ${c.plan} plan\n`));
    process.stdout.write(
      dim(`simulated time runs ${speed}x; first poll is a silent baseline, then changes print as events\n\n`),
    );

    const endAt = durationSec ? Date.now() + durationSec * 1000 : Number.POSITIVE_INFINITY;
    const reports = new Map<string, ClubReport>();
    let round = 0;
    sandbox.startLive({ speed });
    while (!stop.requested && Date.now() < endAt) {
      round++;
      const results = await Promise.all(
        clubs.map((club) =>
          pollFileClub({ store, sink, clients, now }, club, { owner, deadlineMs: Date.now() + 60_000 }).catch(
            (err: unknown) => {
              process.stderr.write(
                `${club.clubId}: poll crashed: ${err instanceof Error ? err.message : err}\n`,
              );
              return undefined;
            },
          ),
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
    process.stdout.write(`\n${bold('stopped.')} ${sink.total} events:\n`);
    for (const [type, n] of [...sink.byType].sort((a, b) => b[1] - a[1])) {
      process.stdout.write(`  ${String(n).padStart(6)}  ${type}\n`);
    }
    return 0;
  } finally {
    await cleanup();
  }
}
