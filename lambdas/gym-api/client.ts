/**
 * The Gym Reporting API client for one club: bearer token + the club's x-api-key on every call,
 * paging through list operations, typed errors, retries within the caller's deadline, and a hook
 * that sees every request (for the club's quota count). The paging loop is here; one page's
 * request and retries are data-requests.ts, answers over the response cap over-cap-policy.ts, the
 * paging checks paging-checks.ts and the reading of a page page-reader.ts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { rememberSecrets } from '../common/redact';
import { DEFAULT_MAX_RESPONSE_BYTES } from './body-budget';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type FetchAllResult,
  type GymApiClientOptions,
  type PageOptions,
  type SleepFn,
} from './client-options';
import { DataRequests } from './data-requests';
import { ResponseTooLargeError } from './errors';
import { throwIfAborted } from './http-exchange';
import { OPERATIONS, type OperationName, type OperationSpec } from './operations';
import { OverCapPolicy } from './over-cap-policy';
import { type Envelope, type InvalidItem, type Page, readPage } from './page-reader';
import { PagesAhead } from './pages-ahead';
import { checkAnswersRequest, nextOffsetFromLink, PageProgress } from './paging-checks';
import { pageUrl, type QueryOf, validateOffset, validatePageSize, validateQuery } from './query';
import { DEFAULT_RETRY_POLICY } from './retry-policy';

export class GymApiClient {
  readonly #baseUrl: string;
  readonly #requests: DataRequests;

  constructor(options: GymApiClientOptions) {
    this.#baseUrl = normaliseBaseUrl(options.baseUrl);
    if (!options.apiKey) throw new TypeError('GymApiClient: apiKey is required (the club API key)');
    const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
      throw new TypeError('GymApiClient: retry.maxAttempts must be an integer >= 1');
    }
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1024) {
      throw new TypeError('GymApiClient: maxResponseBytes must be an integer of at least 1024');
    }
    this.#requests = new DataRequests({
      apiKey: options.apiKey,
      tokens: options.tokenProvider,
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      retry,
      sleep: options.sleep ?? defaultSleep,
      random: options.random ?? Math.random,
      now: options.now ?? Date.now,
      onRequest: options.onRequest,
      maxResponseBytes,
    });
    rememberSecrets(options.apiKey);
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
   * MAX_OVERSIZED_IN_A_ROW in a row mean the upstream ignores `limit`: ResponseTooLargeError;
   * over-cap-policy.ts); a page that repeats the one before, or a `next` that does not move
   * forward, is a PagingStalledError (paging-checks.ts).
   */
  async *pages<N extends OperationName>(
    op: N,
    query: QueryOf<N> = {} as QueryOf<N>,
    options: PageOptions = {},
  ): AsyncGenerator<Page<N>, void, undefined> {
    const spec: OperationSpec | undefined = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
    if (!spec) throw new TypeError(`GymApiClient: unknown operation '${String(op)}'`);
    const pageSize = validatePageSize(op, options.pageSize ?? DEFAULT_PAGE_SIZE);
    const offset = validateOffset(op, options.startOffset ?? 0);
    const filters = validateQuery(spec, query);
    yield* this.#pageLoop(op, spec, filters, pageSize, offset, options);
  }

  /** The paging loop of `pages`, its query checked; the pages asked for ahead dropped when it ends. */
  async *#pageLoop<N extends OperationName>(
    op: N,
    spec: OperationSpec,
    filters: ReturnType<typeof validateQuery>,
    pageSize: number,
    startOffset: number,
    options: PageOptions,
  ): AsyncGenerator<Page<N>, void, undefined> {
    let offset = startOffset;
    let size = pageSize;
    const endpoint = `${this.#baseUrl}${spec.path}`;
    const progress = new PageProgress(op);
    const overCap = new OverCapPolicy(op, this.#requests.cleaner());
    const requestOptions = requestOptionsOf(options);
    const ahead = this.#pagesAhead(op, spec, filters, pageSize, options);
    try {
      for (;;) {
        const url = pageUrl(this.#baseUrl, spec, filters, offset, size);
        let fetched: { envelope: Envelope; release: () => void };
        try {
          fetched =
            (await ahead.take(offset, url)) ?? (await this.#requests.getEnvelope(op, url, requestOptions));
        } catch (err) {
          if (!(err instanceof ResponseTooLargeError)) throw err;
          ahead.drop();
          const step = overCap.next<N>(err, url, offset, size);
          if (step.action === 'ask-fewer') size = step.size;
          if (step.action === 'skip') {
            yield step.page;
            // The next record is asked for alone; the page size grows back tenfold per page after it.
            offset += 1;
          }
          continue;
        }
        overCap.answered();
        const { envelope, release } = fetched;
        try {
          const { page, full, linked } = readChecked<N>(
            spec,
            envelope,
            { op, url, endpoint, offset, size },
            progress,
          );
          // Once a page came back whole (its token good, its size as asked), the next are asked ahead.
          if (full && size === pageSize && (linked ?? offset + size) === offset + size)
            ahead.fill(offset, size);
          yield page;
          if (!full) return;
          offset = linked ?? offset + page.rawCount;
          size = Math.min(pageSize, size * 10);
        } finally {
          release();
        }
        throwIfAborted(options.signal, op);
      }
    } finally {
      ahead.drop();
    }
  }

  /** The pages a scan asks for ahead (pages-ahead.ts): full pages of its query, capped lower. */
  #pagesAhead(
    op: OperationName,
    spec: OperationSpec,
    filters: ReturnType<typeof validateQuery>,
    pageSize: number,
    options: PageOptions,
  ): PagesAhead {
    const requestOptions = { ...requestOptionsOf(options), ahead: true };
    return new PagesAhead(
      options.prefetch ?? 0,
      (at) => pageUrl(this.#baseUrl, spec, filters, at, pageSize),
      (url, bodyCap) => this.#requests.getEnvelope(op, url, { ...requestOptions, bodyCap }),
    );
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
}

/** One answer read into its page, after the paging checks; `linked`: the offset its `next` gives. */
function readChecked<N extends OperationName>(
  spec: OperationSpec,
  envelope: Envelope,
  at: { op: N; url: string; endpoint: string; offset: number; size: number },
  progress: PageProgress,
): { page: Page<N>; full: boolean; linked: number | undefined } {
  const { op, url, offset, size } = at;
  checkAnswersRequest(envelope.href, url, op);
  const page = readPage<N>(spec, envelope, offset, size);
  const full = page.rawCount >= size;
  progress.check(page, envelope);
  // `next` is checked on every page, even the last: a link elsewhere means something is wrong.
  const linked = nextOffsetFromLink(envelope.next, {
    operation: op,
    requestUrl: url,
    expectedEndpoint: at.endpoint,
    offset,
    rawCount: page.rawCount,
    willFollow: full,
  });
  return { page, full, linked };
}

/** The options one request takes from a paging call's. */
function requestOptionsOf(options: PageOptions): { deadline?: number; signal?: AbortSignal } {
  return {
    ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
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
