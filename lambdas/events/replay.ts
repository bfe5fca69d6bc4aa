/**
 * Replaying history onto an event bus, two ways:
 *
 * 1. From the deployed bus's archive (EventBridge replay): `startArchiveReplay` resolves the
 *    archive (DescribeArchive; a name or an ARN), checks the window against the archive's
 *    retention, resolves the destination bus (a replay can only go to the bus the archive records)
 *    and the rules to limit it to (DescribeRule: their ARNs are the replay's FilterArns, which is how
 *    a replay is limited to a pattern), then StartReplay. `watchReplay` polls DescribeReplay until
 *    COMPLETED, FAILED or CANCELLED, reporting progress as the share of the window replayed
 *    (EventLastReplayedTime), and sends CancelReplay when asked to.
 *    Replayed events reach the rules' targets with a top-level `replay-name` field, so a consumer
 *    can tell them from live events (or exclude them: `"replay-name": [{"exists": false}]`).
 *
 * 2. From an events file (the JSON lines `poll --events-file` writes): `readEventsFile` parses and
 *    validates every line first (a malformed line is an EventsFileError naming its line number,
 *    and nothing is sent), `sendEvents` then publishes through EventBridgeSink (PutEvents in
 *    batches of 10, failed entries retried), reporting progress.
 */
import {
  CancelReplayCommand,
  DescribeArchiveCommand,
  type DescribeArchiveCommandOutput,
  DescribeEventBusCommand,
  DescribeReplayCommand,
  type DescribeReplayCommandOutput,
  DescribeRuleCommand,
  type EventBridgeClient,
  ListArchivesCommand,
  type ReplayState,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { type BridgeEvent, EventValidationError, validateEvent } from './catalog';
import { eventSourceProblem } from './event-source';
import { EventBridgeSink } from './publisher';

const DAY_MS = 86_400_000;

/** Something the user asked for cannot work (a missing archive, a window out of retention, ...). */
export class ReplayInputError extends Error {
  override readonly name = 'ReplayInputError';
}

// ---------------------------------------------------------------------------------------------
// Archive replay

export interface ArchiveInfo {
  readonly name: string;
  readonly arn: string;
  /** The bus the archive records (the only destination a replay of it may have). */
  readonly eventSourceArn: string;
  /** 0: kept for ever. */
  readonly retentionDays: number;
  readonly state?: string;
  readonly creationTime?: Date;
  readonly eventCount?: number;
}

const ARCHIVE_ARN = /^arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:archive\/(.+)$/;
const BUS_ARN = /^arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:event-bus\/(.+)$/;
const RULE_ARN = /^arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:rule\/(.+)$/;
export const REPLAY_NAME = /^[.\-_A-Za-z0-9]{1,64}$/;

const errorName = (err: unknown) => (err instanceof Error ? err.name : '');

/** DescribeArchive of a name or an archive ARN. A missing archive is a ReplayInputError. */
export async function describeArchive(client: EventBridgeClient, nameOrArn: string): Promise<ArchiveInfo> {
  const name = ARCHIVE_ARN.exec(nameOrArn)?.[1] ?? nameOrArn;
  let out: DescribeArchiveCommandOutput;
  try {
    out = await client.send(new DescribeArchiveCommand({ ArchiveName: name }));
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException')
      throw new ReplayInputError(
        `archive '${name}' does not exist in this account and region (aws events list-archives lists them)`,
      );
    throw err;
  }
  if (!out.ArchiveArn || !out.EventSourceArn)
    throw new Error(`DescribeArchive ${name}: the answer has no ArchiveArn or EventSourceArn`);
  return {
    name: out.ArchiveName ?? name,
    arn: out.ArchiveArn,
    eventSourceArn: out.EventSourceArn,
    retentionDays: out.RetentionDays ?? 0,
    ...(out.State ? { state: out.State } : {}),
    ...(out.CreationTime ? { creationTime: out.CreationTime } : {}),
    ...(out.EventCount === undefined ? {} : { eventCount: out.EventCount }),
  };
}

/** The ARN of a bus given by name or ARN (DescribeEventBus). */
export async function busArn(client: EventBridgeClient, nameOrArn: string): Promise<string> {
  try {
    const out = await client.send(new DescribeEventBusCommand({ Name: nameOrArn }));
    if (out.Arn) return out.Arn;
  } catch (err) {
    if (errorName(err) !== 'ResourceNotFoundException') throw err;
  }
  throw new ReplayInputError(`event bus '${nameOrArn}' does not exist in this account and region`);
}

/**
 * The ARNs of rules given by name (on `busName`) or ARN. A rule of another bus, or one that does not
 * exist, is a ReplayInputError: a replay filtered on it would deliver nothing.
 */
export async function ruleArns(
  client: EventBridgeClient,
  rules: readonly string[],
  busName: string,
): Promise<string[]> {
  const arns: string[] = [];
  for (const rule of rules) {
    const arnName = RULE_ARN.exec(rule)?.[1];
    // rule/<bus>/<name> for a custom bus, rule/<name> on the default bus
    const name = arnName ? arnName.slice(arnName.lastIndexOf('/') + 1) : rule;
    const bus = arnName?.includes('/') ? arnName.slice(0, arnName.lastIndexOf('/')) : busName;
    if (arnName && bus !== busName)
      throw new ReplayInputError(`rule ${rule} belongs to bus '${bus}', not to '${busName}'`);
    try {
      const out = await client.send(new DescribeRuleCommand({ Name: name, EventBusName: busName }));
      if (!out.Arn) throw new Error(`DescribeRule ${name}: the answer has no Arn`);
      arns.push(out.Arn);
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException')
        throw new ReplayInputError(
          `rule '${name}' does not exist on bus '${busName}' (aws events list-rules --event-bus-name ${busName})`,
        );
      throw err;
    }
  }
  return arns;
}

/**
 * The archive of a bus, when the bus has exactly one (the stack gives its bus one): ListArchives
 * filtered by the bus ARN. None, or several (then --archive must choose), is a ReplayInputError.
 */
export async function findBusArchive(client: EventBridgeClient, bus: string): Promise<string> {
  const arn = BUS_ARN.test(bus) ? bus : await busArn(client, bus);
  const archives: { name: string; state: string }[] = [];
  let nextToken: string | undefined;
  do {
    const out = await client.send(new ListArchivesCommand({ EventSourceArn: arn, NextToken: nextToken }));
    for (const a of out.Archives ?? [])
      if (a.ArchiveName) archives.push({ name: a.ArchiveName, state: a.State ?? '?' });
    nextToken = out.NextToken;
  } while (nextToken);
  const usable = archives.filter((a) => a.state !== 'DISABLED' && a.state !== 'CREATE_FAILED');
  if (usable.length === 1) return usable[0]!.name;
  if (archives.length === 0) throw new ReplayInputError(`bus ${arn} has no archive: nothing to replay`);
  throw new ReplayInputError(
    `bus ${arn} has ${archives.length} archives (${archives.map((a) => `${a.name} ${a.state}`).join(', ')}): choose one with --archive`,
  );
}

/** The bus name of a bus ARN (or the name itself). */
export const busNameOf = (nameOrArn: string): string => BUS_ARN.exec(nameOrArn)?.[1] ?? nameOrArn;

/**
 * The window is usable: from before to, to not in the future, and from within the archive's
 * retention (older events are gone). Returns warnings worth printing (events not archived yet, a
 * window starting before the archive existed).
 */
export function checkReplayWindow(
  archive: ArchiveInfo,
  fromMs: number,
  toMs: number,
  nowMs: number,
): string[] {
  if (!(fromMs < toMs))
    throw new ReplayInputError(
      `--from must be before --to (${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()})`,
    );
  if (toMs > nowMs)
    throw new ReplayInputError(
      `--to ${new Date(toMs).toISOString()} is in the future (now ${new Date(nowMs).toISOString()}): use --to now`,
    );
  if (archive.retentionDays > 0) {
    const oldest = nowMs - archive.retentionDays * DAY_MS;
    if (fromMs < oldest)
      throw new ReplayInputError(
        `--from ${new Date(fromMs).toISOString()} is outside the retention of archive '${archive.name}' (${archive.retentionDays} days: events before ${new Date(oldest).toISOString()} are gone); start the window later`,
      );
  }
  const warnings: string[] = [];
  if (archive.creationTime && fromMs < archive.creationTime.getTime())
    warnings.push(
      `the archive was created at ${archive.creationTime.toISOString()}: nothing before that is in it`,
    );
  if (nowMs - toMs < 10 * 60_000)
    warnings.push(
      'events reach the archive with a delay of up to about 10 minutes: the last minutes of the window may be incomplete',
    );
  return warnings;
}

/** A replay name: `gym-bridge-<from>-<to>-<random>`, within EventBridge's 64 characters. */
export function defaultReplayName(fromMs: number, toMs: number, random = Math.random): string {
  const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace(/[-:]/g, '');
  const suffix = Math.floor(random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `gym-bridge-${stamp(fromMs)}-${stamp(toMs)}-${suffix}`;
}

export interface ArchiveReplayRequest {
  /** Name or ARN. @default the one archive of `bus` (findBusArchive) */
  readonly archive?: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Name or ARN; must be the archive's bus. @default the archive's bus */
  readonly bus?: string;
  /** Rule names (on the bus) or ARNs: only their targets get the events. @default every rule */
  readonly rules?: readonly string[];
  /** @default defaultReplayName() */
  readonly name?: string;
  readonly description?: string;
  /** @default Date.now() */
  readonly nowMs?: number;
}

export interface StartedReplay {
  readonly name: string;
  readonly arn?: string;
  readonly state?: string;
  readonly archive: ArchiveInfo;
  readonly destinationArn: string;
  readonly filterArns: string[];
  readonly warnings: string[];
}

export async function startArchiveReplay(
  client: EventBridgeClient,
  request: ArchiveReplayRequest,
): Promise<StartedReplay> {
  const name = request.name ?? defaultReplayName(request.fromMs, request.toMs);
  if (!REPLAY_NAME.test(name))
    throw new ReplayInputError(
      `replay name '${name}' is not allowed: 1 to 64 letters, digits, '.', '-' or '_'`,
    );
  if (request.archive === undefined && request.bus === undefined)
    throw new ReplayInputError('name the archive (--archive) or the bus whose archive to replay (--bus)');
  const archive = await describeArchive(
    client,
    request.archive ?? (await findBusArchive(client, request.bus!)),
  );
  const warnings = checkReplayWindow(archive, request.fromMs, request.toMs, request.nowMs ?? Date.now());
  let destinationArn = archive.eventSourceArn;
  // An archive found by its bus records that bus; a named one is checked against --bus.
  if (request.bus !== undefined && request.archive !== undefined) {
    const arn = BUS_ARN.test(request.bus) ? request.bus : await busArn(client, request.bus);
    if (arn !== archive.eventSourceArn)
      throw new ReplayInputError(
        `archive '${archive.name}' records bus ${archive.eventSourceArn}: EventBridge replays an archive only to that bus, not to ${arn}`,
      );
    destinationArn = arn;
  }
  const filterArns = await ruleArns(client, request.rules ?? [], busNameOf(destinationArn));
  const out = await client.send(
    new StartReplayCommand({
      ReplayName: name,
      Description: request.description ?? 'gym-bridge events replay',
      EventSourceArn: archive.arn,
      EventStartTime: new Date(request.fromMs),
      EventEndTime: new Date(request.toMs),
      Destination: { Arn: destinationArn, ...(filterArns.length ? { FilterArns: filterArns } : {}) },
    }),
  );
  return {
    name,
    ...(out.ReplayArn ? { arn: out.ReplayArn } : {}),
    ...(out.State ? { state: out.State } : {}),
    archive,
    destinationArn,
    filterArns,
    warnings,
  };
}

export interface ReplayProgress {
  readonly state: ReplayState | string;
  /** Share of the window replayed, 0..100 (100 once COMPLETED). */
  readonly percent: number;
  readonly lastReplayed?: Date;
  readonly reason?: string;
}

export const TERMINAL_REPLAY_STATES: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Progress of a replay from DescribeReplay: EventLastReplayedTime against the window. */
export function replayProgress(
  out: DescribeReplayCommandOutput,
  fromMs: number,
  toMs: number,
): ReplayProgress {
  const state = out.State ?? 'UNKNOWN';
  const start = out.EventStartTime?.getTime() ?? fromMs;
  const end = out.EventEndTime?.getTime() ?? toMs;
  const last = out.EventLastReplayedTime;
  let percent = 0;
  if (state === 'COMPLETED') percent = 100;
  else if (last && end > start)
    percent = Math.max(0, Math.min(100, ((last.getTime() - start) / (end - start)) * 100));
  return {
    state,
    percent: Math.floor(percent * 10) / 10,
    ...(last ? { lastReplayed: last } : {}),
    ...(out.StateReason ? { reason: out.StateReason } : {}),
  };
}

export function formatProgress(p: ReplayProgress): string {
  const last = p.lastReplayed ? `, events up to ${p.lastReplayed.toISOString()} replayed` : '';
  const reason = p.reason ? ` (${p.reason})` : '';
  return `${p.state.padEnd(10)} ${p.percent.toFixed(1).padStart(5)}%${last}${reason}`;
}

export interface WatchOptions {
  readonly fromMs: number;
  readonly toMs: number;
  /** Between DescribeReplay calls. @default 5000 */
  readonly intervalMs?: number;
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Aborted: CancelReplay is sent (once), and the watch goes on until the replay has stopped. */
  readonly cancel?: AbortSignal;
  /** Aborted: stop watching at once (the replay goes on, or its cancellation does). */
  readonly detach?: AbortSignal;
  /** Called when CancelReplay was sent (or refused: the replay had already ended). */
  readonly onCancel?: (outcome: { sent: boolean; state?: string; error?: string }) => void;
  /** @default setTimeout, cut short by `cancel` and `detach` */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface WatchResult {
  /** The last state seen ('DETACHED' when watching stopped before the replay did). */
  readonly state: string;
  readonly progress?: ReplayProgress;
  readonly cancelRequested: boolean;
}

function abortableSleep(ms: number, signals: (AbortSignal | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    const live = signals.filter((s): s is AbortSignal => s !== undefined);
    if (live.some((s) => s.aborted)) return resolve();
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener('abort', done, { once: true });
  });
}

/** Polls DescribeReplay until the replay is COMPLETED, FAILED or CANCELLED (or `detach`). */
export async function watchReplay(
  client: EventBridgeClient,
  replayName: string,
  options: WatchOptions,
): Promise<WatchResult> {
  const interval = options.intervalMs ?? 5000;
  const sleep = options.sleep ?? ((ms: number) => abortableSleep(ms, [options.cancel, options.detach]));
  let cancelSent = false;
  let progress: ReplayProgress | undefined;
  for (;;) {
    if (options.cancel?.aborted && !cancelSent) {
      cancelSent = true;
      try {
        const out = await client.send(new CancelReplayCommand({ ReplayName: replayName }));
        options.onCancel?.({ sent: true, ...(out.State ? { state: out.State } : {}) });
      } catch (err) {
        // IllegalStatusException: it had already ended; the next DescribeReplay says how.
        options.onCancel?.({ sent: false, error: `${errorName(err)}: ${(err as Error).message}` });
      }
    }
    if (options.detach?.aborted)
      return { state: 'DETACHED', ...(progress ? { progress } : {}), cancelRequested: cancelSent };
    const out = await client.send(new DescribeReplayCommand({ ReplayName: replayName }));
    progress = replayProgress(out, options.fromMs, options.toMs);
    options.onProgress?.(progress);
    if (TERMINAL_REPLAY_STATES.includes(progress.state))
      return { state: progress.state, progress, cancelRequested: cancelSent };
    await sleep(interval);
  }
}

// ---------------------------------------------------------------------------------------------
// Events file replay

/** A line of an events file that cannot be sent: its number (1-based) and why. */
export class EventsFileError extends Error {
  override readonly name = 'EventsFileError';
  constructor(
    readonly line: number,
    reason: string,
    readonly path = 'events file',
  ) {
    super(`${path}, line ${line}: ${reason}`);
  }
}

export interface FileEvent {
  /** 1-based line number in the file. */
  readonly line: number;
  /** The EventBridge source the line was written with. */
  readonly source: string;
  readonly event: BridgeEvent;
}

export interface ParsedEventsFile {
  readonly events: FileEvent[];
  /** A last line cut short by a crash mid-write (no newline, not JSON): skipped, reported. */
  readonly tornLastLine?: number;
}

/**
 * Parses and validates every line of an events file (`{ source, detailType, time, detail }` per
 * line, json-lines-file-sink.ts) before anything is sent. Blank lines are skipped; a last line
 * without its newline that does not parse is a torn write (the sink's documented crash outcome)
 * and is reported, not sent; any other bad line is an EventsFileError with its number.
 */
export function parseEventsFile(text: string, path = 'events file'): ParsedEventsFile {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const events: FileEvent[] = [];
  let tornLastLine: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const number = i + 1;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (err) {
      if (i === lines.length - 1 && !endsWithNewline) {
        tornLastLine = number;
        continue;
      }
      throw new EventsFileError(number, `not JSON (${(err as Error).message})`, path);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      throw new EventsFileError(number, 'not a JSON object { source, detailType, time, detail }', path);
    const { source, detailType, detail } = record as Record<string, unknown>;
    if (typeof source !== 'string')
      throw new EventsFileError(
        number,
        "no 'source' string (expected { source, detailType, time, detail })",
        path,
      );
    const problem = eventSourceProblem(source);
    if (problem)
      throw new EventsFileError(number, `source '${source.slice(0, 80)}' is not usable: ${problem}`, path);
    let event: BridgeEvent;
    try {
      event = validateEvent({ detailType, detail });
    } catch (err) {
      if (err instanceof EventValidationError) throw new EventsFileError(number, err.message, path);
      throw err;
    }
    events.push({ line: number, source, event });
  }
  return { events, ...(tornLastLine === undefined ? {} : { tornLastLine }) };
}

export interface SendOptions {
  readonly client: EventBridgeClient;
  readonly busName: string;
  /** Replaces every line's own source. */
  readonly sourceOverride?: string;
  /** Events per publish() call (the sink splits it into PutEvents of 10). @default 40 */
  readonly chunkSize?: number;
  readonly onProgress?: (sent: number, total: number) => void;
  /** Passed to the sink (tests). */
  readonly sink?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
}

/** Thrown when a chunk could not be delivered: how many were sent before, and the sink's error. */
export class ReplaySendError extends Error {
  override readonly name = 'ReplaySendError';
  constructor(
    readonly sent: number,
    readonly total: number,
    cause: unknown,
  ) {
    super(
      `${sent} of ${total} events sent, then: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * Sends the events in file order through EventBridgeSink (validated, PutEvents of at most 10,
 * failed entries retried with backoff), a chunk at a time so progress can be told. A chunk that
 * still fails ends the replay with ReplaySendError (events of it may have been delivered: their
 * eventIds are stable, consumers de-duplicate).
 */
export async function sendEvents(events: readonly FileEvent[], options: SendOptions): Promise<number> {
  const chunkSize = Math.max(1, options.chunkSize ?? 40);
  const sinks = new Map<string, EventBridgeSink>();
  const sinkFor = (source: string) => {
    let sink = sinks.get(source);
    if (!sink) {
      sink = new EventBridgeSink({
        client: options.client,
        busName: options.busName,
        source,
        ...(options.sink ?? {}),
      });
      sinks.set(source, sink);
    }
    return sink;
  };
  let sent = 0;
  let i = 0;
  while (i < events.length) {
    const source = options.sourceOverride ?? events[i]!.source;
    const chunk: BridgeEvent[] = [];
    while (
      i < events.length &&
      chunk.length < chunkSize &&
      (options.sourceOverride ?? events[i]!.source) === source
    ) {
      chunk.push(events[i]!.event);
      i++;
    }
    try {
      await sinkFor(source).publish(chunk);
    } catch (err) {
      throw new ReplaySendError(sent, events.length, err);
    }
    sent += chunk.length;
    options.onProgress?.(sent, events.length);
  }
  return sent;
}
