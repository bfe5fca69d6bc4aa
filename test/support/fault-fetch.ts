/**
 * A fetch for the Gym API client of one poller process: it can move the sandbox clock ahead before
 * a data request (time passes while paging, so a token expires mid-scan), kill the process right
 * after a response arrived (the "crash after fetch" step), and counts what the API answered (5xx,
 * 429, 401, timeouts) as injected faults.
 */
import type { FetchFn } from '../../lambdas/gym-api';
import type { PollerProcess } from './fault-injector';

export interface FaultyFetchOptions {
  /** Moves the sandbox clock ahead (the injector decides when, with `clockJumpRate`). */
  readonly jumpClock?: () => void;
  readonly fetch?: FetchFn;
}

export function faultyFetch(process: PollerProcess, options: FaultyFetchOptions = {}): FetchFn {
  const inner = options.fetch ?? globalThis.fetch;
  const { injector } = process;
  return async (input, init) => {
    process.assertAlive('fetch');
    const url = String(input instanceof Request ? input.url : input);
    const isTokenRequest = url.endsWith('/token');
    if (!isTokenRequest && options.jumpClock && injector.roll(injector.rates.clockJumpRate)) {
      injector.count('clock-jump');
      options.jumpClock();
    }
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (err) {
      if (injector.active && init?.signal?.aborted) injector.count('api-timeout');
      throw err;
    }
    if (injector.active) {
      if (response.status >= 500) injector.count('api-5xx');
      else if (response.status === 429) injector.count('api-429');
      else if (response.status === 401) injector.count('api-401-token-expired');
    }
    if (globalThis.process.env.CHAOS_TRACE && url.includes(globalThis.process.env.CHAOS_TRACE)) {
      const text = await response.clone().text();
      console.error(
        `[${process.owner}] GET ${url.replace(/^.*\/v1/, '')} -> ${response.status} ${text.slice(0, Number(globalThis.process.env.CHAOS_TRACE_LEN ?? 200))}`,
      );
    }
    const crash = injector.crashFor('fetch');
    if (crash) {
      await response.body?.cancel();
      throw process.crash({ ...crash, mode: 'kill' });
    }
    return response;
  };
}
