/**
 * The Gym Reporting API client for one club: bearer token + the club's x-api-key on every call,
 * paging through list operations, typed errors, retries within the caller's deadline, and a hook
 * that sees every request (for the club's quota count).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type BackoffPolicy, backoffDelayMs } from '../common/backoff';
import { logger } from '../common/logger';
import { rememberSecrets } from '../common/redact';
import { DEFAULT_MAX_RESPONSE_BYTES } from './body-budget';
import { CredentialScrubber } from './credential-scrubber';
import {
  AuthError,
  DeadlineExceededError,
  GymApiError,
  QuotaExceededError,
  ResponseTooLargeError,
  UnavailableError,
} from './errors';
import { type ExchangeResponse, exchange, type FetchFn, throwIfAborted } from './http-exchange';
import { OPERATIONS, type OperationName, type OperationSpec } from './operations';
import {
  checkAnswersRequest,
  type Envelope,
  headHoldsSeveralRecords,
  hrefInHead,
  type InvalidItem,
  nextOffsetFromLink,
  oversizedRecordPage,
  type Page,
  PageProgress,
  parseEnvelope,
  readPage,
} from './page-reader';
import { pageUrl, type QueryOf, validateOffset, validatePageSize, validateQuery } from './query';
import { describeError, type RequestObserver, reportRequest } from './request-event';
import { errorForStatus } from './status-errors';
import type { GetTokenOptions } from './token-provider';
import { authReasonFromMessage, upstreamExcerpt } from './upstream-message';

/** What the client needs from a token source; TokenProvider implements it. */
export interface TokenSource {
  getToken(options?: GetTokenOptions): Promise<string>;
  invalidate(token: string): void;
  /** Credentials the source holds (the integrator password), for redaction of upstream text. */
  redactionSecrets?(): readonly string[];
}

export interface RetryPolicy extends BackoffPolicy {
  /** Attempts per request for 5xx, network errors and timeouts (first try included). @default 5 */
  readonly maxAttempts: number;
  /** @default 200 */
  readonly baseDelayMs: number;
  /** @default 5000 */
  readonly maxDelayMs: number;
  /** Wait before the single retry after a 429 (or Retry-After, if longer). @default 5000 */
  readonly quotaDelayMs: number;
  /** A 429 whose wait would exceed this is not retried: QuotaExceededError at once. @default 30000 */
  readonly maxQuotaDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  quotaDelayMs: 5000,
  maxQuotaDelayMs: 30_000,
};

export const DEFAULT_PAGE_SIZE = 500;
/**
 * Records in a row that are over the response cap on their own, each skipped as an invalid item,
 * before the client gives up (an upstream that ignores `limit` sends every response too large).
 */
export const MAX_OVERSIZED_IN_A_ROW = 10;
/**
 * Answers over the cap for one record asked for alone before it is skipped though no two began
 * alike (an upstream that stamps every answer): a bounded cost, never a source stopped.
 */
export const MAX_ASKS_ALONE = 4;
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface GymApiClientOptions {
  /** The API base address, ending in the version segment, e.g. `https://api.example.com/v1`. */
  readonly baseUrl: string;
  /** The club's API key, sent as x-api-key. */
  readonly apiKey: string;
  /** Shared by every club of the same integrator login. */
  readonly tokenProvider: TokenSource;
  /** @default globalThis.fetch */
  readonly fetch?: FetchFn;
  /** Per HTTP request, clamped to the caller's deadline. @default 15000 */
  readonly requestTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** @default a timer that the caller's AbortSignal interrupts */
  readonly sleep?: SleepFn;
  /** [0, 1) for backoff jitter. @default Math.random */
  readonly random?: () => number;
  /** Epoch ms, compared with deadlines. @default Date.now */
  readonly now?: () => number;
  /** Every request, data and token, once it finished or failed: the quota-accounting hook. */
  readonly onRequest?: RequestObserver;
  /**
   * Largest page body read, in bytes: past it the page is asked again with fewer records, and a
   * single record past it is skipped as an invalid item (body-budget.ts). @default 8 MiB
   */
  readonly maxResponseBytes?: number;
}

export interface PageOptions {
  /** 1..500. @default 500 */
  readonly pageSize?: number;
  /** Resume a scan here. @default 0 */
  readonly startOffset?: number;
  /** Epoch ms: no request runs and no retry waits past it. */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
}

export interface RequestOptions {
  readonly deadline?: number;
  readonly signal?: AbortSignal;
}

export interface FetchAllResult<N extends OperationName> {
  readonly items: Page<N>['items'];
  /** Invalid items of every page; `offset` is the item's position in the whole result. */
  readonly invalid: (InvalidItem & { readonly offset: number })[];
  readonly pageCount: number;
}

interface RetryState {
  transientFailures: number;
  quotaRetried: boolean;
}

export class GymApiClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #tokens: TokenSource;
  readonly #fetch: FetchFn;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #sleep: SleepFn;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #onRequest: RequestObserver | undefined;
  readonly #maxResponseBytes: number;

  constructor(options: GymApiClientOptions) {
    this.#baseUrl = normaliseBaseUrl(options.baseUrl);
    if (!options.apiKey) throw new TypeError('GymApiClient: apiKey is required (the club API key)');
    this.#apiKey = options.apiKey;
    this.#tokens = options.tokenProvider;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!Number.isInteger(this.#retry.maxAttempts) || this.#retry.maxAttempts < 1) {
      throw new TypeError('GymApiClient: retry.maxAttempts must be an integer >= 1');
    }
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    this.#onRequest = options.onRequest;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(this.#maxResponseBytes) || this.#maxResponseBytes < 1024) {
      throw new TypeError('GymApiClient: maxResponseBytes must be an integer of at least 1024');
    }
    rememberSecrets(this.#apiKey);
  }

  /** Every credential a response of this client could echo: the API key, tokens, the login. */
  #secrets(token?: string): string[] {
    return [this.#apiKey, ...(token ? [token] : []), ...(this.#tokens.redactionSecrets?.() ?? [])];
  }

  /**
   * Pages through a list operation. Each page's items are validated one by one: valid ones in
   * `items`, the rest in `invalid` (not fatal). Stops after a short or empty page.
   * Query problems throw BadRequestError before any request.
   *
   * Whatever the upstream does, paging is bounded: a page over `maxResponseBytes` is asked again
   * with a tenth of the records (down to one, then growing back tenfold per page; a single record
   * over the cap in two answers that begin alike, or in MAX_ASKS_ALONE answers, is yielded as an
   * invalid item and skipped; more than
   * MAX_OVERSIZED_IN_A_ROW in a row mean the upstream ignores `limit`: ResponseTooLargeError); a
   * page that repeats the one before, or a `next` that does not move forward, is a
   * PagingStalledError.
   */
  async *pages<N extends OperationName>(
    op: N,
    query: QueryOf<N> = {} as QueryOf<N>,
    options: PageOptions = {},
  ): AsyncGenerator<Page<N>, void, undefined> {
    const spec: OperationSpec | undefined = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
    if (!spec) throw new TypeError(`GymApiClient: unknown operation '${String(op)}'`);
    const pageSize = validatePageSize(op, options.pageSize ?? DEFAULT_PAGE_SIZE);
    let size = pageSize;
    let offset = validateOffset(op, options.startOffset ?? 0);
    const filters = validateQuery(spec, query);
    const endpoint = `${this.#baseUrl}${spec.path}`;
    const progress = new PageProgress(op);
    let skippedInARow = 0;
    /** The heads of the over-cap answers for the record at `offset`, asked for alone. */
    let alone: { offset: number; heads: string[] } | undefined;
    for (;;) {
      const url = pageUrl(this.#baseUrl, spec, filters, offset, size);
      let fetched: { envelope: Envelope; release: () => void };
      try {
        fetched = await this.#getEnvelope(op, url, options);
      } catch (err) {
        if (!(err instanceof ResponseTooLargeError)) throw err;
        // An answer over the cap that names another request (a previous response served again)
        // says nothing of the records at this offset: refused like any stale page.
        checkAnswersRequest(hrefInHead(err.head), url, op);
        if (size > 1) {
          logger.warn('gym-api page over the response cap; asking for fewer records', {
            operation: op,
            offset,
            limit: size,
            error: err.message,
          });
          size = Math.max(1, Math.floor(size / 10));
          continue;
        }
        // Asked for alone and still too large. Skipped once two answers begin alike (the record
        // itself is that large); answers that differ (a one-off padded answer, an upstream blip)
        // are asked again, so a real record is never skipped for them. Bounded: MAX_ASKS_ALONE.
        if (alone?.offset !== offset) alone = { offset, heads: [] };
        // An answer of several records to a request for one ignores `limit`: it proves nothing of
        // the record at this offset, so it never counts toward skipping it.
        const several = headHoldsSeveralRecords(err.head);
        const agreed = !several && alone.heads.includes(err.head);
        alone.heads.push(several ? '' : err.head);
        if (!agreed && alone.heads.length < MAX_ASKS_ALONE) continue;
        if (several) {
          throw new ResponseTooLargeError(
            `${op}: answers to a request for one record (offset ${offset}) hold several and stay over the cap: the upstream ignores limit`,
            { operation: op, status: 200, bytes: err.bytes, limitBytes: err.limitBytes },
          );
        }
        if (++skippedInARow > MAX_OVERSIZED_IN_A_ROW) {
          throw new ResponseTooLargeError(
            `${op}: responses stay over the cap one record at a time (${MAX_OVERSIZED_IN_A_ROW} in a row up to offset ${offset}): the upstream ignores limit, or sends records of several MB`,
            { operation: op, status: 200, bytes: err.bytes, limitBytes: err.limitBytes },
          );
        }
        yield oversizedRecordPage<N>(op, offset, err, (text) => this.#scrubText(text));
        // The next record is asked for alone; the page size grows back tenfold per page after it.
        offset += 1;
        continue;
      }
      skippedInARow = 0;
      const { envelope, release } = fetched;
      try {
        checkAnswersRequest(envelope.href, url, op);
        const page = readPage<N>(spec, envelope, offset, size);
        const full = page.rawCount >= size;
        progress.check(page, envelope);
        // `next` is checked on every page, even the last: a link elsewhere means something is wrong.
        const linked = nextOffsetFromLink(envelope.next, {
          operation: op,
          requestUrl: url,
          expectedEndpoint: endpoint,
          offset,
          rawCount: page.rawCount,
          willFollow: full,
        });
        yield page;
        if (!full) return;
        offset = linked ?? offset + page.rawCount;
        size = Math.min(pageSize, size * 10);
      } finally {
        release();
      }
      throwIfAborted(options.signal, op);
    }
  }

  /** Upstream text that may quote a credential of this client, cleaned. */
  #scrubText(text: string): string {
    return new CredentialScrubber(this.#secrets()).text(text);
  }

  /**
   * A page whose body quotes a credential of this client (in any form): every such string of its
   * records is replaced before anything reads them.
   */
  #scrubCredentials(operation: string, url: string, envelope: Envelope, body: string, token: string): void {
    const scrubber = new CredentialScrubber(this.#secrets(token));
    if (!scrubber.appearsIn(body)) return;
    const strings = scrubber.values([envelope.data]);
    logger.warn('gym-api response quoted a credential; removed from its records', {
      operation,
      offset: new URL(url).searchParams.get('offset'),
      strings,
    });
  }

  /** Every page collected: for small reads and tests. Prefer `pages` for a scan. */
  async fetchAll<N extends OperationName>(
    op: N,
    query: QueryOf<N> = {} as QueryOf<N>,
    options: PageOptions = {},
  ): Promise<FetchAllResult<N>> {
    const items: Page<N>['items'] = [];
    const invalid: (InvalidItem & { offset: number })[] = [];
    let pageCount = 0;
    for await (const page of this.pages(op, query, options)) {
      pageCount++;
      items.push(...page.items);
      for (const bad of page.invalid) invalid.push({ ...bad, offset: page.offset + bad.index });
    }
    return { items, invalid, pageCount };
  }

  async #getEnvelope(
    operation: string,
    url: string,
    options: RequestOptions,
  ): Promise<{ envelope: Envelope; release: () => void }> {
    const { response, token } = await this.#requestWithRetries(operation, url, options);
    try {
      const envelope = parseEnvelope(
        operation,
        response.body,
        response.headers.get('content-type'),
        response.status,
      );
      this.#scrubCredentials(operation, url, envelope, response.body, token);
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
  async #requestWithRetries(
    operation: string,
    url: string,
    options: RequestOptions,
  ): Promise<{ response: ExchangeResponse; token: string }> {
    const { signal, deadline } = options;
    const state: RetryState = { transientFailures: 0, quotaRetried: false };
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
        const said = authReasonFromMessage(upstreamExcerpt(response.body, this.#secrets(token)));
        if (!reauthenticated && said !== 'apiKey') {
          // An expired or revoked token: one fresh token, one more try.
          reauthenticated = true;
          this.#tokens.invalidate(token);
          logger.debug('gym-api 401; refreshing the token and retrying once', { operation, attempt });
          continue;
        }
        const reason = said ?? (reauthenticated ? 'apiKey' : 'unknown');
        const excerpt = upstreamExcerpt(response.body, this.#secrets(token));
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
        const wait = this.#retryDelay(err, state, deadline);
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
        maxBodyBytes: this.#maxResponseBytes,
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
          ...(failed ? { error: failure === undefined ? `HTTP ${status}` : describeError(failure) } : {}),
        },
        this.#onRequest,
      );
    }
  }

  #statusError(operation: string, response: ExchangeResponse, token: string): GymApiError {
    return errorForStatus(response, {
      operation,
      secrets: this.#secrets(token),
      nowMs: this.#now(),
      defaultAuthReason: 'unknown',
    });
  }

  /**
   * How long to wait before retrying after `err`, or undefined to give up and throw it:
   * - 5xx / network / timeout: full-jitter backoff, up to maxAttempts, never past the deadline;
   * - 429: one retry after max(quotaDelayMs, Retry-After), only if that fits maxQuotaDelayMs and
   *   the deadline; otherwise the QuotaExceededError goes up so the club can be backed off;
   * - anything else: no retry.
   */
  #retryDelay(err: unknown, state: RetryState, deadline: number | undefined): number | undefined {
    let wait: number;
    if (err instanceof UnavailableError) {
      state.transientFailures++;
      if (state.transientFailures >= this.#retry.maxAttempts) return undefined;
      wait = backoffDelayMs(state.transientFailures, this.#retry, this.#random);
    } else if (err instanceof QuotaExceededError) {
      if (state.quotaRetried) return undefined;
      wait = Math.max(this.#retry.quotaDelayMs, err.retryAfterMs ?? 0);
      if (wait > this.#retry.maxQuotaDelayMs) return undefined;
      state.quotaRetried = true;
      logger.warn('gym-api 429 quota exceeded; one retry after a back-off', {
        operation: err.operation,
        wait,
      });
    } else {
      return undefined;
    }
    if (deadline !== undefined && this.#now() + wait >= deadline) return undefined;
    return wait;
  }
}

function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (err) {
    throw new TypeError('GymApiClient: baseUrl must be an absolute http(s) URL', { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('GymApiClient: baseUrl must be an absolute http(s) URL');
  }
  if (url.search || url.hash) throw new TypeError('GymApiClient: baseUrl must not carry a query or fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

const defaultSleep: SleepFn = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : undefined);
};
