/**
 * Builds the API client of a club for one poll. Clubs that share an integrator login (the usual
 * case: one login, one API key per club) share one TokenProvider, so one token serves them all.
 */

import type { ClubConfig } from '../../clubs/club-config';
import {
  type FetchFn,
  GymApiClient,
  type RequestObserver,
  type RetryPolicy,
  TokenProvider,
} from '../../gym-api';

export interface ClientFactory {
  forClub(club: ClubConfig, onRequest: RequestObserver): GymApiClient;
}

export interface GymApiClientFactoryOptions {
  readonly fetch?: FetchFn;
  readonly requestTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Told about every token request (they are per login, not per club). */
  readonly onTokenRequest?: RequestObserver;
  /** Cap of a page's body (docs/client.md, "Limits"). @default 8 MiB */
  readonly maxResponseBytes?: number;
}

export class GymApiClientFactory implements ClientFactory {
  readonly #providers = new Map<string, TokenProvider>();

  constructor(private readonly options: GymApiClientFactoryOptions = {}) {}

  forClub(club: ClubConfig, onRequest: RequestObserver): GymApiClient {
    return new GymApiClient({
      baseUrl: club.baseUrl,
      apiKey: club.credentials.apiKey,
      tokenProvider: this.#tokenProvider(club),
      onRequest,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      ...(this.options.requestTimeoutMs ? { requestTimeoutMs: this.options.requestTimeoutMs } : {}),
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      ...(this.options.maxResponseBytes ? { maxResponseBytes: this.options.maxResponseBytes } : {}),
    });
  }

  #tokenProvider(club: ClubConfig): TokenProvider {
    const { username, password } = club.credentials;
    const key = `${club.baseUrl}\u0000${username}\u0000${password}`;
    let provider = this.#providers.get(key);
    if (!provider) {
      provider = new TokenProvider({
        baseUrl: club.baseUrl,
        username,
        password,
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        ...(this.options.onTokenRequest ? { onRequest: this.options.onTokenRequest } : {}),
      });
      this.#providers.set(key, provider);
    }
    return provider;
  }
}

/**
 * A client factory that counts the 429 answers of the clients it builds (the poll's RateLimited
 * metric): one per club poll, in front of the shared factory.
 */
export class RateLimitCountingFactory implements ClientFactory {
  #rateLimited = 0;

  constructor(private readonly inner: ClientFactory) {}

  /** 429 answers seen so far. */
  get rateLimited(): number {
    return this.#rateLimited;
  }

  forClub(club: ClubConfig, onRequest: RequestObserver): GymApiClient {
    return this.inner.forClub(club, (e) => {
      if (e.status === 429) this.#rateLimited++;
      onRequest(e);
    });
  }
}
