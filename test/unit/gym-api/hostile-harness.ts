/**
 * A GymApiClient over an injected fetch (no network) whose upstream may answer what no real API
 * should: the setup of response-limits, stale-responses and upstream-credentials. The client is
 * given the credentials below, and the token provider issues `token` (tok-1 unless told).
 */
import { GymApiClient } from '../../../lambdas/gym-api/client';
import type { GymApiClientOptions } from '../../../lambdas/gym-api/client-options';
import { TokenProvider } from '../../../lambdas/gym-api/token-provider';
import { FakeClock, type Handler, scriptedFetch, tokenResponse } from './fake-upstream';

const BASE = 'https://gym.example.test/v1';
export const API_KEY = 'club-key-123456';
export const USER = 'integrator';
export const PASSWORD = 'pa55-w0rd!';

export function harness(data: Handler, options: Partial<GymApiClientOptions> = {}, token = 'tok-1') {
  const upstream = scriptedFetch((request, index) =>
    request.url.pathname.endsWith('/token') ? tokenResponse(token) : data(request, index),
  );
  const clock = new FakeClock();
  const tokenProvider = new TokenProvider({
    baseUrl: BASE,
    username: USER,
    password: PASSWORD,
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
    ...options,
  });
  const dataCalls = () => upstream.calls.filter((c) => !c.url.pathname.endsWith('/token'));
  return { client, dataCalls };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}
