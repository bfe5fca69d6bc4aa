/**
 * Archives and replays of the local EventBridge (./local-eventbridge.ts), so that `events replay
 * --bus NAME --from T --to T` works against `local-aws` as against a deployed bus. A bus listed in
 * `archiveBuses` has one archive, `<bus>-archive`, that keeps every event the bus accepts (in
 * memory, at most `MAX_ARCHIVED_EVENTS`, the oldest dropped first, retention 0: no time limit);
 * a replay puts the archived events whose time is in its window back on the bus, in time order,
 * each carrying its replay's name (`replayName`), as EventBridge adds `replay-name`. Rules and
 * targets are not emulated: whatever listens to the bus (local-aws's printout and events file)
 * receives them, so `--rule` is refused, naming what to do instead.
 *
 * Operations: ListArchives, DescribeArchive, StartReplay, DescribeReplay, CancelReplay,
 * DescribeRule (ResourceNotFoundException: no rules here).
 */
import { AwsJsonError, requireString } from './aws-json-server';
import type { EventBridgeState, ReceivedEvent } from './local-eventbridge-state';

/** Events an archive keeps; older ones are dropped (an archive's retention, counted in events). */
export const MAX_ARCHIVED_EVENTS = 100_000;

interface Archive {
  readonly name: string;
  readonly arn: string;
  readonly busArn: string;
  readonly bus: string;
  readonly createdAt: Date;
  readonly events: ReceivedEvent[];
}

type ReplayState = 'STARTING' | 'RUNNING' | 'CANCELLING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';

interface Replay {
  readonly name: string;
  readonly arn: string;
  readonly archiveArn: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly startedAt: Date;
  state: ReplayState;
  lastReplayedMs?: number;
  endedAt?: Date;
}

/** The archives and replays of one local EventBridge. */
export interface ArchiveState {
  readonly archives: Map<string, Archive>;
  readonly replays: Map<string, Replay>;
}

export function createArchives(state: EventBridgeState, buses: readonly string[]): ArchiveState {
  const archives = new Map<string, Archive>();
  const arnBase = state.buses.get('default')!.arn.replace(/:event-bus\/default$/, '');
  for (const bus of buses) {
    const busArn = state.buses.get(bus)?.arn;
    if (!busArn) continue;
    const name = `${bus}-archive`.slice(0, 48);
    archives.set(name, {
      name,
      arn: `${arnBase}:archive/${name}`,
      busArn,
      bus,
      createdAt: new Date(),
      events: [],
    });
  }
  return { archives, replays: new Map() };
}

/** Files an accepted event in its bus's archive (replayed events are not archived again). */
export function archiveEvent(archives: ArchiveState, event: ReceivedEvent): void {
  if (event.replayName !== undefined) return;
  for (const archive of archives.archives.values()) {
    if (archive.bus !== event.eventBusName) continue;
    archive.events.push(event);
    if (archive.events.length > MAX_ARCHIVED_EVENTS)
      archive.events.splice(0, archive.events.length - MAX_ARCHIVED_EVENTS);
  }
}

const seconds = (d: Date | number) => (typeof d === 'number' ? d : d.getTime()) / 1000;

function archiveByNameOrArn(archives: ArchiveState, id: string): Archive {
  for (const a of archives.archives.values()) if (a.name === id || a.arn === id) return a;
  throw new AwsJsonError('ResourceNotFoundException', `Archive ${id} does not exist.`);
}

function describeArchive(a: Archive) {
  return {
    ArchiveArn: a.arn,
    ArchiveName: a.name,
    EventSourceArn: a.busArn,
    Description: `every event of ${a.bus} since local-aws started (in memory)`,
    State: 'ENABLED',
    RetentionDays: 0,
    SizeBytes: a.events.reduce((n, e) => n + JSON.stringify(e.detail).length, 0),
    EventCount: a.events.length,
    CreationTime: seconds(a.createdAt),
  };
}

/** Epoch seconds (the SDK's form) or an ISO string, as ms. */
function timeInput(input: Record<string, unknown>, field: string): number {
  const v = input[field];
  const ms = typeof v === 'number' ? v * 1000 : typeof v === 'string' ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(ms)) throw new AwsJsonError('ValidationException', `${field} is required`);
  return ms;
}

/** Puts the replay's events back on the bus, one turn of the event loop after it started. */
function runReplay(replay: Replay, archive: Archive, deliver: (e: ReceivedEvent) => void): void {
  replay.state = 'RUNNING';
  setImmediate(() => {
    const window = archive.events
      .filter((e) => {
        const t = Date.parse(e.time);
        return t >= replay.startMs && t < replay.endMs;
      })
      .sort((x, y) => Date.parse(x.time) - Date.parse(y.time));
    for (const e of window) {
      if (replay.state !== 'RUNNING') break;
      deliver({ ...e, replayName: replay.name });
      replay.lastReplayedMs = Date.parse(e.time);
    }
    replay.state = replay.state === 'CANCELLING' ? 'CANCELLED' : 'COMPLETED';
    replay.endedAt = new Date();
  });
}

function describeReplay(r: Replay) {
  return {
    ReplayName: r.name,
    ReplayArn: r.arn,
    State: r.state,
    EventSourceArn: r.archiveArn,
    EventStartTime: seconds(r.startMs),
    EventEndTime: seconds(r.endMs),
    ReplayStartTime: seconds(r.startedAt),
    ...(r.lastReplayedMs === undefined ? {} : { EventLastReplayedTime: seconds(r.lastReplayedMs) }),
    ...(r.endedAt ? { ReplayEndTime: seconds(r.endedAt) } : {}),
  };
}

/** The archive and replay operations, over `archives`; `deliver` puts a replayed event on its bus. */
export function archiveOperations(
  archives: ArchiveState,
  deliver: (event: ReceivedEvent) => void,
): Record<string, (input: Record<string, unknown>) => unknown> {
  return {
    ListArchives: (input) => ({
      Archives: [...archives.archives.values()]
        .filter((a) => input.EventSourceArn === undefined || input.EventSourceArn === a.busArn)
        .map(describeArchive),
    }),
    DescribeArchive: (input) =>
      describeArchive(archiveByNameOrArn(archives, requireString(input, 'ArchiveName'))),
    StartReplay: (input) => {
      const name = requireString(input, 'ReplayName');
      if (archives.replays.has(name))
        throw new AwsJsonError('ResourceAlreadyExistsException', `Replay ${name} already exists.`);
      const archive = archiveByNameOrArn(archives, requireString(input, 'EventSourceArn'));
      const destination = (input.Destination ?? {}) as { Arn?: unknown; FilterArns?: unknown };
      if (destination.Arn !== archive.busArn)
        throw new AwsJsonError(
          'ValidationException',
          `Destination must be the archive's bus ${archive.busArn}.`,
        );
      if (Array.isArray(destination.FilterArns) && destination.FilterArns.length > 0)
        throw new AwsJsonError('ValidationException', 'local-aws has no rules: replay without --rule.');
      const startMs = timeInput(input, 'EventStartTime');
      const endMs = timeInput(input, 'EventEndTime');
      if (!(startMs < endMs))
        throw new AwsJsonError('ValidationException', 'EventStartTime must be before EventEndTime.');
      const arn = archive.arn.replace(/:archive\/.*$/, `:replay/${name}`);
      const replay: Replay = {
        name,
        arn,
        archiveArn: archive.arn,
        startMs,
        endMs,
        startedAt: new Date(),
        state: 'STARTING',
      };
      archives.replays.set(name, replay);
      runReplay(replay, archive, deliver);
      return { ReplayArn: arn, State: 'STARTING', ReplayStartTime: seconds(replay.startedAt) };
    },
    DescribeReplay: (input) => {
      const name = requireString(input, 'ReplayName');
      const replay = archives.replays.get(name);
      if (!replay) throw new AwsJsonError('ResourceNotFoundException', `Replay ${name} does not exist.`);
      return describeReplay(replay);
    },
    CancelReplay: (input) => {
      const name = requireString(input, 'ReplayName');
      const replay = archives.replays.get(name);
      if (!replay) throw new AwsJsonError('ResourceNotFoundException', `Replay ${name} does not exist.`);
      if (replay.state !== 'STARTING' && replay.state !== 'RUNNING')
        throw new AwsJsonError('IllegalStatusException', `Replay ${name} is ${replay.state}.`);
      replay.state = 'CANCELLING';
      return { ReplayArn: replay.arn, State: 'CANCELLING' };
    },
    DescribeRule: (input) => {
      const name = requireString(input, 'Name');
      throw new AwsJsonError(
        'ResourceNotFoundException',
        `Rule ${name} does not exist: local-aws has no rules.`,
      );
    },
  };
}
