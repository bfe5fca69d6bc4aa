/**
 * The state of a local EventBridge endpoint (./local-eventbridge.ts) that its operations share:
 * the buses, the received events, the statistics and the faults asked for, with their seeded
 * randomness; and the public shapes of what it receives and reports.
 */
import type { RandomSource } from '../lambdas/common/seeded-random';
import { AwsJsonError } from './aws-json-server';

export interface LocalEventBridgeOptions {
  /** @default 0 (an ephemeral port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Seed of the fault randomness. @default 1 */
  readonly seed?: number;
  /** @default 0 */
  readonly failEntryRate?: number;
  /** @default 0 */
  readonly throttleRate?: number;
  /** Accept PutEvents to a bus that was never created (creating it). @default true */
  readonly autoCreateBuses?: boolean;
  /** Used in ARNs. @default 'us-east-1' */
  readonly region?: string;
  /** Used in ARNs. @default '000000000000' */
  readonly accountId?: string;
  /** Buses to create at start, besides `default`. @default [] */
  readonly buses?: readonly string[];
  /** Called with every accepted entry, in order of receipt (e.g. to print or save it). */
  readonly onEvent?: (event: ReceivedEvent) => void;
  /** Keep accepted entries in `events`; false for a long-running endpoint. @default true */
  readonly keepEvents?: boolean;
  /**
   * Buses (created at start) that get an archive, `<bus>-archive`, which replays can put back on
   * the bus (./local-eventbridge-archive.ts). @default [] (no archive)
   */
  readonly archiveBuses?: readonly string[];
}

export interface ReceivedEvent {
  /** The EventId returned to the caller. */
  readonly id: string;
  readonly eventBusName: string;
  readonly source: string;
  readonly detailType: string;
  /** The parsed Detail. */
  readonly detail: unknown;
  /** Time of the entry (or of receipt when the entry had none), ISO 8601 UTC. */
  readonly time: string;
  readonly resources: readonly string[];
  /** The replay that put it on the bus again (EventBridge's `replay-name`); absent for a live event. */
  readonly replayName?: string;
}

export interface LocalEventBridgeFaults {
  failEntryRate: number;
  throttleRate: number;
  /** The next `count` entries fail with InternalFailure. */
  failNext(count: number): void;
  /** The next `count` PutEvents requests get 400 ThrottlingException. */
  throttleNext(count: number): void;
  /** The next `count` requests get 500 InternalException. */
  serverErrorNext(count: number): void;
  /** Back to no faults. */
  reset(): void;
}

export interface LocalEventBridgeStats {
  /** PutEvents requests received, whatever their outcome. */
  putEventsRequests: number;
  throttledRequests: number;
  failedEntries: number;
}

export interface Bus {
  readonly arn: string;
  readonly createdAt: Date;
}

/** Faults asked for by count, consumed one at a time. */
export interface PendingFaults {
  failEntries: number;
  throttles: number;
  serverErrors: number;
}

/** What the operations share: the buses, the received events, the faults and their randomness. */
export interface EventBridgeState {
  readonly options: LocalEventBridgeOptions;
  readonly random: RandomSource;
  readonly buses: Map<string, Bus>;
  readonly events: ReceivedEvent[];
  readonly stats: LocalEventBridgeStats;
  readonly pending: PendingFaults;
  readonly faults: LocalEventBridgeFaults;
  /** Called with each accepted entry after it is kept (the archives file it). */
  onAccepted?: (event: ReceivedEvent) => void;
}

export function createFaults(
  options: LocalEventBridgeOptions,
  pending: PendingFaults,
): LocalEventBridgeFaults {
  const faults: LocalEventBridgeFaults = {
    failEntryRate: options.failEntryRate ?? 0,
    throttleRate: options.throttleRate ?? 0,
    failNext: (count) => {
      pending.failEntries += count;
    },
    throttleNext: (count) => {
      pending.throttles += count;
    },
    serverErrorNext: (count) => {
      pending.serverErrors += count;
    },
    reset: () => {
      faults.failEntryRate = 0;
      faults.throttleRate = 0;
      pending.failEntries = 0;
      pending.throttles = 0;
      pending.serverErrors = 0;
    },
  };
  return faults;
}

export function createBus(state: EventBridgeState, name: string): Bus {
  const region = state.options.region ?? 'us-east-1';
  const accountId = state.options.accountId ?? '000000000000';
  const bus = { arn: `arn:aws:events:${region}:${accountId}:event-bus/${name}`, createdAt: new Date() };
  state.buses.set(name, bus);
  return bus;
}

/** The bus an EventBusName names (a name or an ARN; absent: `default`). */
export function busName(nameOrArn: unknown): string {
  if (nameOrArn === undefined || nameOrArn === null || nameOrArn === '') return 'default';
  if (typeof nameOrArn !== 'string')
    throw new AwsJsonError('ValidationException', 'EventBusName must be a string');
  const marker = nameOrArn.lastIndexOf(':event-bus/');
  return marker >= 0 ? nameOrArn.slice(marker + ':event-bus/'.length) : nameOrArn;
}

/** A valid event bus name, or a ValidationException. */
export function requireName(name: unknown): string {
  if (typeof name !== 'string' || !/^[A-Za-z0-9._\-/]{1,256}$/.test(name)) {
    throw new AwsJsonError('ValidationException', 'Name is required and must be a valid event bus name');
  }
  return name;
}
