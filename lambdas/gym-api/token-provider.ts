/**
 * OAuth 2.0 client-credentials token for the Gym Reporting API: HTTP Basic to POST {base}/token,
 * cached until shortly before `ExpiresIn`, with at most one refresh in flight however many callers
 * ask at once. One provider serves every club that shares the integrator login.
 */
import { logger } from '../common/logger';
import { basicLoginSecrets, redact, rememberSecrets } from '../common/redact';
import { SMALL_BODY_BYTES } from './body-budget';
import { AuthError, DeadlineExceededError, InvalidResponseError } from './errors';
import { exchange, type FetchFn, throwIfAborted } from './http-exchange';
import { parseJsonPreservingInt64 } from './json';
import { TokenResponseSchema } from './protocol-schemas';
import { describeError, type RequestObserver, reportRequest } from './request-event';
import { errorForStatus } from './status-errors';
import { describeBody } from './upstream-message';

export interface TokenProviderOptions {
  /** The API base address, ending in the version segment, e.g. `https://api.example.com/v1`. */
  readonly baseUrl: string;
  readonly username: string;
  readonly password: string;
  /** @default globalThis.fetch */
  readonly fetch?: FetchFn;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /**
   * Refresh this many seconds before the token expires. Capped at half the token's lifetime.
   * @default min(60, 10% of the token's lifetime)
   */
  readonly refreshMarginSec?: number;
  /** @default 15000 */
  readonly requestTimeoutMs?: number;
  /** Told about every token request this provider makes (in addition to the per-call observer). */
  readonly onRequest?: RequestObserver;
}

export interface GetTokenOptions {
  /** Stops waiting (not the shared refresh, which other callers may need). */
  readonly signal?: AbortSignal;
  /** Epoch ms after which the caller stops waiting. */
  readonly deadline?: number;
  /** Reported as `attempt` on the token request this call triggers, if any. @default 1 */
  readonly attempt?: number;
  /** Told about the token request this call triggers, if any (callers sharing it are not). */
  readonly onRequest?: RequestObserver;
}

interface CachedToken {
  readonly token: string;
  /** Epoch ms from which a new token is fetched. */
  readonly refreshAt: number;
  /** Epoch ms at which the upstream stops accepting it. */
  readonly expiresAt: number;
}

const DEFAULT_MARGIN_SEC = 60;
const DEFAULT_MARGIN_FRACTION = 0.1;
const DEFAULT_TIMEOUT_MS = 15_000;

export class TokenProvider {
  readonly #baseUrl: string;
  readonly #basicAuth: string;
  /** The password, `username:password` and the Basic header: remembered for the sinks. */
  readonly #loginSecrets: readonly string[];
  /** The login secrets and the username: what an answer may echo, removed at the source. */
  readonly #echoSecrets: readonly string[];
  readonly #fetch: FetchFn;
  readonly #now: () => number;
  readonly #refreshMarginSec: number | undefined;
  readonly #timeoutMs: number;
  readonly #onRequest: RequestObserver | undefined;
  #cached: CachedToken | undefined;
  #inflight: Promise<CachedToken> | undefined;

  constructor(options: TokenProviderOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#basicAuth = `Basic ${Buffer.from(`${options.username}:${options.password}`, 'utf8').toString('base64')}`;
    this.#loginSecrets = [...basicLoginSecrets(options.username, options.password), this.#basicAuth];
    // The username alone is removed from what the upstream sends (an echo of the login), not from
    // every text of the process: the CLI names the login on purpose (`clubs add`).
    this.#echoSecrets = [...this.#loginSecrets, options.username];
    rememberSecrets(...this.#loginSecrets);
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#now = options.now ?? Date.now;
    this.#refreshMarginSec = options.refreshMarginSec;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#onRequest = options.onRequest;
  }

  /** A valid access token: the cached one, or one fresh from POST /token (shared by concurrent callers). */
  async getToken(options: GetTokenOptions = {}): Promise<string> {
    throwIfAborted(options.signal, 'token');
    const cached = this.#cached;
    if (cached && this.#now() < cached.refreshAt) return cached.token;
    if (!this.#inflight) {
      const refresh = this.#refresh(options.attempt ?? 1, options.onRequest).then(
        (fresh) => {
          this.#cached = fresh;
          return fresh;
        },
        (err: unknown) => {
          // A token still inside its lifetime beats failing a poll because a refresh hit a blip.
          const stillValid = this.#cached;
          if (stillValid && this.#now() < stillValid.expiresAt && !(err instanceof AuthError)) {
            logger.warn('gym-api token refresh failed; using the cached token until it expires', {
              error: describeError(err),
            });
            return stillValid;
          }
          throw err;
        },
      );
      this.#inflight = refresh;
      refresh.then(
        () => this.#clearInflight(refresh),
        () => this.#clearInflight(refresh),
      );
    }
    const token = await waitFor(this.#inflight, options.signal, options.deadline, this.#now);
    return token.token;
  }

  /**
   * The integrator login (username, password, `username:password`, the Basic header) and the
   * token this provider holds, for the client to redact from upstream text.
   */
  redactionSecrets(): readonly string[] {
    return this.#cached ? [...this.#echoSecrets, this.#cached.token] : this.#echoSecrets;
  }

  /**
   * Forgets `token` if it is the cached one, so the next getToken fetches a new token. Called after
   * a 401: many callers rejected with the same stale token cause exactly one refresh.
   */
  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  #clearInflight(settled: Promise<CachedToken>): void {
    if (this.#inflight === settled) this.#inflight = undefined;
  }

  async #refresh(attempt: number, observer: RequestObserver | undefined): Promise<CachedToken> {
    const requestedAt = this.#now();
    const started = performance.now();
    let status: number | undefined;
    let failure: unknown;
    try {
      const response = await exchange({
        url: `${this.#baseUrl}/token`,
        method: 'POST',
        headers: { Authorization: this.#basicAuth, Accept: 'application/json' },
        operation: 'token',
        timeoutMs: this.#timeoutMs,
        now: this.#now,
        fetch: this.#fetch,
        maxBodyBytes: SMALL_BODY_BYTES,
      });
      response.release();
      status = response.status;
      if (response.status !== 200) {
        throw errorForStatus(response, {
          operation: 'token',
          secrets: this.#echoSecrets,
          nowMs: this.#now(),
          defaultAuthReason: 'credentials',
          forceAuthReason: 'credentials',
        });
      }
      return this.#readTokenResponse(response.body, response.headers.get('content-type'), requestedAt);
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      reportRequest(
        {
          kind: 'token',
          operation: 'token',
          ...(status === undefined ? {} : { status }),
          durationMs: Math.round(performance.now() - started),
          attempt,
          ...(failure === undefined ? {} : { error: describeError(failure) }),
        },
        this.#onRequest,
        observer,
      );
    }
  }

  #readTokenResponse(body: string, contentType: string | null, requestedAt: number): CachedToken {
    let parsed: unknown;
    try {
      parsed = parseJsonPreservingInt64(body);
    } catch {
      // No `cause`: the parser's message quotes the body's first characters (the login, echoed?).
      throw new InvalidResponseError(`token: response is not JSON (${describeBody(body, contentType)})`, {
        operation: 'token',
        status: 200,
      });
    }
    const result = TokenResponseSchema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = issue ? issue.path.join('.') : '';
      throw new InvalidResponseError(`token: response ${path || 'body'}: ${issue?.message ?? 'invalid'}`, {
        operation: 'token',
        status: 200,
        path,
      });
    }
    const { AccessToken, ExpiresIn, TokenType } = result.data;
    if (!/^[\x21-\x7e]+$/.test(AccessToken)) {
      // It goes into an Authorization header: fetch would refuse it, quoting it.
      throw new InvalidResponseError(
        'token: AccessToken holds characters an HTTP header cannot carry (control characters, spaces or non-ASCII); its value is not shown',
        { operation: 'token', status: 200, path: 'AccessToken' },
      );
    }
    rememberSecrets(AccessToken);
    if (ExpiresIn <= 0) {
      throw new InvalidResponseError(`token: ExpiresIn must be positive, got ${ExpiresIn}`, {
        operation: 'token',
        status: 200,
        path: 'ExpiresIn',
      });
    }
    if (TokenType.toLowerCase() !== 'bearer') {
      logger.warn('gym-api token type is not Bearer; sending it as a bearer token anyway', {
        // Redacted before it is cut: a login echoed there never shows, whole or in part.
        TokenType: redact(TokenType, [...this.#echoSecrets, AccessToken]).slice(0, 40),
      });
    }
    const lifetimeMs = ExpiresIn * 1000;
    const marginMs = refreshMarginMs(lifetimeMs, this.#refreshMarginSec);
    return {
      token: AccessToken,
      refreshAt: requestedAt + lifetimeMs - marginMs,
      expiresAt: requestedAt + lifetimeMs,
    };
  }
}

/** How long before expiry to refresh: explicit margin capped at half the lifetime, else min(60 s, 10%). */
export function refreshMarginMs(lifetimeMs: number, refreshMarginSec: number | undefined): number {
  if (refreshMarginSec !== undefined) return Math.min(Math.max(0, refreshMarginSec * 1000), lifetimeMs / 2);
  return Math.min(DEFAULT_MARGIN_SEC * 1000, lifetimeMs * DEFAULT_MARGIN_FRACTION);
}

/** Waits for a shared promise, giving up (alone) when the caller's signal fires or deadline passes. */
function waitFor<T>(
  shared: Promise<T>,
  signal: AbortSignal | undefined,
  deadline: number | undefined,
  now: () => number,
): Promise<T> {
  if (!signal && deadline === undefined) return shared;
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      cleanup();
      try {
        throwIfAborted(signal, 'token');
      } catch (err) {
        reject(err);
      }
    };
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (deadline !== undefined) {
      const remaining = deadline - now();
      if (remaining <= 0) {
        reject(
          new DeadlineExceededError('token: deadline passed before a token was available', {
            operation: 'token',
          }),
        );
        return;
      }
      timer = setTimeout(() => {
        cleanup();
        reject(
          new DeadlineExceededError('token: deadline reached while waiting for a token', {
            operation: 'token',
          }),
        );
      }, remaining);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    shared.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (err: unknown) => {
        cleanup();
        reject(err);
      },
    );
  });
}
