/**
 * `events replay --file events.jsonl --bus NAME`: an events file (`poll --events-file`) onto a
 * bus, validated whole first, filtered by --type and --pattern, then PutEvents in batches of 10
 * with retries, with progress.
 */
import { readFile, stat } from 'node:fs/promises';
import { SAMPLE_REGION, toEventBridgeEvent } from '../../../event-tooling/eventbridge-event';
import {
  EventsFileError,
  type FileEvent,
  parseEventsFile,
  ReplaySendError,
  sendEvents,
} from '../../../event-tooling/events-file';
import { EventPatternError, eventPatternMatcher } from '../../../lambdas/events/event-pattern';
import { CliUsageError } from '../../args';
import { eventBridgeClient } from '../../aws-env';
import { count } from '../../format';
import { checkBusExists, checkBusName } from '../../preflight';
import { cliEventSource, detailTypeFlag, type Flags } from './flags';

export async function replayFile(flags: Flags): Promise<number> {
  const path = flags.file!;
  if (!flags.bus)
    throw new CliUsageError('events replay --file needs --bus NAME|ARN (the bus to put them on)');
  checkBusName(flags.bus);
  const types = new Set((flags.type ?? []).map((t) => detailTypeFlag(t)));
  const matcher = flags.pattern === undefined ? undefined : patternMatcher(flags.pattern);
  // Each line carries its source: only a flag replaces it (not $GYM_BRIDGE_EVENT_SOURCE).
  const sourceOverride = cliEventSource(flags['event-source'], flags.stage, false);

  const events = await readEventsFile(path);
  const selected = events.filter(
    (e) =>
      (types.size === 0 || types.has(e.event.detailType)) &&
      (!matcher || matcher(e, sourceOverride ?? e.source)),
  );
  const left = events.length - selected.length;
  const filtered = left > 0 ? ` (${left} left out by --type/--pattern)` : '';
  if (flags['dry-run']) {
    process.stdout.write(
      `would send ${selected.length} of ${count(events.length, 'event')} to ${flags.bus}${filtered}\n`,
    );
    for (const [type, n] of countByType(selected))
      process.stdout.write(`  ${String(n).padStart(6)}  ${type}\n`);
    return 0;
  }
  if (selected.length === 0) {
    process.stdout.write(`nothing to send: ${count(events.length, 'event')} in ${path}${filtered}\n`);
    return 0;
  }
  return putOnBus(selected, flags.bus, sourceOverride, filtered);
}

/** The events of the file, validated whole (a usage error names the first bad line). */
async function readEventsFile(path: string): Promise<FileEvent[]> {
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
  return parsed.events;
}

/** PutEvents of the selected events onto the bus, with progress; 1 when some were not delivered. */
async function putOnBus(
  selected: readonly FileEvent[],
  bus: string,
  sourceOverride: string | undefined,
  filtered: string,
): Promise<number> {
  const client = eventBridgeClient();
  await checkBusExists(client, bus);
  process.stdout.write(`sending ${count(selected.length, 'event')} to ${bus}${filtered}\n`);
  try {
    await sendEvents(selected, {
      client,
      busName: bus,
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
  process.stdout.write(`done: ${count(selected.length, 'event')} put on ${bus}\n`);
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
