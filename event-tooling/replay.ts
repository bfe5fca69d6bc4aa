/**
 * Replaying history onto an event bus, two ways:
 *
 * 1. From the deployed bus's archive (EventBridge replay): `startArchiveReplay` resolves the
 *    archive (DescribeArchive; a name or an ARN), checks the window against the archive's
 *    retention, resolves the destination bus (a replay can only go to the bus the archive records)
 *    and the rules to limit it to (DescribeRule: their ARNs are the replay's FilterArns, which is how
 *    a replay is limited to a pattern), then StartReplay. `watchReplay` (replay-watch.ts) polls DescribeReplay until
 *    COMPLETED, FAILED or CANCELLED, reporting progress as the share of the window replayed
 *    (EventLastReplayedTime), and sends CancelReplay when asked to.
 *    Replayed events reach the rules' targets with a top-level `replay-name` field, so a consumer
 *    can tell them from live events (or exclude them: `"replay-name": [{"exists": false}]`).
 *
 * 2. From an events file (the JSON lines `poll --events-file` writes): events-file.ts.
 */
import {
  DescribeArchiveCommand,
  type DescribeArchiveCommandOutput,
  DescribeEventBusCommand,
  DescribeRuleCommand,
  type EventBridgeClient,
  ListArchivesCommand,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { DAY_MS, MINUTE_MS } from '../lambdas/common/time-units';

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

/** The AWS error's name (never its message, which may echo input). */
export const errorName = (err: unknown): string => (err instanceof Error ? err.name : '');

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
  if (nowMs - toMs < 10 * MINUTE_MS)
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
