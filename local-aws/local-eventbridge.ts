/**
 * A small local EventBridge endpoint for tests and local runs: a node:http server speaking the
 * AWS JSON 1.1 protocol (`X-Amz-Target: AWSEvents.<Operation>`), so the real
 * `@aws-sdk/client-eventbridge` talks to it through its `endpoint` setting (or
 * AWS_ENDPOINT_URL_EVENTBRIDGE). Signatures are not checked; any credentials do.
 *
 * Operations: PutEvents (limits of the real service: 1 to 10 entries, under 256 KB in total),
 * CreateEventBus, DescribeEventBus, DeleteEventBus, ListEventBuses; with `archiveBuses`, an
 * archive per bus and replays of it (./local-eventbridge-archive.ts).
 *
 * Faults, for testing publishers (randomness is seeded, so a run is reproducible):
 * - `failEntryRate`: share of entries answered with ErrorCode InternalFailure (not stored).
 * - `throttleRate`: share of PutEvents requests answered 400 ThrottlingException.
 * - `failNext(n)`, `throttleNext(n)`, `serverErrorNext(n)`: the next n entries / requests fail.
 *
 * Not a part of the bridge in AWS: rules and targets are not emulated. The HTTP side is
 * the shared AWS JSON helper (./aws-json-server.ts); the fault randomness is common/seeded-random.
 * The shared state is in ./local-eventbridge-state.ts, PutEvents below.
 */

import type { RandomSource } from '../lambdas/common/seeded-random';
import { mulberry32 } from '../lambdas/common/seeded-random';
import { entrySize, MAX_ENTRIES_PER_REQUEST, MAX_REQUEST_BYTES } from '../lambdas/events/put-events-batches';
import { AwsJsonError, startAwsJsonServer } from './aws-json-server';
import { archiveEvent, archiveOperations, createArchives } from './local-eventbridge-archive';
import {
  type Bus,
  busName,
  createBus,
  createFaults,
  type EventBridgeState,
  type LocalEventBridgeFaults,
  type LocalEventBridgeOptions,
  type LocalEventBridgeStats,
  type PendingFaults,
  type ReceivedEvent,
  requireName,
} from './local-eventbridge-state';

export type {
  LocalEventBridgeFaults,
  LocalEventBridgeOptions,
  LocalEventBridgeStats,
  ReceivedEvent,
} from './local-eventbridge-state';

export interface LocalEventBridge {
  /** e.g. http://127.0.0.1:41234 */
  readonly endpoint: string;
  /** Every accepted entry, in order of receipt (empty with `keepEvents: false`). */
  readonly events: ReceivedEvent[];
  readonly faults: LocalEventBridgeFaults;
  readonly stats: LocalEventBridgeStats;
  readonly buses: ReadonlyMap<string, { readonly arn: string; readonly createdAt: Date }>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 2 * 1024 * 1024;

export async function startLocalEventBridge(
  options: LocalEventBridgeOptions = {},
): Promise<LocalEventBridge> {
  const pending: PendingFaults = { failEntries: 0, throttles: 0, serverErrors: 0 };
  const state: EventBridgeState = {
    options,
    random: mulberry32(options.seed ?? 1),
    buses: new Map<string, Bus>(),
    events: [],
    stats: { putEventsRequests: 0, throttledRequests: 0, failedEntries: 0 },
    pending,
    faults: createFaults(options, pending),
  };
  createBus(state, 'default');
  for (const name of options.buses ?? []) createBus(state, requireName(name));
  const archives = createArchives(state, options.archiveBuses ?? []);
  state.onAccepted = (event) => archiveEvent(archives, event);
  const deliverReplayed = (event: ReceivedEvent) => {
    if (options.keepEvents !== false) state.events.push(event);
    options.onEvent?.(event);
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AWSEvents',
    contentType: 'application/x-amz-json-1.1',
    operations: { ...eventBridgeOperations(state), ...archiveOperations(archives, deliverReplayed) },
    beforeOperation: () => {
      if (pending.serverErrors > 0) {
        pending.serverErrors--;
        throw new AwsJsonError('InternalException', 'Injected server error', 500);
      }
    },
    errorTypeHeader: true,
    internalErrorType: 'InternalException',
    maxBodyBytes: MAX_BODY_BYTES,
    tooLargeErrorType: 'ValidationException',
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
  });
  return {
    endpoint: server.endpoint,
    events: state.events,
    faults: state.faults,
    stats: state.stats,
    buses: state.buses,
    close: server.close,
  };
}

function eventBridgeOperations(
  state: EventBridgeState,
): Record<string, (input: Record<string, unknown>) => unknown> {
  const { buses } = state;
  return {
    PutEvents: (input) => putEvents(state, input),
    CreateEventBus: (input) => {
      const name = requireName(input.Name);
      if (buses.has(name))
        throw new AwsJsonError('ResourceAlreadyExistsException', `Event bus ${name} already exists.`);
      return { EventBusArn: createBus(state, name).arn };
    },
    DescribeEventBus: (input) => {
      const name = busName(input.Name);
      const bus = buses.get(name);
      if (!bus) throw new AwsJsonError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
      return { Name: name, Arn: bus.arn, CreationTime: bus.createdAt.getTime() / 1000 };
    },
    DeleteEventBus: (input) => {
      const name = requireName(input.Name);
      if (name === 'default')
        throw new AwsJsonError('ValidationException', 'Cannot delete event bus default.');
      buses.delete(name);
      return {};
    },
    ListEventBuses: () => ({
      EventBuses: [...buses.entries()].map(([name, bus]) => ({ Name: name, Arn: bus.arn })),
    }),
  };
}

/**
 * PutEvents of the local EventBridge endpoint: the real service's limits (1 to 10 entries, under
 * 256 KB in total), the injected throttles and entry failures, and each accepted entry kept and
 * handed to `onEvent` with a UUID-shaped id from the seeded randomness.
 */
/** PutEvents: the request checked against the real limits, then throttled or each entry put. */
export function putEvents(state: EventBridgeState, input: Record<string, unknown>): unknown {
  const { stats, pending, faults, random } = state;
  stats.putEventsRequests++;
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length < 1 || entries.length > MAX_ENTRIES_PER_REQUEST) {
    throw new AwsJsonError(
      'ValidationException',
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES_PER_REQUEST}`,
    );
  }
  const total = entries.reduce((sum: number, e: Record<string, unknown>) => sum + sizeOf(e), 0);
  if (total > MAX_REQUEST_BYTES) {
    throw new AwsJsonError(
      'ValidationException',
      'Total size of the entries in the request is over the limit.',
    );
  }
  if (pending.throttles > 0 || (faults.throttleRate > 0 && random() < faults.throttleRate)) {
    if (pending.throttles > 0) pending.throttles--;
    stats.throttledRequests++;
    throw new AwsJsonError('ThrottlingException', 'Rate exceeded');
  }
  const results = (entries as Record<string, unknown>[]).map((entry) => putEntry(state, entry));
  return {
    FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length,
    Entries: results,
  };
}

/** The entry's problem as a PutEvents result entry, or undefined when it can be delivered. */
function entryProblem(
  state: EventBridgeState,
  name: string,
  entry: Record<string, unknown>,
): Record<string, string> | undefined {
  if (!state.buses.has(name)) {
    if (state.options.autoCreateBuses === false) {
      return { ErrorCode: 'InvalidArgument', ErrorMessage: `Event bus ${name} does not exist.` };
    }
    createBus(state, name);
  }
  const { Source: source, DetailType: detailType } = entry;
  if (typeof source !== 'string' || source === '' || typeof detailType !== 'string' || detailType === '') {
    return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameters Source and DetailType are required.' };
  }
  return undefined;
}

function parseDetail(detail: unknown): object | undefined {
  try {
    const parsed: unknown = JSON.parse(typeof detail === 'string' ? detail : '');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function putEntry(state: EventBridgeState, entry: Record<string, unknown>): Record<string, string> {
  const { pending, faults, random, stats, options } = state;
  const name = busName(entry.EventBusName);
  const problem = entryProblem(state, name, entry);
  if (problem) return problem;
  const detail = parseDetail(entry.Detail);
  if (detail === undefined) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  if (pending.failEntries > 0 || (faults.failEntryRate > 0 && random() < faults.failEntryRate)) {
    if (pending.failEntries > 0) pending.failEntries--;
    stats.failedEntries++;
    return { ErrorCode: 'InternalFailure', ErrorMessage: 'Injected failure' };
  }
  const id = nextEventId(random);
  const received: ReceivedEvent = {
    id,
    eventBusName: name,
    source: entry.Source as string,
    detailType: entry.DetailType as string,
    detail,
    time: timeOf(entry.Time),
    resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
  };
  if (options.keepEvents !== false) state.events.push(received);
  state.onAccepted?.(received);
  options.onEvent?.(received);
  return { EventId: id };
}

/** A UUID-shaped id from the seeded randomness (a run replays with the same ids). */
function nextEventId(random: RandomSource): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sizeOf(entry: Record<string, unknown>): number {
  return entrySize({
    Time: entry.Time === undefined ? undefined : new Date(0),
    Source: typeof entry.Source === 'string' ? entry.Source : '',
    DetailType: typeof entry.DetailType === 'string' ? entry.DetailType : '',
    Detail: typeof entry.Detail === 'string' ? entry.Detail : undefined,
    Resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : undefined,
  });
}

/** The SDK sends Time as epoch seconds (JSON 1.1); accept an ISO string too. */
function timeOf(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return new Date().toISOString();
}
