/**
 * Shared set-up for the client's tests against the sandbox over a real socket: one sandbox per test
 * file, clients that record every request they report, and the sandbox's in-process view of its
 * data (parsed with the operation's schema) as the oracle.
 */
import {
  type FetchFn,
  GymApiClient,
  type GymApiClientOptions,
  type ItemOf,
  OPERATIONS,
  type OperationName,
  type RequestEvent,
  TokenProvider,
  type TokenProviderOptions,
} from '../../../lambdas/gym-api';
import type { RecordQuery } from '../../../sandbox';
import { DEFAULT_FAULTS, type Sandbox, type SandboxOptions, startSandbox } from '../../../sandbox';

export const SANDBOX_START = '2025-03-10T00:00:00Z';

export async function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, seed: 11, startTime: SANDBOX_START, ...options });
}

/** Puts every fault back to its default (the faults object is live and shared). */
export function resetFaults(sandbox: Sandbox): void {
  Object.assign(sandbox.faults, DEFAULT_FAULTS);
}

export interface RecordingClient {
  readonly client: GymApiClient;
  readonly tokens: TokenProvider;
  /** Every request the client reported, token requests included. */
  readonly events: RequestEvent[];
  readonly dataEvents: () => RequestEvent[];
  readonly tokenEvents: () => RequestEvent[];
  readonly sleeps: number[];
}

export interface RecordingClientOptions {
  readonly club?: number;
  readonly apiKey?: string;
  readonly tokens?: TokenProvider;
  readonly tokenOptions?: Partial<TokenProviderOptions>;
  readonly client?: Partial<GymApiClientOptions>;
  readonly fetch?: FetchFn;
}

export function recordingClient(sandbox: Sandbox, options: RecordingClientOptions = {}): RecordingClient {
  const events: RequestEvent[] = [];
  const sleeps: number[] = [];
  const tokens =
    options.tokens ??
    new TokenProvider({
      baseUrl: sandbox.url,
      ...sandbox.integrator,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...options.tokenOptions,
    });
  const club = sandbox.clubs[options.club ?? 0];
  if (!club) throw new Error('no such sandbox club');
  const client = new GymApiClient({
    baseUrl: sandbox.url,
    apiKey: options.apiKey ?? club.apiKey,
    tokenProvider: tokens,
    onRequest: (e) => events.push(e),
    retry: { baseDelayMs: 2, maxDelayMs: 20 },
    // Real waits, recorded: backoffs are short here, and 429 tests override sleep.
    sleep: async (ms) => {
      sleeps.push(ms);
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...options.client,
  });
  return {
    client,
    tokens,
    events,
    dataEvents: () => events.filter((e) => e.kind === 'data'),
    tokenEvents: () => events.filter((e) => e.kind === 'token'),
    sleeps,
  };
}

/** What the sandbox holds for this query, as the client should deliver it (schema-parsed). */
export function expectedItems<N extends OperationName>(
  sandbox: Sandbox,
  clubIndex: number,
  op: N,
  query: RecordQuery = {},
): ItemOf<N>[] {
  const club = sandbox.clubs[clubIndex];
  if (!club) throw new Error('no such sandbox club');
  return sandbox.records(club.clubId, op, query).map((r) => OPERATIONS[op].itemSchema.parse(r) as ItemOf<N>);
}

/** Order-independent comparison key of a list of records. */
export function canonical(items: readonly unknown[]): string[] {
  return items.map((i) => JSON.stringify(i)).sort();
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}
