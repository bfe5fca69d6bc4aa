/**
 * A GymApiClient over an injected fetch (no network), as the client tests set it up: /token issues
 * tok-1, tok-2, ..., every request is reported to `events`, a fake clock records the waits; a visits
 * handler that pages like the seed, and `failure` to await an expected rejection.
 */
import { GymApiClient } from '../../../lambdas/gym-api/client';
import type { GymApiClientOptions } from '../../../lambdas/gym-api/client-options';
import type { RequestEvent } from '../../../lambdas/gym-api/request-event';
import { TokenProvider } from '../../../lambdas/gym-api/token-provider';
import {
  FakeClock,
  type Handler,
  json,
  type RecordedRequest,
  scriptedFetch,
  tokenResponse,
} from './fake-upstream';

export const BASE = 'https://gym.example.test/v1';
export const API_KEY = 'club-key-123456';

export interface Harness {
  client: GymApiClient;
  calls: RecordedRequest[];
  dataCalls: () => RecordedRequest[];
  tokenCalls: () => RecordedRequest[];
  events: RequestEvent[];
  clock: FakeClock;
}

/** `data` answers data requests; /token always issues tok-1, tok-2, ... */
export function harness(
  data: Handler,
  options: Partial<GymApiClientOptions> = {},
  clock = new FakeClock(),
): Harness {
  let issued = 0;
  let dataIndex = 0;
  const upstream = scriptedFetch((request) =>
    request.url.pathname.endsWith('/token') ? tokenResponse(`tok-${++issued}`) : data(request, dataIndex++),
  );
  const events: RequestEvent[] = [];
  const tokenProvider = new TokenProvider({
    baseUrl: BASE,
    username: 'u',
    password: 'p4ssword',
    fetch: upstream.fetch,
    now: clock.now,
  });
  const client = new GymApiClient({
    baseUrl: BASE,
    apiKey: API_KEY,
    tokenProvider,
    fetch: upstream.fetch,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    onRequest: (e) => events.push(e),
    ...options,
  });
  const isToken = (c: RecordedRequest) => c.url.pathname.endsWith('/token');
  return {
    client,
    calls: upstream.calls,
    dataCalls: () => upstream.calls.filter((c) => !isToken(c)),
    tokenCalls: () => upstream.calls.filter(isToken),
    events,
    clock,
  };
}

/** A data handler serving `total` visits with offset/limit and a `next` link, like the seed. */
export function visits(total: number): Handler {
  return (request) => {
    const offset = Number(request.url.searchParams.get('offset') ?? 0);
    const limit = Number(request.url.searchParams.get('limit') ?? 500);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
      MemberNumber: `M${offset + i}`,
      VisitDateTime: '2025-03-01T06:00:00',
    }));
    const next = new URL(request.url);
    next.searchParams.set('offset', String(offset + limit));
    return json({ href: request.url.href, next: next.href, data });
  };
}

export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}
