/**
 * Test doubles for unit tests of the client: an injected fetch that records requests and answers
 * from a handler (no network), and a fake clock whose sleep advances time.
 */
import type { FetchFn } from '../../../lambdas/gym-api/http-exchange';

export interface RecordedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
}

export type Handler = (request: RecordedRequest, index: number) => Response | Promise<Response>;

export function scriptedFetch(handler: Handler): { fetch: FetchFn; calls: RecordedRequest[] } {
  const calls: RecordedRequest[] = [];
  const fetch: FetchFn = async (input, init) => {
    const request: RecordedRequest = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
    };
    calls.push(request);
    init?.signal?.throwIfAborted();
    return handler(request, calls.length - 1);
  };
  return { fetch, calls };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function tokenResponse(token: string, expiresIn = 3600): Response {
  return json({ AccessToken: token, ExpiresIn: expiresIn, TokenType: 'Bearer' });
}

export class FakeClock {
  readonly sleeps: number[] = [];
  constructor(public ms = Date.parse('2025-03-01T00:00:00Z')) {}
  readonly now = (): number => this.ms;
  readonly advance = (ms: number): void => {
    this.ms += ms;
  };
  /** A sleep that returns at once and moves the clock by the wait. */
  readonly sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.ms += ms;
  };
}

/** A promise and its resolve function, for holding a fake response until the test releases it. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
