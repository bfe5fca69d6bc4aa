/**
 * Reading one page: the body as int64-safe JSON, the envelope {href, next, data}, each item
 * validated on its own (a bad item is reported, not fatal), and the `next` link checked before it is
 * trusted: same origin, same path, sane offset/limit. Credentials never go to a host the caller
 * did not configure.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { boundedCopy, measureValue, RECORD_LIMITS, safeStringify } from '../common/bounded-value';
import {
  FINGERPRINT_CHARS,
  InvalidResponseError,
  PagingStalledError,
  type ResponseTooLargeError,
  StaleResponseError,
} from './errors';
import { parseJsonPreservingInt64 } from './json';
import { type ItemOf, MAX_PAGE_SIZE, type OperationName, type OperationSpec } from './operations';
import { INT32_MAX } from './query';
import { PageEnvelopeSchema } from './schemas';
import { describeBody } from './upstream-message';

/** An item that failed its schema: kept raw for quarantine, with the failing field paths. */
export interface InvalidItem {
  /** Index in this page's `data`. */
  readonly index: number;
  readonly raw: unknown;
  /** e.g. `data[3].Membership.StartDate: date-time must match ...; data[3].Contact.Email: ...` */
  readonly issues: string;
  /**
   * The record was past the limits: `raw` is a cut copy, which may not tell two such records apart
   * (the engine counts rows by their raw records only when they are whole).
   */
  readonly cut?: true;
  /**
   * What the row is counted under when `raw` is cut: a record past the limits, or over the
   * response cap, is known by a fingerprint of its first 16 KB, so the same record read or skipped
   * at two offsets (drift, an unstable order) shows as a row read twice and the row it pushed out
   * is not lost.
   */
  readonly rowIdentity?: string;
}

export interface Page<N extends OperationName> {
  /** Offset this page was requested at. */
  readonly offset: number;
  /** Limit this page was requested with. */
  readonly limit: number;
  /** The items that passed validation, in upstream order. */
  readonly items: ItemOf<N>[];
  readonly invalid: InvalidItem[];
  /** Number of entries in `data` (valid + invalid). */
  readonly rawCount: number;
  readonly next?: string;
  readonly href?: string;
}

export interface Envelope {
  readonly href?: string;
  readonly next?: string;
  readonly data: unknown[];
}

const MAX_ISSUES_PER_ITEM = 5;

export function parseEnvelope(
  operation: string,
  body: string,
  contentType: string | null,
  status: number,
): Envelope {
  let parsed: unknown;
  try {
    parsed = parseJsonPreservingInt64(body);
  } catch (err) {
    throw new InvalidResponseError(
      `${operation}: response is not JSON or is truncated (${describeBody(body, contentType)})`,
      { operation, status, cause: err },
    );
  }
  const result = PageEnvelopeSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'data';
    throw new InvalidResponseError(
      `${operation}: response is not a page envelope {href, next, data[]} (${path}: ${issue?.message ?? 'invalid'})`,
      { operation, status, path },
    );
  }
  const { href, next, data } = result.data;
  return {
    data,
    ...(typeof href === 'string' && href !== '' ? { href } : {}),
    ...(typeof next === 'string' && next !== '' ? { next } : {}),
  };
}

export function readPage<N extends OperationName>(
  spec: OperationSpec,
  envelope: Envelope,
  offset: number,
  limit: number,
): Page<N> {
  const items: ItemOf<N>[] = [];
  const invalid: InvalidItem[] = [];
  envelope.data.forEach((raw, index) => {
    const tooBig = recordLimitIssue(index, raw);
    if (tooBig) {
      invalid.push({
        index,
        raw: boundedCopy(raw),
        issues: tooBig,
        cut: true,
        rowIdentity: cutFingerprint(spec.name, raw),
      });
      return;
    }
    const result = spec.itemSchema.safeParse(raw);
    if (result.success) items.push(result.data as ItemOf<N>);
    else invalid.push({ index, raw, issues: formatIssues(index, result.error.issues) });
  });
  return {
    offset,
    limit,
    items,
    invalid,
    rawCount: envelope.data.length,
    ...(envelope.next === undefined ? {} : { next: envelope.next }),
    ...(envelope.href === undefined ? {} : { href: envelope.href }),
  };
}

/**
 * What a record past the limits is counted under (InvalidItem.rowIdentity): a digest of its first
 * 16 KB as JSON, written by an iterative walk (any depth). The same record read twice by drift
 * agrees; two records agree only when their first 16 KB do.
 */
function cutFingerprint(operation: string, raw: unknown): string {
  const start = safeStringify(raw, { maxChars: FINGERPRINT_CHARS });
  return `oversized|${operation}|${createHash('sha256').update(start).digest('base64url')}`;
}

/**
 * Why a record is past RECORD_LIMITS (common/bounded-value.ts), or undefined. Such a record is an
 * invalid item (quarantined with a cut copy), so nothing after the client meets a value deeper or
 * larger than the limits.
 */
function recordLimitIssue(index: number, raw: unknown): string | undefined {
  const measure = measureValue(raw, RECORD_LIMITS);
  if (measure.exceeded === 'depth') {
    return `data[${index}].${measure.path}: nested deeper than ${RECORD_LIMITS.maxDepth} levels (records past that are not carried)`;
  }
  if (measure.exceeded === 'bytes') {
    return `data[${index}]: record over ${RECORD_LIMITS.maxBytes / 1024} KB as JSON (at ${measure.path}); records past that are not carried`;
  }
  return undefined;
}

/**
 * The page that stands for one record over the response cap (asked for alone and still too large):
 * one invalid item holding what was read of it, so the record is quarantined and paging goes on.
 */
export function oversizedRecordPage<N extends OperationName>(
  operation: string,
  offset: number,
  err: ResponseTooLargeError,
  clean: (text: string) => string,
): Page<N> {
  const raw = {
    gymBridge: 'record over the response cap, not read',
    operation,
    bytes: err.bytes,
    limitBytes: err.limitBytes,
    // What `data` started with: the quarantine key (a hash of the raw) stays stable across polls.
    start: clean(err.prefix),
  };
  return {
    offset,
    limit: 1,
    items: [],
    invalid: [
      {
        index: 0,
        raw,
        issues: `data[0]: the record at offset ${offset} is over the ${(err.limitBytes / 1024 / 1024).toFixed(1)} MB response cap on its own; skipped`,
        cut: true,
        ...(err.fingerprint ? { rowIdentity: `oversized|${operation}|${err.fingerprint}` } : {}),
      },
    ],
    rawCount: 1,
  };
}

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

/**
 * The `href` an answer over the response cap states before its `data` (what was read of it: its
 * first bytes), or undefined when it states none there. Lets a stale answer over the cap be told
 * from a record over the cap: an upstream or cache that serves a previous response again.
 */
export function hrefInHead(head: string): string | undefined {
  const data = head.indexOf('"data"');
  const before = data >= 0 ? head.slice(0, data) : head;
  const found = /"href"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(before);
  if (!found) return undefined;
  try {
    const href: unknown = JSON.parse(found[1]!);
    return typeof href === 'string' ? href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether what was read of an answer over the cap shows `data` holding more than one record (the
 * first one ends, a second begins): an answer to a request for one record that ignores `limit`,
 * which says nothing of the record at its offset being large. False when the head ends inside the
 * first record (that record alone is past the head) or shows no `data`.
 */
export function headHoldsSeveralRecords(head: string): boolean {
  const open = /"data"\s*:\s*\[\s*/.exec(head);
  if (!open) return false;
  let depth = 0;
  let inString = false;
  for (let i = open.index + open[0].length; i < head.length; i++) {
    const c = head[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth < 0) return false;
    } else if (c === ',' && depth === 0) return true;
  }
  return false;
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

/** `data[3].Membership.StartDate: message` for each issue, `; `-separated. */
export function formatIssues(index: number, issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES_PER_ITEM).map((issue) => {
    const path = issue.path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('');
    return `data[${index}]${path}: ${issue.message}`;
  });
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; (+${more} more)` : shown.join('; ');
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
