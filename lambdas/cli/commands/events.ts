/**
 * `events sample|replay`: for the teams downstream of the bus.
 *
 * - `events sample --type T`: realistic events of one detail-type, produced by the real engine
 *   against an in-process sandbox (lambdas/cli/sample-events/), printed one JSON a line as a
 *   rule target receives them, as the detail alone, or as PutEvents entries.
 * - `events replay --archive NAME|ARN --from T --to T`: an EventBridge replay of the deployed
 *   bus's archive, limited to rules (their patterns), with progress; Ctrl-C cancels it.
 * - `events replay --file events.jsonl --bus NAME`: an events file (`poll --events-file`) onto a
 *   bus, validated whole first, then PutEvents in batches of 10 with retries, with progress.
 */
import { readFile, stat } from 'node:fs/promises';
import { logger } from '../../common/logger';
import { EventPatternError, eventPatternMatcher } from '../../event-tooling/event-pattern';
import {
  SAMPLE_ACCOUNT,
  SAMPLE_REGION,
  toEventBridgeEvent,
  toPutEventsEntry,
} from '../../event-tooling/eventbridge-event';
import {
  EventsFileError,
  type FileEvent,
  parseEventsFile,
  ReplaySendError,
  sendEvents,
} from '../../event-tooling/events-file';
import { REPLAY_NAME, ReplayInputError, startArchiveReplay } from '../../event-tooling/replay';
import { formatProgress, watchReplay } from '../../event-tooling/replay-watch';
import { ALL_DETAIL_TYPES, type BridgeEvent, type DetailType, isDetailType } from '../../events/catalog';
import { EventSourceError, resolveEventSource } from '../../events/event-source';
import { CliUsageError, intFlag, parseFlags } from '../args';
import { eventBridgeClient } from '../aws-env';
import { checkBusExists, checkBusName } from '../preflight';
import { MAX_SAMPLE_COUNT, SAMPLE_METHODS, SAMPLE_START, SampleError, sampleEvents } from '../sample-events';
import { watchStop } from '../stop-signal';

export const summary =
  "sample events for consumers' tests (real engine, sandbox); replay history to a bus (archive or events file)";

const FORMATS = ['eventbridge', 'detail', 'putevents'] as const;
type Format = (typeof FORMATS)[number];

const typeList = ALL_DETAIL_TYPES.map((t) => `    ${t.padEnd(36)} ${SAMPLE_METHODS[t]}`).join('\n');

const HELP = `usage: npm run --silent cli -- events <sample|replay> [flags]

events sample --type TYPE [--count N] [--seed N] [--format eventbridge|detail|putevents]
              [--event-source SOURCE | --stage NAME] [--pii minimal|full] [--account ID]
              [--region REGION] [--bus NAME]
  Prints N realistic events of one detail-type for your tests, one JSON a line on stdout, each
  valid against its schema. They are produced by the real engine polling an in-process API
  sandbox (seeded, simulated clock from ${SAMPLE_START}, memory state; no network, no AWS): the same
  seed prints the same events, eventIds included. The operational types are produced by provoking
  their condition in the sandbox, never written by hand. How each type is produced:
${typeList}

  --type TYPE            a detail-type, as above (quote it: --type "Payment Failed")   (required)
  --count N              events, 1..${MAX_SAMPLE_COUNT}                                       (default 3)
  --seed N               sandbox seed: other members, amounts, times                 (default 1)
  --format eventbridge   the whole event as a rule target (your Lambda) receives it:
                           { version, id, detail-type, source, account, time, region,
                             resources, detail }                                   (default)
           detail        the detail alone
           putevents     PutEvents request entries { Source, DetailType, Detail, Time[,
                           EventBusName] } (aws events put-events --entries takes an array
                           of up to 10: jq -sc '.[:10]')
  --event-source SOURCE  the EventBridge source (default $GYM_BRIDGE_EVENT_SOURCE, else the
                         --stage's, else gym-bridge)
  --stage NAME           the source of a deployed stage (dev: gym-bridge.dev, prod: gym-bridge)
  --pii minimal|full     the club's PII policy (default minimal, as deployed clubs)
  --account ID           \`account\` of eventbridge events                      (default ${SAMPLE_ACCOUNT})
  --region REGION        \`region\` of eventbridge events                       (default ${SAMPLE_REGION})
  --bus NAME             EventBusName of putevents entries

events replay --archive NAME|ARN | --bus NAME|ARN  --from TIME --to TIME [--rule NAME|ARN]...
              [--name REPLAY] [--interval SECONDS] [--detach]
  Replays the deployed bus's archive for a window (EventBridge StartReplay), then follows it
  (DescribeReplay every --interval seconds: state and the share of the window replayed) until it
  is COMPLETED (exit 0), FAILED or CANCELLED (exit 1). Ctrl-C cancels the replay (CancelReplay,
  said on stderr) and waits for it to stop; a second Ctrl-C, 3 s or more after the first (copies
  of one Ctrl-C are ignored), stops waiting (exit 130).
  --archive NAME|ARN   the bus's archive (aws events list-archives --event-source-arn BUS_ARN);
                       without it, the one archive of --bus (the stack gives its bus one)
  --from, --to TIME    the window of event times: ISO 8601 with Z or an offset, YYYY-MM-DD
                       (UTC midnight), or now (--to). It must lie within the archive's
                       retention (older events are deleted); events reach the archive up to
                       about 10 minutes after they were put, so a window ending now may miss some
  --bus NAME|ARN       the destination: only the bus the archive records (the default),
                       e.g. the stack output EventBusName
  --rule NAME|ARN      only these rules' targets receive the events (repeatable): this is how
                       a replay is limited to a pattern (the rules whose pattern you want).
                       Without --rule, EVERY rule of the bus (every consumer) receives them
  --name REPLAY        replay name (default gym-bridge-<from>-<to>-<random>)
  --interval SECONDS   between progress checks                                  (default 5)
  --detach             start it, print its name, do not follow it
  Replayed events carry a top-level "replay-name" field (the replay's name): consumers tell
  them from live events by it, and a rule can leave them out with
  {"replay-name": [{"exists": false}]}. Their detail.eventId is unchanged: de-duplicate on it.

events replay --file FILE --bus NAME|ARN [--type TYPE]... [--pattern JSON]
              [--event-source SOURCE | --stage NAME] [--dry-run]
  Puts the events of an events file (the JSON lines poll --events-file and local-aws
  --events-file write) on a bus, for local work (e.g. the bus of local-aws). Every line is
  parsed and validated first: a bad line stops it before anything is sent (exit 2, with the
  line number); a last line cut short by a crash is skipped with a warning. Then PutEvents in
  batches of 10 (failed entries retried with backoff), printing "sent N of M".
  --type TYPE            only events of this detail-type (repeatable)
  --pattern JSON         only events an EventBridge event pattern matches, e.g.
                         '{"detail-type": ["Payment Failed"], "detail": {"reason": ["dishonoured"]}}'
                         or --pattern "$(cat pattern.json)": matched offline (EventBridge's rules)
                         against the event as the bus sees it, with the source it is sent with;
                         account and region are not meaningful here
  --event-source SOURCE  send with this source instead of each line's own
  --stage NAME           send with the source of this deployed stage
                         (without either, each line's own source; $GYM_BRIDGE_EVENT_SOURCE
                         does not replace it)
  --dry-run              say what would be sent, send nothing

AWS (replay): AWS_REGION, AWS_ENDPOINT_URL_EVENTBRIDGE and the usual credentials.
Exit: 0 done, 1 failed (AWS refused, a replay FAILED or CANCELLED, events not delivered),
2 bad flags, file or archive/window, 130 stopped waiting with Ctrl-C.`;

const FLAGS = {
  type: { type: 'string', multiple: true },
  count: { type: 'string' },
  seed: { type: 'string' },
  format: { type: 'string' },
  'event-source': { type: 'string' },
  stage: { type: 'string' },
  pii: { type: 'string' },
  account: { type: 'string' },
  region: { type: 'string' },
  bus: { type: 'string' },
  archive: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  rule: { type: 'string', multiple: true },
  name: { type: 'string' },
  interval: { type: 'string' },
  detach: { type: 'boolean' },
  file: { type: 'string' },
  pattern: { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

type Flags = NonNullable<ReturnType<typeof parseFlags<typeof FLAGS>>>;

const MODE_FLAGS: Record<'sample' | 'archive' | 'file', readonly (keyof Flags)[]> = {
  sample: ['type', 'count', 'seed', 'format', 'event-source', 'stage', 'pii', 'account', 'region', 'bus'],
  archive: ['archive', 'from', 'to', 'bus', 'rule', 'name', 'interval', 'detach'],
  file: ['file', 'bus', 'type', 'pattern', 'event-source', 'stage', 'dry-run'],
};

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (!subcommand || subcommand === '--help' || subcommand === '-h') {
    if (subcommand) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    throw new CliUsageError(`a subcommand is required: sample or replay\n\n${HELP}`);
  }
  if (subcommand !== 'sample' && subcommand !== 'replay')
    throw new CliUsageError(`unknown subcommand '${subcommand}' (sample or replay)\n\n${HELP}`);
  const flags = parseFlags(rest, FLAGS, HELP);
  if (!flags) return 0;
  let mode: keyof typeof MODE_FLAGS;
  if (subcommand === 'sample') mode = 'sample';
  else if (flags.archive !== undefined && flags.file !== undefined)
    throw new CliUsageError('events replay: give either --archive or --file, not both');
  else if (flags.archive !== undefined) mode = 'archive';
  else if (flags.file !== undefined) mode = 'file';
  // --bus with a window and no file: that bus's archive.
  else if (flags.from !== undefined || flags.to !== undefined) mode = 'archive';
  else
    throw new CliUsageError(
      'events replay needs --archive NAME|ARN or --bus NAME with --from/--to (the deployed archive), or --file FILE',
    );
  const allowed = MODE_FLAGS[mode];
  const misplaced = (Object.keys(flags) as (keyof Flags)[]).filter((f) => !allowed.includes(f));
  if (misplaced.length > 0) {
    const what = mode === 'sample' ? 'events sample' : `events replay --${mode}`;
    throw new CliUsageError(`${what} does not take ${misplaced.map((f) => `--${f}`).join(', ')}`);
  }
  if (mode === 'sample') return sample(flags);
  if (mode === 'archive') return replayArchive(flags);
  return replayFile(flags);
}

// ---------------------------------------------------------------------------------------------
// sample

function detailTypeFlag(value: string, flag = '--type'): DetailType {
  if (isDetailType(value)) return value;
  const loose = ALL_DETAIL_TYPES.find((t) => t.toLowerCase() === value.trim().toLowerCase());
  const hint = loose ? ` (did you mean '${loose}'?)` : '';
  throw new CliUsageError(
    `unknown ${flag} '${value}'${hint}: one of\n${ALL_DETAIL_TYPES.map((t) => `  ${t}`).join('\n')}`,
  );
}

/**
 * The source flags (--event-source, --stage, then $GYM_BRIDGE_EVENT_SOURCE when `useEnv`), as poll
 * resolves them; undefined when none is given.
 */
function cliEventSource(
  flag: string | undefined,
  stage: string | undefined,
  useEnv: boolean,
): string | undefined {
  const env = useEnv ? process.env : {};
  if (flag === undefined && stage === undefined && env.GYM_BRIDGE_EVENT_SOURCE === undefined)
    return undefined;
  try {
    return resolveEventSource({ flag, env, stage });
  } catch (err) {
    if (err instanceof EventSourceError) throw new CliUsageError(err.message);
    throw err;
  }
}

async function sample(flags: Flags): Promise<number> {
  const types = flags.type ?? [];
  if (types.length === 0)
    throw new CliUsageError(`--type is required: one of ${ALL_DETAIL_TYPES.join(', ')}`);
  if (types.length > 1) throw new CliUsageError('events sample takes one --type');
  const detailType = detailTypeFlag(types[0]!);
  const count = intFlag('count', flags.count, { min: 1, max: MAX_SAMPLE_COUNT, default: 3 });
  const seed = intFlag('seed', flags.seed, { min: 0, max: 2 ** 31 - 1, default: 1 });
  const format = (flags.format ?? 'eventbridge') as Format;
  if (!FORMATS.includes(format))
    throw new CliUsageError(`--format must be one of ${FORMATS.join(', ')}, got '${flags.format}'`);
  const pii = flags.pii ?? 'minimal';
  if (pii !== 'minimal' && pii !== 'full')
    throw new CliUsageError(`--pii must be minimal or full, got '${pii}'`);
  if (flags.account !== undefined && !/^\d{12}$/.test(flags.account))
    throw new CliUsageError(`--account must be 12 digits, got '${flags.account}'`);
  if (flags.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(flags.region))
    throw new CliUsageError(`--region must be an AWS region such as eu-west-1, got '${flags.region}'`);
  if (flags.bus !== undefined) {
    if (format !== 'putevents') throw new CliUsageError('--bus goes with --format putevents');
    checkBusName(flags.bus);
  }
  const source = cliEventSource(flags['event-source'], flags.stage, true) ?? 'gym-bridge';

  // The engine logs the failures the operational samples provoke (401, 429, 503, 404): by design
  // here, so not shown unless asked for with --log-level info or debug.
  const level = logger.getLevelName();
  const quiet = level !== 'DEBUG' && level !== 'INFO' && level !== 'TRACE';
  if (quiet) logger.setLogLevel('SILENT');
  let events: BridgeEvent[];
  try {
    events = await sampleEvents({ detailType, count, seed, piiPolicy: pii });
  } catch (err) {
    if (err instanceof SampleError) {
      process.stderr.write(`gym-bridge events sample: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    if (quiet) logger.setLogLevel(level);
  }
  const lines = events.map((event) => {
    if (format === 'detail') return JSON.stringify(event.detail);
    if (format === 'putevents') return JSON.stringify(toPutEventsEntry(event, source, flags.bus));
    return JSON.stringify(
      toEventBridgeEvent(event, {
        source,
        ...(flags.account ? { account: flags.account } : {}),
        ...(flags.region ? { region: flags.region } : {}),
      }),
    );
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// replay --archive

/** --from / --to: ISO 8601 with Z or an offset, YYYY-MM-DD (UTC), or `now`. */
export function parseInstant(flag: string, value: string | undefined, nowMs = Date.now()): number {
  if (value === undefined)
    throw new CliUsageError(`--${flag} TIME is required (ISO 8601 with Z or an offset, or YYYY-MM-DD)`);
  if (value === 'now') return nowMs;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const m = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  const ms = m ? Date.parse(text) : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March 2: a day the calendar does not have is refused.
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const real = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && month >= 1 && month <= 12;
  if (!Number.isFinite(ms) || !real)
    throw new CliUsageError(
      `--${flag} must be ISO 8601 with Z or an offset (2026-03-02T06:00:00Z), YYYY-MM-DD (UTC) or now, got '${value}'`,
    );
  return ms;
}

const EXIT_INTERRUPTED = 130;

async function replayArchive(flags: Flags): Promise<number> {
  const nowMs = Date.now();
  const fromMs = parseInstant('from', flags.from, nowMs);
  const toMs = parseInstant('to', flags.to, nowMs);
  const intervalSec = intFlag('interval', flags.interval, { min: 1, max: 300, default: 5 });
  if (flags.archive === undefined && flags.bus === undefined)
    throw new CliUsageError('events replay --from/--to needs --archive NAME|ARN or --bus NAME (its archive)');
  if (flags.name !== undefined && !REPLAY_NAME.test(flags.name))
    throw new CliUsageError(`--name may use 1 to 64 letters, digits, '.', '-' and '_', got '${flags.name}'`);
  if (flags.bus !== undefined) checkBusName(flags.bus);
  const client = eventBridgeClient();
  let started: Awaited<ReturnType<typeof startArchiveReplay>>;
  try {
    started = await startArchiveReplay(client, {
      ...(flags.archive ? { archive: flags.archive } : {}),
      fromMs,
      toMs,
      nowMs,
      ...(flags.bus ? { bus: flags.bus } : {}),
      rules: flags.rule ?? [],
      ...(flags.name ? { name: flags.name } : {}),
    });
  } catch (err) {
    if (err instanceof ReplayInputError) throw new CliUsageError(err.message);
    return awsFailure('could not start the replay', err);
  }
  for (const warning of started.warnings) process.stderr.write(`note: ${warning}\n`);
  const window = `${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}`;
  const to = started.filterArns.length
    ? `the targets of ${started.filterArns.length} rule(s): ${started.filterArns.join(', ')}`
    : 'EVERY rule of the bus';
  process.stdout.write(
    `replay ${started.name} started: archive ${started.archive.name}, events of ${window}, to ${started.destinationArn}, ${to}\n`,
  );
  if (flags.detach) {
    process.stdout.write(
      `not followed (--detach): aws events describe-replay --replay-name ${started.name}; cancel: aws events cancel-replay --replay-name ${started.name}\n`,
    );
    return 0;
  }

  const cancel = new AbortController();
  const detach = new AbortController();
  // The first Ctrl-C cancels the replay and waits for it; a deliberate second one (after the grace
  // period: duplicates of the first are ignored, stop-signal.ts) stops waiting; a third exits.
  const stop = watchStop({
    command: 'gym-bridge events replay',
    stopping: `cancelling replay ${started.name} (CancelReplay); waiting for it to stop`,
    again: 'stops waiting (the cancellation stands)',
    skipped: `waiting for replay ${started.name} to stop (the cancellation stands)`,
    onRepeat: () => detach.abort(),
  });
  void stop.whenRequested.then(() => cancel.abort());
  let lastLine = '';
  try {
    const result = await watchReplay(client, started.name, {
      fromMs,
      toMs,
      intervalMs: intervalSec * 1000,
      cancel: cancel.signal,
      detach: detach.signal,
      onProgress: (p) => {
        const line = formatProgress(p);
        if (line !== lastLine)
          process.stdout.write(`${new Date().toISOString()}  ${started.name}  ${line}\n`);
        lastLine = line;
      },
      onCancel: (c) =>
        process.stderr.write(
          c.sent
            ? `CancelReplay sent for ${started.name}${c.state ? ` (${c.state})` : ''}\n`
            : `CancelReplay refused (${c.error}): the replay had already ended\n`,
        ),
    });
    if (result.state === 'COMPLETED') {
      process.stdout.write(
        `replay ${started.name} completed: every archived event of ${window} was replayed\n`,
      );
      return 0;
    }
    if (result.state === 'DETACHED') {
      process.stderr.write(
        `stopped waiting; replay ${started.name} is being cancelled (aws events describe-replay --replay-name ${started.name})\n`,
      );
      return EXIT_INTERRUPTED;
    }
    const reason = result.progress?.reason ? `: ${result.progress.reason}` : '';
    process.stderr.write(`replay ${started.name} ${result.state}${reason}\n`);
    return result.state === 'CANCELLED' && result.cancelRequested ? EXIT_INTERRUPTED : 1;
  } catch (err) {
    return awsFailure(`could not follow replay ${started.name}`, err);
  } finally {
    stop.release();
  }
}

function awsFailure(what: string, err: unknown): number {
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.stderr.write(`gym-bridge events replay: ${what}: ${reason}\n`);
  return 1;
}

// ---------------------------------------------------------------------------------------------
// replay --file

async function replayFile(flags: Flags): Promise<number> {
  const path = flags.file!;
  if (!flags.bus)
    throw new CliUsageError('events replay --file needs --bus NAME|ARN (the bus to put them on)');
  checkBusName(flags.bus);
  const types = new Set((flags.type ?? []).map((t) => detailTypeFlag(t)));
  const matcher = flags.pattern === undefined ? undefined : patternMatcher(flags.pattern);
  // Each line carries its source: only a flag replaces it (not $GYM_BRIDGE_EVENT_SOURCE).
  const sourceOverride = cliEventSource(flags['event-source'], flags.stage, false);

  const info = await stat(path).catch(() => undefined);
  if (!info) throw new CliUsageError(`--file ${path}: no such file`);
  if (info.isDirectory()) throw new CliUsageError(`--file ${path} is a directory, not an events file`);
  let parsed: ReturnType<typeof parseEventsFile>;
  try {
    parsed = parseEventsFile(await readFile(path, 'utf8'), path);
  } catch (err) {
    if (err instanceof EventsFileError) throw new CliUsageError(`${err.message}\nnothing was sent`);
    throw err;
  }
  if (parsed.tornLastLine !== undefined)
    process.stderr.write(
      `note: ${path}, line ${parsed.tornLastLine}: an incomplete last line (a write cut short), skipped\n`,
    );
  const selected = parsed.events.filter(
    (e) =>
      (types.size === 0 || types.has(e.event.detailType)) &&
      (!matcher || matcher(e, sourceOverride ?? e.source)),
  );
  const left = parsed.events.length - selected.length;
  const filtered = left > 0 ? ` (${left} left out by --type/--pattern)` : '';
  if (flags['dry-run']) {
    process.stdout.write(
      `would send ${selected.length} of ${parsed.events.length} events to ${flags.bus}${filtered}\n`,
    );
    for (const [type, n] of countByType(selected))
      process.stdout.write(`  ${String(n).padStart(6)}  ${type}\n`);
    return 0;
  }
  if (selected.length === 0) {
    process.stdout.write(`nothing to send: ${parsed.events.length} events in ${path}${filtered}\n`);
    return 0;
  }
  const client = eventBridgeClient();
  await checkBusExists(client, flags.bus);
  process.stdout.write(`sending ${selected.length} events to ${flags.bus}${filtered}\n`);
  try {
    await sendEvents(selected, {
      client,
      busName: flags.bus,
      ...(sourceOverride ? { sourceOverride } : {}),
      onProgress: (sent, total) => process.stdout.write(`sent ${sent} of ${total}\n`),
    });
  } catch (err) {
    if (err instanceof ReplaySendError) {
      process.stderr.write(`gym-bridge events replay: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  process.stdout.write(`done: ${selected.length} events put on ${flags.bus}\n`);
  return 0;
}

function countByType(events: readonly FileEvent[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.event.detailType, (counts.get(e.event.detailType) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

/**
 * --pattern: an EventBridge event pattern (JSON), matched offline (lambdas/events/event-pattern.ts)
 * against each event as the bus would see it, with the source it will be sent with. A pattern
 * EventBridge would refuse is a usage error, before the file is read.
 */
function patternMatcher(text: string): (e: FileEvent, source: string) => boolean {
  let matches: (event: unknown) => boolean;
  try {
    matches = eventPatternMatcher(text);
  } catch (err) {
    if (err instanceof EventPatternError) throw new CliUsageError(`--pattern: ${err.message}`);
    throw err;
  }
  const region = process.env.AWS_REGION ?? SAMPLE_REGION;
  return (e, source) => matches(toEventBridgeEvent(e.event, { source, region }));
}
