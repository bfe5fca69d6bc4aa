/**
 * The data requests of one club's client: one logical GET of a page (token, the club's headers,
 * the retry policy of retry-policy.ts, a fresh token once after a 401, every request reported to
 * the onRequest hook), its body read as a page envelope, and every credential of the client
 * scrubbed from what the upstream sent back, decided on the parsed body (credential-scrubber.ts).
 * Resolves with a 2xx page; every other outcome is a typed error.
 */
import { logger } from '../common/logger';
import type { RequestOptions, SleepFn, TokenSource } from './client-options';
import { CredentialScrubber } from './credential-scrubber';
import { AuthError, DeadlineExceededError, GymApiError } from './errors';
import { type ExchangeResponse, exchange, type FetchFn, throwIfAborted } from './http-exchange';
import type { UpstreamTextCleaner } from './over-cap-policy';
import { type Envelope, parseEnvelope } from './page-reader';
import { describeError, type RequestObserver, reportRequest } from './request-event';
import { type RetryClock, type RetryPolicy, type RetryState, retryDelay } from './retry-policy';
import { errorForStatus } from './status-errors';
import { authReasonFromMessage, upstreamExcerpt } from './upstream-message';

/** What the requests are made with (GymApiClient resolves and checks the options). */
export interface DataRequestSettings {
  readonly apiKey: string;
  readonly tokens: TokenSource;
  readonly fetch: FetchFn;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly sleep: SleepFn;
  readonly random: () => number;
  readonly now: () => number;
  readonly onRequest: RequestObserver | undefined;
  readonly maxResponseBytes: number;
}

export class DataRequests {
  readonly #apiKey: string;
  readonly #tokens: TokenSource;
  readonly #fetch: FetchFn;
  readonly #timeoutMs: number;
  readonly #sleep: SleepFn;
  readonly #now: () => number;
  readonly #onRequest: RequestObserver | undefined;
  readonly #maxResponseBytes: number;
  readonly #clock: RetryClock;
  #scrubber: { readonly key: string; readonly scrubber: CredentialScrubber } | undefined;

  constructor(settings: DataRequestSettings) {
    this.#apiKey = settings.apiKey;
    this.#tokens = settings.tokens;
    this.#fetch = settings.fetch;
    this.#timeoutMs = settings.timeoutMs;
    this.#sleep = settings.sleep;
    this.#now = settings.now;
    this.#onRequest = settings.onRequest;
    this.#maxResponseBytes = settings.maxResponseBytes;
    this.#clock = { policy: settings.retry, random: settings.random, now: settings.now };
  }

  /** Every credential a response of this client could echo: the API key, tokens, the login. */
  secrets(token?: string): string[] {
    return [this.#apiKey, ...(token ? [token] : []), ...(this.#tokens.redactionSecrets?.() ?? [])];
  }

  /** Cleans upstream text that may quote a credential of this client (over-cap-policy.ts). */
  cleaner(): UpstreamTextCleaner {
    return {
      link: (text) => this.#scrubberOf(this.secrets()).secrets(text),
      cut: (text) => this.#scrubberOf(this.secrets()).cutText(text),
    };
  }

  /**
   * The scrubber of these secrets: the last one made is kept while the secrets stay the same (a
   * page's pattern is built once per token, not per response).
   */
  #scrubberOf(secrets: string[]): CredentialScrubber {
    const key = secrets.join('\u0000');
    if (this.#scrubber?.key !== key) this.#scrubber = { key, scrubber: new CredentialScrubber(secrets) };
    return this.#scrubber.scrubber;
  }

  /**
   * A page whose parsed body quotes a credential of this client (in any form, however the body
   * escaped it): every such string of it (records, keys, `href`, `next`) is replaced before
   * anything reads it.
   */
  #scrubCredentials(operation: string, url: string, parsed: unknown, token: string): void {
    const strings = this.#scrubberOf(this.secrets(token)).values(parsed);
    if (strings === 0) return;
    logger.warn('gym-api response quoted a credential; removed from its records', {
      operation,
      offset: new URL(url).searchParams.get('offset'),
      strings,
      reason: `${strings} string${strings === 1 ? '' : 's'} of the page held a credential of the request; each reads [redacted] there now`,
    });
  }

  async getEnvelope(
    operation: string,
    url: string,
    options: RequestOptions,
  ): Promise<{ envelope: Envelope; release: () => void }> {
    const { response, token } = await this.#request(operation, url, options);
    try {
      const envelope = parseEnvelope(
        operation,
        response.body,
        response.headers.get('content-type'),
        response.status,
        (parsed) => this.#scrubCredentials(operation, url, parsed, token),
      );
      return { envelope, release: response.release };
    } catch (err) {
      response.release();
      throw err;
    }
  }

  /**
   * One logical GET: token, request, and the retry policy. Resolves with a 2xx response; every
   * other outcome is a typed error.
   */
  async #request(
    operation: string,
    url: string,
    options: RequestOptions,
  ): Promise<{ response: ExchangeResponse; token: string }> {
    const { signal, deadline } = options;
    // A page asked for ahead does not wait out a 429: it is declined and asked for in its turn.
    const state: RetryState = { transientFailures: 0, quotaRetried: options.ahead === true };
    let reauthenticated = false;
    let lastFailure: GymApiError | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const token = await this.#tokens.getToken({
          attempt,
          ...(signal ? { signal } : {}),
          ...(deadline === undefined ? {} : { deadline }),
          ...(this.#onRequest ? { onRequest: this.#onRequest } : {}),
        });
        const response = await this.#send(operation, url, token, attempt, options);
        if (response.status >= 200 && response.status < 300) return { response, token };
        response.release();
        if (response.status !== 401) throw this.#statusError(operation, response, token);
        const said = authReasonFromMessage(upstreamExcerpt(response.body, this.secrets(token)));
        if (!reauthenticated && said !== 'apiKey') {
          // An expired or revoked token: one fresh token, one more try.
          reauthenticated = true;
          this.#tokens.invalidate(token);
          logger.debug('gym-api 401; refreshing the token and retrying once', { operation, attempt });
          continue;
        }
        const reason = said ?? (reauthenticated ? 'apiKey' : 'unknown');
        const excerpt = upstreamExcerpt(response.body, this.secrets(token));
        throw new AuthError(
          `${operation}: HTTP 401 (${reason} rejected${reauthenticated ? ' with a fresh token' : ''})${excerpt ? `: ${excerpt}` : ''}`,
          { operation, status: 401, reason },
        );
      } catch (err) {
        if (err instanceof DeadlineExceededError && lastFailure) {
          // The deadline cut a retry short: say what the retries were trying to get past.
          throw new DeadlineExceededError(`${err.message}; last failure: ${lastFailure.message}`, {
            operation,
            cause: lastFailure,
          });
        }
        const wait = retryDelay(err, state, deadline, this.#clock);
        if (wait === undefined) throw err;
        if (err instanceof GymApiError) lastFailure = err;
        logger.debug('gym-api retrying', { operation, attempt, waitMs: wait, error: describeError(err) });
        await this.#sleep(wait, signal).catch((sleepErr: unknown) => {
          throwIfAborted(signal, operation);
          throw sleepErr;
        });
        throwIfAborted(signal, operation);
      }
    }
  }

  /** Sends one data request and reports it to onRequest. */
  async #send(
    operation: string,
    url: string,
    token: string,
    attempt: number,
    options: RequestOptions,
  ): Promise<ExchangeResponse> {
    const started = performance.now();
    let response: ExchangeResponse | undefined;
    let failure: unknown;
    try {
      response = await exchange({
        url,
        method: 'GET',
        headers: {
          Authorization: `Bearer ${token}`,
          'x-api-key': this.#apiKey,
          Accept: 'application/json',
          // A cache between us and the API must not answer with a stored response: a stale short
          // page would read as the end of the data (docs/security.md, "What the upstream can send").
          'Cache-Control': 'no-cache',
        },
        operation,
        timeoutMs: this.#timeoutMs,
        now: this.#now,
        fetch: this.#fetch,
        maxBodyBytes: Math.min(this.#maxResponseBytes, options.bodyCap ?? this.#maxResponseBytes),
        ...(options.ahead ? { readAhead: true } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
      });
      return response;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      const status = response?.status;
      const failed = failure !== undefined || (status !== undefined && (status < 200 || status >= 300));
      reportRequest(
        {
          kind: 'data',
          operation,
          ...(status === undefined ? {} : { status }),
          durationMs: Math.round(performance.now() - started),
          attempt,
          ...(options.ahead ? { ahead: true } : {}),
          ...(failed ? { error: failure === undefined ? `HTTP ${status}` : describeError(failure) } : {}),
        },
        this.#onRequest,
      );
    }
  }

  #statusError(operation: string, response: ExchangeResponse, token: string): GymApiError {
    return errorForStatus(response, {
      operation,
      secrets: this.secrets(token),
      nowMs: this.#now(),
      defaultAuthReason: 'unknown',
    });
  }
}
