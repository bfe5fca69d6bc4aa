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
 * The shared state is in ./local-eventbridge-state.ts, PutEvents in ./local-eventbridge-put-events.ts.
 */
import { mulberry32 } from '../lambdas/common/seeded-random';
import { AwsJsonError, startAwsJsonServer } from './aws-json-server';
import { archiveEvent, archiveOperations, createArchives } from './local-eventbridge-archive';
import { putEvents } from './local-eventbridge-put-events';
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
