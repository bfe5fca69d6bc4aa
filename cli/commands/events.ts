/**
 * `events sample|replay|match`: for the teams downstream of the bus.
 *
 * - `events sample --type T`: realistic events of one detail-type, produced by the real engine
 *   against an in-process sandbox (cli/sample-events/), printed one JSON a line as a
 *   rule target receives them, as the detail alone, or as PutEvents entries.
 * - `events replay --archive NAME|ARN --from T --to T`: an EventBridge replay of the deployed
 *   bus's archive, limited to rules (their patterns), with progress; Ctrl-C cancels it.
 * - `events replay --file events.jsonl --bus NAME`: an events file (`poll --events-file`) onto a
 *   bus, validated whole first, then PutEvents in batches of 10 with retries, with progress.
 * - `events match --pattern FILE --event FILE`: whether a rule pattern matches events, and the
 *   first field that fails when it does not.
 *
 * This file holds the help and the dispatch; each subcommand is in ./events/.
 */

import { SAMPLE_ACCOUNT, SAMPLE_REGION } from '../../event-tooling/eventbridge-event';
import { ALL_DETAIL_TYPES } from '../../lambdas/events/catalog';
import { CliUsageError, HELP_HINT, parseFlags } from '../args';
import { MAX_SAMPLE_COUNT, SAMPLE_METHODS, SAMPLE_START } from '../sample-events';
import { FLAGS, type Flags } from './events/flags';
import { match } from './events/match';
import { replayArchive } from './events/replay-archive';
import { replayFile } from './events/replay-file';
import { sample } from './events/sample';

export { parseInstant } from './events/replay-archive';

const typeList = ALL_DETAIL_TYPES.map((t) => `    ${t.padEnd(36)} ${SAMPLE_METHODS[t]}`).join('\n');

/** Each subcommand's part of the help: `events <sub> --help` prints its own, `events --help` all. */
const SECTIONS = {
  sample: `events sample --type TYPE [--count N] [--seed N] [--format eventbridge|detail|putevents]
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
  --bus NAME             EventBusName of putevents entries`,
  replay: `events replay --archive NAME|ARN | --bus NAME|ARN  --from TIME --to TIME [--rule NAME|ARN]...
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
  --dry-run              say what would be sent, send nothing`,
  match: `events match --pattern FILE|JSON --event FILE|JSON [--json]
  Says whether an EventBridge rule pattern matches each event and, when it does not, the first
  field of the pattern that fails, with the values the pattern wants and the value the event has
  ("why didn't my rule fire?"). Offline: the matcher of @gym-bridge/events (EventBridge's content
  filtering), no AWS.
  --pattern FILE|JSON  the pattern, or a rule holding it: aws events describe-rule output or a
                       template's AWS::Events::Rule (their EventPattern); inline if it starts with {
  --event FILE|JSON    one event, a JSON array or JSON lines, each as a rule target receives it
                       (events sample), a line of an events file (poll --events-file) or a
                       PutEvents entry; the last two get account ${SAMPLE_ACCOUNT} and region
                       ${SAMPLE_REGION}, so a pattern on those fields needs the delivered form
  --json               one JSON a line: { event, detailType, matches, mismatch? }`,
} as const;

const FOOTER = `AWS (replay): AWS_REGION, AWS_ENDPOINT_URL_EVENTBRIDGE and the usual credentials.
Exit: 0 done (match: every event matches), 1 failed (AWS refused, a replay FAILED or
CANCELLED, events not delivered; match: an event does not match), 2 bad flags, file, pattern or
archive/window, 130 stopped waiting with Ctrl-C.`;

const HELP = `usage: npm run --silent cli -- events <sample|replay|match> [flags]

${SECTIONS.sample}

${SECTIONS.replay}

${SECTIONS.match}

${FOOTER}`;

const helpOf = (sub: keyof typeof SECTIONS) =>
  `usage: npm run --silent cli -- events ${sub} [flags]\n\n${SECTIONS[sub]}\n\n${FOOTER}`;

const MODE_FLAGS: Record<'sample' | 'archive' | 'file' | 'match', readonly (keyof Flags)[]> = {
  sample: ['type', 'count', 'seed', 'format', 'event-source', 'stage', 'pii', 'account', 'region', 'bus'],
  archive: ['archive', 'from', 'to', 'bus', 'rule', 'name', 'interval', 'detach'],
  file: ['file', 'bus', 'type', 'pattern', 'event-source', 'stage', 'dry-run'],
  match: ['pattern', 'event', 'json'],
};

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (!subcommand || subcommand === '--help' || subcommand === '-h') {
    if (subcommand) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    throw new CliUsageError(`a subcommand is required: sample, replay or match ${HELP_HINT}`);
  }
  if (subcommand !== 'sample' && subcommand !== 'replay' && subcommand !== 'match')
    throw new CliUsageError(`unknown subcommand '${subcommand}' (sample, replay or match) ${HELP_HINT}`);
  const flags = parseFlags(rest, FLAGS, helpOf(subcommand));
  if (!flags) return 0;
  let mode: keyof typeof MODE_FLAGS;
  if (subcommand === 'sample') mode = 'sample';
  else if (subcommand === 'match') mode = 'match';
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
    const what = mode === 'sample' || mode === 'match' ? `events ${mode}` : `events replay --${mode}`;
    throw new CliUsageError(`${what} does not take ${misplaced.map((f) => `--${f}`).join(', ')}`);
  }
  if (mode === 'sample') return sample(flags);
  if (mode === 'match') return match(flags);
  if (mode === 'archive') return replayArchive(flags);
  return replayFile(flags);
}
