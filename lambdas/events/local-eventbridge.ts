/**
 * A small local EventBridge endpoint for tests and local runs: a node:http server speaking the
 * AWS JSON 1.1 protocol (`X-Amz-Target: AWSEvents.<Operation>`), so the real
 * `@aws-sdk/client-eventbridge` talks to it through its `endpoint` setting (or
 * AWS_ENDPOINT_URL_EVENTBRIDGE). Signatures are not checked; any credentials do.
 *
 * Operations: PutEvents (limits of the real service: 1 to 10 entries, under 256 KB in total),
 * CreateEventBus, DescribeEventBus, DeleteEventBus, ListEventBuses.
 *
 * Faults, for testing publishers (randomness is seeded, so a run is reproducible):
 * - `failEntryRate`: share of entries answered with ErrorCode InternalFailure (not stored).
 * - `throttleRate`: share of PutEvents requests answered 400 ThrottlingException.
 * - `failNext(n)`, `throttleNext(n)`, `serverErrorNext(n)`: the next n entries / requests fail.
 *
 * Not a part of the bridge in AWS: rules, targets and archives are not emulated.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { entrySize, MAX_ENTRIES_PER_REQUEST, MAX_REQUEST_BYTES } from './put-events-batches';

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

class AwsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'AwsError';
  }
}

/** mulberry32: a tiny seeded PRNG, good enough for fault injection. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startLocalEventBridge(
  options: LocalEventBridgeOptions = {},
): Promise<LocalEventBridge> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const autoCreate = options.autoCreateBuses ?? true;
  const random = seededRandom(options.seed ?? 1);
  const buses = new Map<string, { arn: string; createdAt: Date }>();
  const events: ReceivedEvent[] = [];
  const stats: LocalEventBridgeStats = { putEventsRequests: 0, throttledRequests: 0, failedEntries: 0 };
  const pending = { failEntries: 0, throttles: 0, serverErrors: 0 };

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

  const arnOf = (name: string) => `arn:aws:events:${region}:${accountId}:event-bus/${name}`;
  const createBus = (name: string) => {
    const bus = { arn: arnOf(name), createdAt: new Date() };
    buses.set(name, bus);
    return bus;
  };
  createBus('default');
  for (const name of options.buses ?? []) createBus(requireName(name));

  const busName = (nameOrArn: unknown): string => {
    if (nameOrArn === undefined || nameOrArn === null || nameOrArn === '') return 'default';
    if (typeof nameOrArn !== 'string')
      throw new AwsError('ValidationException', 'EventBusName must be a string');
    const marker = nameOrArn.lastIndexOf(':event-bus/');
    return marker >= 0 ? nameOrArn.slice(marker + ':event-bus/'.length) : nameOrArn;
  };

  const nextEventId = (): string => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    PutEvents: (input) => {
      stats.putEventsRequests++;
      const entries = input.Entries;
      if (!Array.isArray(entries) || entries.length < 1 || entries.length > MAX_ENTRIES_PER_REQUEST) {
        throw new AwsError(
          'ValidationException',
          `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES_PER_REQUEST}`,
        );
      }
      const total = entries.reduce((sum: number, e: Record<string, unknown>) => sum + sizeOf(e), 0);
      if (total > MAX_REQUEST_BYTES) {
        throw new AwsError(
          'ValidationException',
          'Total size of the entries in the request is over the limit.',
        );
      }
      if (pending.throttles > 0 || (faults.throttleRate > 0 && random() < faults.throttleRate)) {
        if (pending.throttles > 0) pending.throttles--;
        stats.throttledRequests++;
        throw new AwsError('ThrottlingException', 'Rate exceeded');
      }
      const results = (entries as Record<string, unknown>[]).map((entry) => putEntry(entry));
      return {
        FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length,
        Entries: results,
      };
    },
    CreateEventBus: (input) => {
      const name = requireName(input.Name);
      if (buses.has(name))
        throw new AwsError('ResourceAlreadyExistsException', `Event bus ${name} already exists.`);
      return { EventBusArn: createBus(name).arn };
    },
    DescribeEventBus: (input) => {
      const name = busName(input.Name);
      const bus = buses.get(name);
      if (!bus) throw new AwsError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
      return { Name: name, Arn: bus.arn, CreationTime: bus.createdAt.getTime() / 1000 };
    },
    DeleteEventBus: (input) => {
      const name = requireName(input.Name);
      if (name === 'default') throw new AwsError('ValidationException', 'Cannot delete event bus default.');
      buses.delete(name);
      return {};
    },
    ListEventBuses: () => ({
      EventBuses: [...buses.entries()].map(([name, bus]) => ({ Name: name, Arn: bus.arn })),
    }),
  };

  function putEntry(entry: Record<string, unknown>): Record<string, string> {
    const name = busName(entry.EventBusName);
    if (!buses.has(name)) {
      if (!autoCreate)
        return { ErrorCode: 'InvalidArgument', ErrorMessage: `Event bus ${name} does not exist.` };
      createBus(name);
    }
    const { Source: source, DetailType: detailType } = entry;
    if (typeof source !== 'string' || source === '' || typeof detailType !== 'string' || detailType === '') {
      return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameters Source and DetailType are required.' };
    }
    let detail: unknown;
    try {
      detail = JSON.parse(typeof entry.Detail === 'string' ? entry.Detail : '');
    } catch {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    if (pending.failEntries > 0 || (faults.failEntryRate > 0 && random() < faults.failEntryRate)) {
      if (pending.failEntries > 0) pending.failEntries--;
      stats.failedEntries++;
      return { ErrorCode: 'InternalFailure', ErrorMessage: 'Injected failure' };
    }
    const id = nextEventId();
    const received: ReceivedEvent = {
      id,
      eventBusName: name,
      source,
      detailType,
      detail,
      time: timeOf(entry.Time),
      resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
    };
    if (options.keepEvents !== false) events.push(received);
    options.onEvent?.(received);
    return { EventId: id };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { __type: 'InternalException', message: 'internal error' });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (req.method !== 'POST') throw new AwsError('UnknownOperationException', 'POST required', 404);
      const body = await readBody(req);
      if (pending.serverErrors > 0) {
        pending.serverErrors--;
        throw new AwsError('InternalException', 'Injected server error', 500);
      }
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('AWSEvents.')
        ? operations[target.slice('AWSEvents.'.length)]
        : undefined;
      if (!operation) throw new AwsError('UnknownOperationException', `Unknown operation ${target}`);
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body);
      } catch {
        throw new AwsError('SerializationException', 'Request body is not valid JSON');
      }
      if (typeof input !== 'object' || input === null) {
        throw new AwsError('SerializationException', 'Request body is not a JSON object');
      }
      send(res, 200, operation(input as Record<string, unknown>));
    } catch (err) {
      if (err instanceof AwsError) {
        send(res, err.status, { __type: err.type, message: err.message }, err.type);
        return;
      }
      throw err;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    endpoint: `http://${host}:${address.port}`,
    events,
    faults,
    stats,
    buses,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function requireName(name: unknown): string {
  if (typeof name !== 'string' || !/^[A-Za-z0-9._\-/]{1,256}$/.test(name)) {
    throw new AwsError('ValidationException', 'Name is required and must be a valid event bus name');
  }
  return name;
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new AwsError('ValidationException', 'Request is too large', 413));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(text);
}
