/**
 * The checks that paging is sound, whatever the upstream sends: a page answers the request it was
 * asked for (its `href`: a stale or mixed-up response is refused), paging moves forward (a page
 * that repeats the one before means the upstream ignored `offset`), and the `next` link is trusted
 * only when it stays on the configured origin and path with a sane offset/limit. Credentials never
 * go to a host the caller did not configure.
 */
import { createHash } from 'node:crypto';
import { safeStringify } from '../common/bounded-value';
import { InvalidResponseError, PagingStalledError, StaleResponseError } from './errors';
import { MAX_PAGE_SIZE } from './operations';
import type { Envelope } from './page-reader';
import { INT32_MAX } from './query';

/**
 * Whether paging moves forward: a page identical to the one before it (the same count and the same
 * records, compared at up to 16 places spread over the page) means the upstream ignored the new
 * offset. Throws PagingStalledError on the second. Two different real pages never agree at 16
 * places; comparing samples keeps the check to a fraction of a millisecond a page.
 */
export class PageProgress {
  #previous: { readonly offset: number; readonly signature: string } | undefined;

  constructor(private readonly operation: string) {}

  check(page: { readonly offset: number; readonly rawCount: number }, envelope: Envelope): void {
    // A page of one record, or of one record several times over, proves nothing: a record the
    // upstream stores more than once comes back at offsets in a row (and one is asked for alone
    // next to a record over the cap). Offset ignored shows on pages of different records.
    const renderings = sample(envelope.data).map(render);
    if (new Set(renderings).size < 2) {
      this.#previous = undefined;
      return;
    }
    const hash = createHash('sha256');
    for (const rendering of renderings) hash.update(rendering).update('\u0000');
    const signature = `${page.rawCount}|${hash.digest('base64url')}`;
    const previous = this.#previous;
    this.#previous = { offset: page.offset, signature };
    if (previous && previous.signature === signature) {
      throw new PagingStalledError(
        `${this.operation}: the page at offset ${page.offset} repeats the page at offset ${previous.offset} (the upstream does not honour offset); paging stopped`,
        { operation: this.operation, status: 200 },
      );
    }
  }
}

/** Up to 16 records spread over the page (first and last included): enough to tell pages apart. */
function sample(data: readonly unknown[]): unknown[] {
  if (data.length <= 16) return [...data];
  const step = (data.length - 1) / 15;
  return Array.from({ length: 16 }, (_, i) => data[Math.round(i * step)]);
}

/** A record's JSON text (the fast path), or a cut rendering of one JSON.stringify cannot write. */
function render(record: unknown): string {
  try {
    return JSON.stringify(record) ?? 'undefined';
  } catch {
    return safeStringify(record, { maxChars: 4096 });
  }
}

const NUMBER = /^\d{1,10}$/;
const NAIVE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * Throws StaleResponseError when the page's `href` names another request than `requestUrl`: an
 * `offset`, `limit`, `status` or date filter that both carry and that differ (a date by the time it
 * names, so `...T10:00:00` and `...T10:00:00.000` agree). A parameter the href leaves out, an href
 * that is not a URL, or none at all prove nothing: the page is used.
 */
export function checkAnswersRequest(href: string | undefined, requestUrl: string, operation: string): void {
  if (!href) return;
  let theirs: URLSearchParams;
  try {
    theirs = new URL(href, requestUrl).searchParams;
  } catch {
    return;
  }
  const ours = new URL(requestUrl).searchParams;
  for (const name of ['offset', 'limit', 'status', 'fromdate', 'updatedate']) {
    const a = ours.get(name);
    const b = theirs.get(name);
    if (a === null || b === null || a === b) continue;
    const isTime = name === 'fromdate' || name === 'updatedate';
    if (isTime && NAIVE_TIME.test(b) && Date.parse(`${a}Z`) === Date.parse(`${b}Z`)) continue;
    const shown = (isTime ? NAIVE_TIME : name === 'status' ? /^[A-Za-z_]{1,30}$/ : NUMBER).test(b)
      ? b
      : '(unreadable)';
    throw new StaleResponseError(
      `${operation}: the response answers another request (its href has ${name}=${shown}, the request ${name}=${a}): a stale or mixed-up response, not used`,
      { operation, status: 200 },
    );
  }
}

export interface NextLinkContext {
  readonly operation: string;
  /** The URL this page was requested from. */
  readonly requestUrl: string;
  /** `{base}{operation path}`: the only origin + path a next link may point to. */
  readonly expectedEndpoint: string;
  readonly offset: number;
  readonly rawCount: number;
  /**
   * False on a short (last) page: the link is then only checked for origin and path, since many
   * APIs put a `next` past the end on every page.
   */
  readonly willFollow: boolean;
}

/**
 * The offset of the next page according to `next`, or undefined when there is no usable link
 * or a short page (the caller then raises offset by the page size, or stops). Throws
 * InvalidResponseError when `next` points to another origin or path, or carries an offset that would
 * loop or skip records.
 */
export function nextOffsetFromLink(next: string | undefined, context: NextLinkContext): number | undefined {
  if (next === undefined) return undefined;
  const { operation } = context;
  let url: URL;
  try {
    url = new URL(next, context.requestUrl);
  } catch (err) {
    throw new InvalidResponseError(`${operation}: next is not a URL`, {
      operation,
      path: 'next',
      cause: err,
    });
  }
  const expected = new URL(context.expectedEndpoint);
  if (url.origin !== expected.origin) {
    throw new InvalidResponseError(
      `${operation}: next points to another origin (${url.protocol}//${url.host}); refused, credentials stay with ${expected.host}`,
      { operation, path: 'next' },
    );
  }
  if (url.pathname.replace(/\/+$/, '') !== expected.pathname.replace(/\/+$/, '')) {
    throw new InvalidResponseError(
      `${operation}: next points to another path (${url.pathname.slice(0, 100)}); expected ${expected.pathname}`,
      { operation, path: 'next' },
    );
  }
  if (!context.willFollow) return undefined;
  const limit = url.searchParams.get('limit');
  if (limit !== null && !isIntInRange(limit, 0, MAX_PAGE_SIZE)) {
    throw new InvalidResponseError(`${operation}: next has an invalid limit '${limit.slice(0, 20)}'`, {
      operation,
      path: 'next',
    });
  }
  const offsetText = url.searchParams.get('offset');
  if (offsetText === null) return undefined;
  if (!isIntInRange(offsetText, 0, INT32_MAX)) {
    throw new InvalidResponseError(`${operation}: next has an invalid offset '${offsetText.slice(0, 20)}'`, {
      operation,
      path: 'next',
    });
  }
  const nextOffset = Number(offsetText);
  if (nextOffset <= context.offset) {
    throw new PagingStalledError(
      `${operation}: next offset ${nextOffset} does not move past the page at offset ${context.offset} (it would loop); paging stopped`,
      { operation, status: 200 },
    );
  }
  if (nextOffset > context.offset + context.rawCount) {
    throw new InvalidResponseError(
      `${operation}: next offset ${nextOffset} would ${nextOffset <= context.offset ? 'loop' : 'skip records'} (page at offset ${context.offset} had ${context.rawCount} items)`,
      { operation, path: 'next' },
    );
  }
  return nextOffset;
}

function isIntInRange(text: string, min: number, max: number): boolean {
  if (!/^\d{1,10}$/.test(text)) return false;
  const n = Number(text);
  return n >= min && n <= max;
}
