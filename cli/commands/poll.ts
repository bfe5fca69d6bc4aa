/**
 * `poll --clubs FILE [--club ID] [--source NAME] [--once] [--backfill-from DATETIME] [--table NAME]
 *  [--create-table] [--bus NAME] [--events-file FILE] [--interval SECONDS] [--deadline SECONDS]`
 * The real engine from a terminal: state in DynamoDB, events to EventBridge or a JSON-lines file.
 */
import { randomUUID } from 'node:crypto';
import { type ClubConfig, ClubConfigError } from '../../lambdas/clubs/club-config';
import { readClubsFile } from '../../lambdas/clubs/clubs-file';
import { formatNaive, localToUtc, naiveMs } from '../../lambdas/common/zoned-time';
import { GymApiClientFactory } from '../../lambdas/engine/club-poll/client-factory';
import type { ClubReport } from '../../lambdas/engine/club-poll/poll-club';
import { resumeClub } from '../../lambdas/engine/club-poll/resume-club';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { EventSourceError, resolveEventSource } from '../../lambdas/events/event-source';
import { EventBridgeSink, type EventSink, JsonLinesFileSink } from '../../lambdas/events/publisher';
import { DynamoDbStateStore, isSourceName, SOURCE_NAMES, type SourceName } from '../../lambdas/state';
import { createStateTable } from '../../lambdas/state/table';
import { CliUsageError, HELP_HINT, intFlag, parseFlags } from '../args';
import { dynamoDbClient, eventBridgeClient } from '../aws-env';
import { count, formatClubReport } from '../format';
import { pollFileClub } from '../poll-file-club';
import {
  checkBusExists,
  checkBusName,
  checkEventsFile,
  checkTableExists,
  checkTableName,
} from '../preflight';
import { watchStop } from '../stop-signal';
import { formatResume } from './clubs';

const HELP = `usage: npm run --silent cli -- poll --clubs FILE [flags]

  --clubs FILE            clubs file (JSON, see docs/cli.md)                 (required)
  --club ID               only this club (repeatable)
  --source NAME           only this source (repeatable): ${SOURCE_NAMES.join(', ')}
  --once                  one poll of every enabled source of every club, then exit:
                          0 every club polled (sources whose endpoint is missing for a club
                            are reported unavailable and do not fail it)
                          1 a club's poll failed (each error said once, with its sources)
                          2 bad flags or clubs file, or the table/events file is unusable
                          3 a club is paused after rejected credentials or a 429: nothing
                            polled for it; the output says why and until when
  --resume                clear the pauses (and unavailable-endpoint marks) of the clubs
                          polled, then poll them now: after fixing a password, an API key
                          or a plan (deployed table: clubs resume --club-id ID)
  --interval SECONDS      without --once: seconds between polls              (default 60)
  --deadline SECONDS      time budget of one club poll                        (default 240)
  --backfill-from TIME    publish every record since TIME again (YYYY-MM-DD or
                          YYYY-MM-DDTHH:mm:ss in the club's local time, or ISO 8601 with Z or an
                          offset; not in the future), with the eventIds already used, so consumers
                          de-duplicate; beside the regular polls, never moving their watermarks;
                          a long backfill carries on over the next polls until done
  --table NAME            DynamoDB state table                                (default gym-bridge-state)
  --create-table          create the table if it does not exist
  --bus NAME              publish to this EventBridge bus
  --events-file FILE      append events as JSON lines to FILE (instead of --bus)
  --event-source SOURCE   EventBridge \`source\` of the events (default: $GYM_BRIDGE_EVENT_SOURCE,
                          else the --stage's, else gym-bridge)
  --stage NAME            publish with the source of this deployed stage (dev: gym-bridge.dev,
                          prod: gym-bridge), so the stage's rules match the CLI's events
  --page-size N           API page size, 1..500                               (default 500)

AWS: AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_EVENTBRIDGE and the usual credentials.`;

const FLAGS = {
  clubs: { type: 'string' },
  club: { type: 'string', multiple: true },
  source: { type: 'string', multiple: true },
  once: { type: 'boolean' },
  resume: { type: 'boolean' },
  interval: { type: 'string' },
  deadline: { type: 'string' },
  'backfill-from': { type: 'string' },
  table: { type: 'string' },
  'create-table': { type: 'boolean' },
  bus: { type: 'string' },
  'events-file': { type: 'string' },
  'event-source': { type: 'string' },
  stage: { type: 'string' },
  'page-size': { type: 'string' },
} as const;

/** `--backfill-from`: an instant, or a club-local wall time converted per club. */
export function backfillInstant(value: string, club: ClubConfig, nowMs = Date.now()): number {
  const instant = isRealWallTime(value) ? parseBackfill(value, club) : undefined;
  if (instant !== undefined && Number.isFinite(instant)) {
    if (instant > nowMs)
      throw new CliUsageError(
        `--backfill-from '${value}' is in the future for ${club.clubId} (${new Date(instant).toISOString()}, now ${new Date(nowMs).toISOString()}): nothing to backfill`,
      );
    return instant;
  }
  throw new CliUsageError(
    `--backfill-from must be YYYY-MM-DD, YYYY-MM-DDTHH:mm:ss (club local time) or ISO 8601 with Z, got '${value}'`,
  );
}

function parseBackfill(value: string, club: ClubConfig): number | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value))
    return localToUtc(value, club.timeZone).instantMs;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
    return Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return localToUtc(`${value}T00:00:00`, club.timeZone).instantMs;
  return undefined;
}

/** The date and time of `value` exist on the calendar: no month 13, 30 February or 24:00 (which would roll over). */
function isRealWallTime(value: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(:\d{2})?)?/.exec(value);
  if (!m) return false;
  const wall = `${m[1]}T${m[2] ?? '00:00'}${m[3] ?? ':00'}`;
  return formatNaive(naiveMs(wall)) === wall;
}

/** Every polled source of the club has the backfill on its cursor (its report has a backfill lane). */
function backfillRecorded(r: ClubReport): boolean {
  if (r.outcome === 'paused' || r.outcome === 'disabled') return false;
  return r.sources.every((s) => s.outcome === 'unavailable' || s.backfill !== undefined);
}

/** Exit codes of \`poll --once\` (documented in HELP and the README): 1 failed, 3 paused, 0 otherwise. */
export const EXIT_POLL_FAILED = 1;
export const EXIT_CLUB_PAUSED = 3;

function onceExitCode(reports: readonly ClubReport[]): number {
  const failed = reports.filter((r) => r.outcome === 'failed');
  const paused = reports.filter((r) => r.outcome === 'paused');
  if (paused.length)
    process.stderr.write(
      `paused, not polled: ${paused.map((r) => r.clubId).join(', ')} (poll --resume clears the pause)\n`,
    );
  if (failed.length) {
    process.stderr.write(`poll failed for ${failed.map((r) => r.clubId).join(', ')}\n`);
    return EXIT_POLL_FAILED;
  }
  return paused.length ? EXIT_CLUB_PAUSED : 0;
}

/** The events' \`source\`, resolved as the stack resolves a stage's (lambdas/events/event-source.ts). */
function cliEventSource(flag: string | undefined, stage: string | undefined): string {
  try {
    return resolveEventSource({ flag, env: process.env, stage });
  } catch (err) {
    if (err instanceof EventSourceError) throw new CliUsageError(err.message);
    throw err;
  }
}

type Flags = NonNullable<ReturnType<typeof parseFlags<typeof FLAGS>>>;

/** What the flags ask for, checked before anything is opened. */
interface PollSettings {
  readonly clubs: ClubConfig[];
  readonly sources: SourceName[];
  readonly eventSource: string;
  readonly intervalSec: number;
  readonly deadlineSec: number;
  readonly pageSize: number | undefined;
  /** Each club's backfill start, while it is still to be recorded. */
  readonly backfillByClub: Map<string, number | undefined>;
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return 0;
  const settings = await readSettings(flags);
  const state = await openState(flags, settings);
  const { store } = state;
  const tally = new CountingSink(state.sink);
  const sink: EventSink = flags.once ? state.sink : tally;
  const clients = new GymApiClientFactory();
  const owner = `cli-${randomUUID()}`;
  if (flags.resume) {
    for (const club of settings.clubs) {
      const result = await resumeClub(store, club.clubId, Date.now(), { retryUnavailable: true });
      if (result.resumed.length) process.stdout.write(formatResume(result));
    }
  }
  const { clubs, sources, deadlineSec, pageSize, backfillByClub } = settings;
  const pollAll = async (): Promise<ClubReport[]> =>
    Promise.all(
      clubs.map((club) => {
        const from = backfillByClub.get(club.clubId);
        return pollFileClub({ store, sink, clients }, club, {
          owner,
          deadlineMs: Date.now() + deadlineSec * 1000,
          ...(sources.length ? { sources } : {}),
          ...(from === undefined ? {} : { backfillFromMs: from }),
          ...(pageSize ? { pageSize } : {}),
        });
      }),
    );
  if (flags.once) {
    const reports = await pollAll();
    for (const r of reports) process.stdout.write(`${formatClubReport(r)}\n`);
    return onceExitCode(reports);
  }
  await pollUntilStopped(pollAll, settings, tally);
  return 0;
}

/** The flags checked: the clubs file read, the sources, times and backfill start understood. */
async function readSettings(flags: Flags): Promise<PollSettings> {
  if (!flags.clubs) throw new CliUsageError(`--clubs FILE is required ${HELP_HINT}`);
  if (flags.bus && flags['events-file'])
    throw new CliUsageError('give either --bus or --events-file, not both');
  if (!flags.bus && !flags['events-file']) throw new CliUsageError('give --bus NAME or --events-file FILE');
  const sources = (flags.source ?? []).map((s) => {
    if (!isSourceName(s))
      throw new CliUsageError(`unknown --source '${s}' (one of ${SOURCE_NAMES.join(', ')})`);
    return s as SourceName;
  });
  const eventSource = cliEventSource(flags['event-source'], flags.stage);
  const intervalSec = intFlag('interval', flags.interval, { min: 1, max: 86_400, default: 60 });
  const deadlineSec = intFlag('deadline', flags.deadline, { min: 5, max: 3600, default: 240 });
  const pageSize = intFlag('page-size', flags['page-size'], { min: 1, max: 500 });
  const clubs = await selectedClubs(flags.clubs, flags.club);
  const backfill = flags['backfill-from'];
  const backfillByClub = new Map(
    clubs.map((c) => [c.clubId, backfill ? backfillInstant(backfill, c) : undefined]),
  );
  return { clubs, sources, eventSource, intervalSec, deadlineSec, pageSize, backfillByClub };
}

/** The clubs of the file, only those `--club` names when it is given. */
async function selectedClubs(file: string, only: readonly string[] | undefined): Promise<ClubConfig[]> {
  let clubs: ClubConfig[];
  try {
    clubs = await readClubsFile(file);
  } catch (err) {
    if (err instanceof ClubConfigError) throw new CliUsageError(err.message);
    throw err;
  }
  if (!only?.length) return clubs;
  const unknown = only.filter((id) => !clubs.some((c) => c.clubId === id));
  if (unknown.length) throw new CliUsageError(`unknown --club ${unknown.join(', ')} (not in ${file})`);
  return clubs.filter((c) => only.includes(c.clubId));
}

/** The state table and the events' destination, checked before the first API request (preflight.ts). */
async function openState(
  flags: Flags,
  settings: PollSettings,
): Promise<{ store: DynamoDbStateStore; sink: EventSink }> {
  const tableName = flags.table ?? 'gym-bridge-state';
  checkTableName(tableName);
  if (flags.bus) checkBusName(flags.bus);
  if (flags['events-file']) await checkEventsFile(flags['events-file']);
  const dynamo = dynamoDbClient();
  // A mistyped bus stops here, before the table is created or anything polled (exit 2).
  if (flags.bus) await checkBusExists(eventBridgeClient(), flags.bus, { deniedIsFine: true });
  if (flags['create-table']) await createStateTable(dynamo, tableName);
  else await checkTableExists(dynamo, tableName);
  const store = new DynamoDbStateStore({ client: dynamo, tableName });
  const source = settings.eventSource;
  const sink: EventSink = flags.bus
    ? new EventBridgeSink({ client: eventBridgeClient(), busName: flags.bus, source })
    : new JsonLinesFileSink(flags['events-file']!, { source });
  return { store, sink };
}

/**
 * What a `poll` without `--once` published, counted as the sink delivers it (every event: the
 * sources', the lifecycle's, the operational ones), for its summary at the stop.
 */
class CountingSink implements EventSink {
  rounds = 0;
  failedPolls = 0;
  readonly byType = new Map<string, number>();
  constructor(private readonly next: EventSink) {}

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    await this.next.publish(events);
    for (const e of events) this.byType.set(e.detailType, (this.byType.get(e.detailType) ?? 0) + 1);
  }

  /** The summary: rounds, events by detail-type, failed club polls. */
  lines(clubs: number): string[] {
    const total = [...this.byType.values()].reduce((n, v) => n + v, 0);
    const failed = this.failedPolls ? `, ${count(this.failedPolls, 'club poll')} failed` : '';
    const head = `gym-bridge poll: stopped after ${count(this.rounds, 'round')} of ${count(clubs, 'club')}: ${count(total, 'event')} published${failed}`;
    const types = [...this.byType].sort((x, y) => y[1] - x[1]);
    return [head, ...types.map(([type, n]) => `  ${String(n).padStart(6)}  ${type}`)];
  }
}

/**
 * Polls every `--interval` until Ctrl-C or SIGTERM, which lets the current round finish (its
 * events published, its state written), however many times it arrives (stop-signal.ts), then
 * prints the summary.
 */
async function pollUntilStopped(
  pollAll: () => Promise<ClubReport[]>,
  settings: PollSettings,
  tally: CountingSink,
): Promise<void> {
  const stop = watchStop({
    command: 'gym-bridge poll',
    stopping:
      'stopping after the current poll, once its events are published and its state written; then the summary',
    skipped: 'finishing the current poll (its events are published again by the next poll) and the summary',
  });
  try {
    while (!stop.requested) {
      const reports = await pollAll();
      tally.rounds++;
      tally.failedPolls += reports.filter((r) => r.outcome === 'failed').length;
      // A backfill is asked for until every source of the club has recorded it (a source left out
      // of a round for lack of time has not); recorded, it carries on by itself until done.
      for (const r of reports) if (backfillRecorded(r)) settings.backfillByClub.delete(r.clubId);
      for (const r of reports) process.stdout.write(`${new Date().toISOString()} ${formatClubReport(r)}\n`);
      await stop.sleep(settings.intervalSec * 1000);
    }
    process.stdout.write(`${tally.lines(settings.clubs.length).join('\n')}\n`);
  } finally {
    stop.release();
  }
}
